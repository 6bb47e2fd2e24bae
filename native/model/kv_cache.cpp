#include "model/kv_cache.h"

#include <algorithm>
#include <cstring>

#include "quant/fp16.h"

namespace wasmlm {

KvCache::KvCache(const DecoderHParams& h, uint32_t n_ctx, KvCacheType type)
    : type_(type), n_ctx_(n_ctx), n_swa_(h.n_swa), head_dim_(h.head_dim), kv_dim_(h.kv_dim()) {
  uint64_t k_size = 0, v_size = 0;
  for (const DecoderLayerParams& lp : h.layers) {
    Layer L;
    L.capacity = lp.windowed ? window_capacity(h.n_swa, n_ctx) : n_ctx;
    L.k_stride = (uint64_t(L.capacity) + 3) / 4 * 4;
    L.k_at = k_size;
    L.v_at = v_size;
    k_size += kv_dim_ * L.k_stride;
    v_size += kv_dim_ * L.capacity;
    layers_.push_back(L);
  }
  if (type == KvCacheType::F16) {
    k16_.assign(k_size + kPad, 0);
    v16_.assign(v_size + kPad, 0);
  } else {
    k32_.assign(k_size + kPad, 0.f);
    v32_.assign(v_size + kPad, 0.f);
  }
}

uint64_t KvCache::bytes() const {
  return (k32_.size() + v32_.size()) * sizeof(float) + (k16_.size() + v16_.size()) * sizeof(uint16_t);
}

void KvCache::store(uint32_t layer, uint32_t pos, const float* k, const float* v) {
  const Layer& L = layers_[layer];
  const uint32_t s = pos % L.capacity;
  const uint64_t k_at = L.k_at + s, v_at = L.v_at + uint64_t(s) * kv_dim_;
  if (type_ == KvCacheType::F16) {
    for (uint64_t i = 0; i < kv_dim_; ++i) {
      k16_[k_at + i * L.k_stride] = fp32_to_fp16(k[i]);
      v16_[v_at + i] = fp32_to_fp16(v[i]);
    }
  } else {
    for (uint64_t i = 0; i < kv_dim_; ++i) k32_[k_at + i * L.k_stride] = k[i];
    std::memcpy(&v32_[v_at], v, kv_dim_ * sizeof(float));
  }
  if (L.capacity < n_ctx_ && pos >= L.capacity) ring_oldest_ = std::max(ring_oldest_, pos + 1 - L.capacity);
}

bool KvCache::can_truncate(uint32_t n, uint32_t n_past) const {
  if (n >= n_past || ring_oldest_ == 0) return true;
  // The next query (at n) sees positions n - n_swa + 1 .. n.
  return n + 1 >= n_swa_ && n + 1 - n_swa_ >= ring_oldest_;
}

void KvCache::read_raw(uint32_t layer, uint32_t pos, uint8_t* k, uint8_t* v) const {
  const Layer& L = layers_[layer];
  const uint32_t s = pos % L.capacity;
  const uint64_t elem = type_ == KvCacheType::F16 ? 2 : 4;
  const uint8_t* kb = type_ == KvCacheType::F16 ? reinterpret_cast<const uint8_t*>(k16_.data())
                                                 : reinterpret_cast<const uint8_t*>(k32_.data());
  const uint8_t* vb = type_ == KvCacheType::F16 ? reinterpret_cast<const uint8_t*>(v16_.data())
                                                 : reinterpret_cast<const uint8_t*>(v32_.data());
  for (uint64_t i = 0; i < kv_dim_; ++i) std::memcpy(k + i * elem, kb + (L.k_at + i * L.k_stride + s) * elem, elem);
  std::memcpy(v, vb + (L.v_at + uint64_t(s) * kv_dim_) * elem, kv_dim_ * elem);
}

void KvCache::write_raw(uint32_t layer, uint32_t pos, const uint8_t* k, const uint8_t* v) {
  const Layer& L = layers_[layer];
  const uint32_t s = pos % L.capacity;
  const uint64_t elem = type_ == KvCacheType::F16 ? 2 : 4;
  uint8_t* kb = type_ == KvCacheType::F16 ? reinterpret_cast<uint8_t*>(k16_.data()) : reinterpret_cast<uint8_t*>(k32_.data());
  uint8_t* vb = type_ == KvCacheType::F16 ? reinterpret_cast<uint8_t*>(v16_.data()) : reinterpret_cast<uint8_t*>(v32_.data());
  for (uint64_t i = 0; i < kv_dim_; ++i) std::memcpy(kb + (L.k_at + i * L.k_stride + s) * elem, k + i * elem, elem);
  std::memcpy(vb + (L.v_at + uint64_t(s) * kv_dim_) * elem, v, kv_dim_ * elem);
}

}  // namespace wasmlm
