#include "model/kv_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "quant/fp16.h"

namespace wasmlm {

KvCache::KvCache(const DecoderHParams& h, uint32_t n_ctx, KvCacheType type)
    : type_(type), n_ctx_(n_ctx), n_swa_(h.n_swa), head_dim_(h.head_dim), kv_dim_(h.kv_dim()) {
  uint64_t size = 0;
  for (const DecoderLayerParams& lp : h.layers) {
    Layer L;
    L.capacity = lp.windowed ? window_capacity(h.n_swa, n_ctx) : n_ctx;
    L.head_stride = (uint64_t(L.capacity) + kKeyBlock - 1) / kKeyBlock * kKeyBlock * head_dim_;
    L.at = size;
    size += kv_dim_ / head_dim_ * L.head_stride;
    layers_.push_back(L);
  }
  nonfinite_.assign(layers_.size(), false);
  const uint64_t pad = padding(head_dim_);
  if (type == KvCacheType::F16) {
    k16_.assign(size + pad, 0);
    v16_.assign(size + pad, 0);
  } else {
    k32_.assign(size + pad, 0.f);
    v32_.assign(size + pad, 0.f);
  }
}

uint64_t KvCache::bytes() const {
  return (k32_.size() + v32_.size()) * sizeof(float) + (k16_.size() + v16_.size()) * sizeof(uint16_t);
}

// f(i, key index, value index) for the kv_dim values of `pos`, i over
// head * head_dim + dim.
template <typename F>
void KvCache::for_each_value(uint32_t layer, uint32_t pos, F&& f) const {
  const Layer& L = layers_[layer];
  const uint32_t s = pos % L.capacity;
  for (uint64_t head = 0; head < kv_dim_ / head_dim_; ++head) {
    const uint64_t at = L.at + head * L.head_stride;
    for (uint64_t d = 0; d < head_dim_; ++d)
      f(head * head_dim_ + d, at + key_index(s, d, head_dim_), at + uint64_t(s) * head_dim_ + d);
  }
}

void KvCache::store(uint32_t layer, uint32_t pos, const float* k, const float* v) {
  const Layer& L = layers_[layer];
  bool special = false;
  if (type_ == KvCacheType::F16) {
    for_each_value(layer, pos, [&](uint64_t i, uint64_t ki, uint64_t vi) {
      const uint16_t hk = fp32_to_fp16(k[i]), hv = fp32_to_fp16(v[i]);
      k16_[ki] = hk;
      v16_[vi] = hv;
      special |= (hk & 0x7C00) == 0x7C00 || (hv & 0x7C00) == 0x7C00;
    });
  } else {
    for_each_value(layer, pos, [&](uint64_t i, uint64_t ki, uint64_t vi) {
      k32_[ki] = k[i];
      v32_[vi] = v[i];
      special |= !std::isfinite(k[i]) || !std::isfinite(v[i]);
    });
  }
  if (special) nonfinite_[layer] = true;
  if (L.capacity < n_ctx_ && pos >= L.capacity) ring_oldest_ = std::max(ring_oldest_, pos + 1 - L.capacity);
}

bool KvCache::can_truncate(uint32_t n, uint32_t n_past) const {
  if (n >= n_past || ring_oldest_ == 0) return true;
  // The next query (at n) sees positions n - n_swa + 1 .. n.
  return n + 1 >= n_swa_ && n + 1 - n_swa_ >= ring_oldest_;
}

void KvCache::read_raw(uint32_t layer, uint32_t pos, uint8_t* k, uint8_t* v) const {
  const bool f16 = type_ == KvCacheType::F16;
  const uint64_t elem = f16 ? 2 : 4;
  const uint8_t* kb = f16 ? reinterpret_cast<const uint8_t*>(k16_.data()) : reinterpret_cast<const uint8_t*>(k32_.data());
  const uint8_t* vb = f16 ? reinterpret_cast<const uint8_t*>(v16_.data()) : reinterpret_cast<const uint8_t*>(v32_.data());
  for_each_value(layer, pos, [&](uint64_t i, uint64_t ki, uint64_t vi) {
    std::memcpy(k + i * elem, kb + ki * elem, elem);
    std::memcpy(v + i * elem, vb + vi * elem, elem);
  });
}

void KvCache::write_raw(uint32_t layer, uint32_t pos, const uint8_t* k, const uint8_t* v) {
  const bool f16 = type_ == KvCacheType::F16;
  const uint64_t elem = f16 ? 2 : 4;
  uint8_t* kb = f16 ? reinterpret_cast<uint8_t*>(k16_.data()) : reinterpret_cast<uint8_t*>(k32_.data());
  uint8_t* vb = f16 ? reinterpret_cast<uint8_t*>(v16_.data()) : reinterpret_cast<uint8_t*>(v32_.data());
  bool special = false;
  auto is_special = [&](const uint8_t* p) {
    if (f16) {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return (x & 0x7C00) == 0x7C00;
    }
    float x;
    std::memcpy(&x, p, 4);
    return !std::isfinite(x);
  };
  for_each_value(layer, pos, [&](uint64_t i, uint64_t ki, uint64_t vi) {
    std::memcpy(kb + ki * elem, k + i * elem, elem);
    std::memcpy(vb + vi * elem, v + i * elem, elem);
    special |= is_special(k + i * elem) || is_special(v + i * elem);
  });
  // Restored values are checked as stored ones are.
  if (special) nonfinite_[layer] = true;
}

}  // namespace wasmlm
