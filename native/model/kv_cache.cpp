#include "model/kv_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

KvCache::KvCache(const DecoderHParams& h, uint32_t n_ctx, KvCacheType type)
    : type_(type), n_ctx_(n_ctx), n_swa_(h.n_swa), head_dim_(h.head_dim), kv_dim_(h.kv_dim()) {
  if (type == KvCacheType::Q8_0 && head_dim_ % QK8_0 != 0)
    fail(ErrorCode::Unsupported, kNoOffset,
         "a Q8_0 KV cache needs a head size that is a multiple of 32 (as llama.cpp's); this model's is " +
             std::to_string(head_dim_));
  uint64_t size = 0;
  for (const DecoderLayerParams& lp : h.layers) {
    Layer L;
    L.capacity = lp.windowed ? window_capacity(h.n_swa, n_ctx) : n_ctx;
    L.head_stride = type == KvCacheType::Q8_0 ? uint64_t(L.capacity) * row_bytes()
                                              : (uint64_t(L.capacity) + kKeyBlock - 1) / kKeyBlock * kKeyBlock * head_dim_;
    L.at = size;
    size += kv_dim_ / head_dim_ * L.head_stride;
    layers_.push_back(L);
  }
  nonfinite_.assign(layers_.size(), false);
  const uint64_t pad = padding(head_dim_);
  if (type == KvCacheType::Q8_0) {
    kq_.assign(size + kPad, 0);
    vq_.assign(size + kPad, 0);
  } else if (type == KvCacheType::F16) {
    k16_.assign(size + pad, 0);
    v16_.assign(size + pad, 0);
  } else {
    k32_.assign(size + pad, 0.f);
    v32_.assign(size + pad, 0.f);
  }
}

const char* kv_cache_type_name(KvCacheType type) {
  switch (type) {
    case KvCacheType::F32: return "F32";
    case KvCacheType::F16: return "F16";
    case KvCacheType::Q8_0: return "Q8_0";
  }
  return "?";
}

uint64_t KvCache::bytes() const {
  return (k32_.size() + v32_.size()) * sizeof(float) + (k16_.size() + v16_.size()) * sizeof(uint16_t) + kq_.size() +
         vq_.size();
}

uint64_t KvCache::row_bytes() const { return head_dim_ / QK8_0 * sizeof(block_q8_0); }

uint64_t KvCache::raw_bytes() const {
  switch (type_) {
    case KvCacheType::F32: return kv_dim_ * 4;
    case KvCacheType::F16: return kv_dim_ * 2;
    case KvCacheType::Q8_0: break;
  }
  return kv_dim_ / head_dim_ * row_bytes();
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

// Rounded to F16 four at a time where there is SIMD, the same bits (one
// value at a time, the stores were 1.9% of an S model's 128-token prompt in
// a Node profile; four at a time, 0.4%).
bool KvCache::write_f16(uint32_t layer, uint32_t pos, const float* k, const float* v) {
  bool special = false;
  const auto scalar = [&](uint64_t i, uint64_t ki, uint64_t vi) {
    const uint16_t hk = fp32_to_fp16(k[i]), hv = fp32_to_fp16(v[i]);
    k16_[ki] = hk;
    v16_[vi] = hv;
    special |= (hk & 0x7C00) == 0x7C00 || (hv & 0x7C00) == 0x7C00;
  };
#ifdef __wasm_simd128__
  if (head_dim_ % 4 == 0) {
    const Layer& L = layers_[layer];
    const uint32_t s = pos % L.capacity;
    const v128_t exp_mask = wasm_i32x4_splat(0x7C00);
    v128_t inf_nan = wasm_i32x4_splat(0);
    for (uint64_t head = 0; head < kv_dim_ / head_dim_; ++head) {
      const uint64_t at = L.at + head * L.head_stride;
      for (uint64_t d = 0; d < head_dim_; d += 4) {
        const uint64_t i = head * head_dim_ + d;
        const v128_t hk = simd::f32x4_to_fp16x4(wasm_v128_load(k + i));
        const v128_t hv = simd::f32x4_to_fp16x4(wasm_v128_load(v + i));
        inf_nan = wasm_v128_or(inf_nan, wasm_v128_or(wasm_i32x4_eq(wasm_v128_and(hk, exp_mask), exp_mask),
                                                     wasm_i32x4_eq(wasm_v128_and(hv, exp_mask), exp_mask)));
        wasm_v128_store64_lane(&v16_[at + uint64_t(s) * head_dim_ + d], wasm_u16x8_narrow_i32x4(hv, hv), 0);
        uint16_t* key = &k16_[at + key_index(s, d, head_dim_)];  // the next dims kKeyBlock apart
        key[0] = static_cast<uint16_t>(wasm_i32x4_extract_lane(hk, 0));
        key[kKeyBlock] = static_cast<uint16_t>(wasm_i32x4_extract_lane(hk, 1));
        key[2 * kKeyBlock] = static_cast<uint16_t>(wasm_i32x4_extract_lane(hk, 2));
        key[3 * kKeyBlock] = static_cast<uint16_t>(wasm_i32x4_extract_lane(hk, 3));
      }
    }
    return wasm_v128_any_true(inf_nan);
  }
#endif
  for_each_value(layer, pos, scalar);
  return special;
}

bool KvCache::write(uint32_t layer, uint32_t pos, const float* k, const float* v) {
  const Layer& L = layers_[layer];
  bool special = false;
  if (type_ == KvCacheType::Q8_0) {
    const uint32_t s = pos % L.capacity;
    for (uint64_t head = 0; head < kv_dim_ / head_dim_; ++head) {
      const uint64_t at = L.at + head * L.head_stride + s * row_bytes();
      quantize_row_q8_0(k + head * head_dim_, &kq_[at], static_cast<int64_t>(head_dim_));
      quantize_row_q8_0(v + head * head_dim_, &vq_[at], static_cast<int64_t>(head_dim_));
    }
    for (uint64_t i = 0; i < kv_dim_; ++i) special |= !std::isfinite(k[i]) || !std::isfinite(v[i]);
  } else if (type_ == KvCacheType::F16) {
    special = write_f16(layer, pos, k, v);
  } else {
    for_each_value(layer, pos, [&](uint64_t i, uint64_t ki, uint64_t vi) {
      k32_[ki] = k[i];
      v32_[vi] = v[i];
      special |= !std::isfinite(k[i]) || !std::isfinite(v[i]);
    });
  }
  return special;
}

void KvCache::stored(uint32_t layer, uint32_t pos, bool nonfinite) {
  const Layer& L = layers_[layer];
  if (nonfinite) nonfinite_[layer] = true;
  if (L.capacity < n_ctx_ && pos >= L.capacity) ring_oldest_ = std::max(ring_oldest_, pos + 1 - L.capacity);
}

bool KvCache::can_truncate(uint32_t n, uint32_t n_past) const {
  if (n >= n_past || ring_oldest_ == 0) return true;
  // The next query (at n) sees positions n - n_swa + 1 .. n.
  return n + 1 >= n_swa_ && n + 1 - n_swa_ >= ring_oldest_;
}

void KvCache::read_raw(uint32_t layer, uint32_t pos, uint8_t* k, uint8_t* v) const {
  if (type_ == KvCacheType::Q8_0) {
    const Layer& L = layers_[layer];
    const uint64_t rb = row_bytes(), s = pos % L.capacity;
    for (uint64_t head = 0; head < kv_dim_ / head_dim_; ++head) {
      std::memcpy(k + head * rb, &kq_[L.at + head * L.head_stride + s * rb], rb);
      std::memcpy(v + head * rb, &vq_[L.at + head * L.head_stride + s * rb], rb);
    }
    return;
  }
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
  if (type_ == KvCacheType::Q8_0) {
    const Layer& L = layers_[layer];
    const uint64_t rb = row_bytes(), s = pos % L.capacity;
    bool special = false;
    for (uint64_t head = 0; head < kv_dim_ / head_dim_; ++head) {
      std::memcpy(&kq_[L.at + head * L.head_stride + s * rb], k + head * rb, rb);
      std::memcpy(&vq_[L.at + head * L.head_stride + s * rb], v + head * rb, rb);
      for (uint64_t b = 0; b < rb; b += sizeof(block_q8_0))
        for (const uint8_t* row : {k, v}) {
          uint16_t d;
          std::memcpy(&d, row + head * rb + b, 2);
          special |= (d & 0x7C00) == 0x7C00;
        }
    }
    if (special) nonfinite_[layer] = true;
    return;
  }
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
