// Attention of a LlamaContext: appending to the KV cache and
// softmax(q k / sqrt(d)) v over it, F32 or F16, scalar or SIMD.
#include <algorithm>
#include <cmath>

#include "compute/ops.h"
#include "core/error.h"
#include "model/llama_model.h"
#include "quant/fp16.h"
#include "quant/simd128.h"

namespace wasmlm {

// Appends the batch's k and v rows to the layer's cache (K transposed).
void LlamaContext::store_kv(uint32_t l, uint32_t pos0, int n) {
  const LlamaHParams& h = model_.hparams();
  const uint64_t hd = h.head_dim, kv_dim = uint64_t(h.n_head_kv) * hd;
  const uint64_t k_at = uint64_t(l) * kv_dim * k_stride_ + pos0;  // + (head * hd + i) * k_stride_ + t
  const uint64_t v_at = (uint64_t(l) * n_ctx_ + pos0) * kv_dim;
  const bool f16 = kv_type_ == KvCacheType::F16;
  for (int t = 0; t < n; ++t)
    for (uint64_t i = 0; i < kv_dim; ++i) {
      const float k = k_[t * kv_dim + i], v = v_[t * kv_dim + i];
      if (f16) {
        k_cache16_[k_at + i * k_stride_ + t] = fp32_to_fp16(k);
        v_cache16_[v_at + t * kv_dim + i] = fp32_to_fp16(v);
      } else {
        k_cache_[k_at + i * k_stride_ + t] = k;
        v_cache_[v_at + t * kv_dim + i] = v;
      }
    }
}

namespace {

// dst[i] = src[i] as f32 for i < n (rounded up to 8: the caller pads).
void f16_to_f32_row(const uint16_t* src, float* dst, uint64_t n, bool use_simd) {
#ifdef __wasm_simd128__
  if (!use_simd) {
    for (uint64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32_fast(src[i]);
    return;
  }
  v128_t special = wasm_i16x8_splat(0);
  for (uint64_t i = 0; i < n; i += 8) {
    const v128_t h = wasm_v128_load(src + i);
    v128_t lo, hi;
    simd::fp16x8_to_f32_finite(h, &lo, &hi);
    special = wasm_v128_or(special, simd::fp16x8_special(h));
    wasm_v128_store(dst + i, lo);
    wasm_v128_store(dst + i + 4, hi);
  }
  if (!wasm_v128_any_true(special)) return;
  // Rare: inf or NaN somewhere (or in the padding): the exact converter.
  for (uint64_t i = 0; i < n; i += 8) {
    const v128_t h = wasm_v128_load(src + i);
    wasm_v128_store(dst + i, simd::fp16x4_to_f32(wasm_u32x4_extend_low_u16x8(h)));
    wasm_v128_store(dst + i + 4, simd::fp16x4_to_f32(wasm_u32x4_extend_high_u16x8(h)));
  }
#else
  for (uint64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32_fast(src[i]);
#endif
}

}  // namespace

// softmax(q k / sqrt(d)) v for every (token, query head) of the batch into
// xb2_, causally: the token at pos0 + t sees positions 0..pos0 + t. One task
// per key/value head (spread over the thread pool), which serves its group of
// query heads for every token of the batch; an F16 cache is converted to f32
// once per task.
void LlamaContext::attention(uint32_t l, uint32_t pos0, int n) {
  const LlamaHParams& h = model_.hparams();
  if (h.head_dim > 512) fail(ErrorCode::Unsupported, kNoOffset, "head size above 512");
  const uint64_t hd = h.head_dim, q_dim = uint64_t(h.n_head) * hd, kv_dim = uint64_t(h.n_head_kv) * hd;
  const uint32_t group = h.n_head / h.n_head_kv;  // query heads per key/value head
  const uint64_t n_pos = uint64_t(pos0) + n;
  pool_.parallel_for(static_cast<int>(h.n_head_kv), [&](int kvh, int thread) {
    const uint64_t k_at = (uint64_t(l) * kv_dim + uint64_t(kvh) * hd) * k_stride_;
    const uint64_t v_at = uint64_t(l) * n_ctx_ * kv_dim + uint64_t(kvh) * hd;
    const float *k, *v;
    uint64_t k_stride = k_stride_, v_stride;
    const bool use_simd = kernels_ == KernelChoice::Best;
    float* att = &att_[uint64_t(thread) * (k_stride_ + kPad)];
    // Decoding with a key/value head per query head: each cached value is
    // read once, so it is converted as it is read.
    if (kv_type_ == KvCacheType::F16 && use_simd && n == 1 && group == 1 &&
        attend_f16_direct(&k_cache16_[k_at], &v_cache16_[v_at], pos0, &q_[kvh * hd], att, &xb2_[kvh * hd]))
      return;
    if (kv_type_ == KvCacheType::F16) {
      // Rows of the converted keys only as long as needed (n_ctx-long rows
      // would put all of them in the same cache sets), + 8 against 4K aliasing.
      k_stride = (n_pos + 7) / 8 * 8 + 8;
      float* kf = &kv_f32_[uint64_t(thread) * (2 * hd * (k_stride_ + 16) + kPad)];
      float* vf = kf + hd * k_stride;
      for (uint64_t i = 0; i < hd; ++i) f16_to_f32_row(&k_cache16_[k_at + i * k_stride_], kf + i * k_stride, n_pos, use_simd);
      for (uint64_t t = 0; t < n_pos; ++t) f16_to_f32_row(&v_cache16_[v_at + t * kv_dim], vf + t * hd, hd, use_simd);
      k = kf, v = vf, v_stride = hd;
    } else {
      k = &k_cache_[k_at], v = &v_cache_[v_at], v_stride = kv_dim;
    }
    for (uint32_t head = kvh * group; head < (kvh + 1) * group; ++head)
      for (int t = 0; t < n; ++t)
        attend(k, k_stride, v, v_stride, pos0 + t, &q_[t * q_dim + head * hd], att, &xb2_[t * q_dim + head * hd]);
  });
}

// One query head at position pos against the cached positions 0..pos: k is
// the head's keys transposed (k[i * k_stride + t]), v its values (v[t *
// v_stride + i]), both f32.
void LlamaContext::attend(const float* k, uint64_t k_stride, const float* v, uint64_t v_stride, uint32_t pos,
                          const float* q_head, float* att, float* out) const {
  const int hd = static_cast<int>(model_.hparams().head_dim);
  const float att_scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const bool f16 = kv_type_ == KvCacheType::F16;
  // Rounds to F16 and back where llama.cpp's F16 cache makes it round
  // (the queries and the attention weights).
  auto r16 = [f16](float x) { return f16 ? fp16_to_fp32(fp32_to_fp16(x)) : x; };
  float q[512];
  for (int i = 0; i < hd; ++i) q[i] = r16(q_head[i]);
  // Scores, 4 positions per SIMD vector, each summed over i in order.
  const bool use_simd = kernels_ == KernelChoice::Best;
  (void)use_simd;
#ifdef __wasm_simd128__
  if (use_simd) {
  const v128_t scale = wasm_f32x4_splat(att_scale);
  uint32_t t = 0;
  for (; t + 16 <= pos + 1; t += 16) {
    v128_t s0 = wasm_f32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (int i = 0; i < hd; ++i) {
      const v128_t qi = wasm_f32x4_splat(q[i]);
      const float* kr = k + i * k_stride + t;
      s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(qi, wasm_v128_load(kr)));
      s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(qi, wasm_v128_load(kr + 4)));
      s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(qi, wasm_v128_load(kr + 8)));
      s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(qi, wasm_v128_load(kr + 12)));
    }
    wasm_v128_store(att + t, wasm_f32x4_mul(s0, scale));
    wasm_v128_store(att + t + 4, wasm_f32x4_mul(s1, scale));
    wasm_v128_store(att + t + 8, wasm_f32x4_mul(s2, scale));
    wasm_v128_store(att + t + 12, wasm_f32x4_mul(s3, scale));
  }
  for (; t <= pos; t += 4) {  // lanes past pos are computed and ignored
    v128_t s = wasm_f32x4_splat(0);
    for (int i = 0; i < hd; ++i)
      s = wasm_f32x4_add(s, wasm_f32x4_mul(wasm_f32x4_splat(q[i]), wasm_v128_load(k + i * k_stride + t)));
    wasm_v128_store(att + t, wasm_f32x4_mul(s, scale));
  }
  } else
#endif
  for (uint32_t t = 0; t <= pos; ++t) {
    float score = 0;
    for (int i = 0; i < hd; ++i) score += q[i] * k[i * k_stride + t];
    att[t] = score * att_scale;
  }
  softmax(att, pos + 1);
  if (f16)
    for (uint32_t t = 0; t <= pos; ++t) att[t] = r16(att[t]);
  std::fill(out, out + hd, 0.f);
  int i0 = 0;
#ifdef __wasm_simd128__
  // out[i] += a * v[t][i] over t in order, 16 then 4 lanes of i at a time.
  for (; use_simd && i0 + 16 <= hd; i0 += 16) {
    v128_t o0 = wasm_f32x4_splat(0), o1 = o0, o2 = o0, o3 = o0;
    for (uint32_t t = 0; t <= pos; ++t) {
      const v128_t a = wasm_f32x4_splat(att[t]);
      const float* vr = v + t * v_stride + i0;
      o0 = wasm_f32x4_add(o0, wasm_f32x4_mul(a, wasm_v128_load(vr)));
      o1 = wasm_f32x4_add(o1, wasm_f32x4_mul(a, wasm_v128_load(vr + 4)));
      o2 = wasm_f32x4_add(o2, wasm_f32x4_mul(a, wasm_v128_load(vr + 8)));
      o3 = wasm_f32x4_add(o3, wasm_f32x4_mul(a, wasm_v128_load(vr + 12)));
    }
    wasm_v128_store(out + i0, o0);
    wasm_v128_store(out + i0 + 4, o1);
    wasm_v128_store(out + i0 + 8, o2);
    wasm_v128_store(out + i0 + 12, o3);
  }
#endif
  for (uint32_t t = 0; t <= pos; ++t) {
    for (int i = i0; i < hd; ++i) out[i] += att[t] * v[t * v_stride + i];
  }
}

#ifdef __wasm_simd128__
namespace {

// Accumulates acc += a * (8 halves at p as floats) into two vectors, and the
// largest |half| bits into *top (inf/NaN halves have bits >= 0x7C00).
inline void madd_f16x8(v128_t a, const uint16_t* p, v128_t* acc_lo, v128_t* acc_hi, v128_t* top) {
  const v128_t h = wasm_v128_load(p);
  *top = wasm_u16x8_max(*top, wasm_v128_and(h, wasm_i16x8_splat(0x7FFF)));
  v128_t lo, hi;
  simd::fp16x8_to_f32_finite(h, &lo, &hi);
  *acc_lo = wasm_f32x4_add(*acc_lo, wasm_f32x4_mul(a, lo));
  *acc_hi = wasm_f32x4_add(*acc_hi, wasm_f32x4_mul(a, hi));
}

}  // namespace
#endif

// attend() for one query head over an F16 cache read in place: k the head's
// keys (k[i * k_stride_ + t]), v its values (v[t * kv_dim + i]). The same
// sums in the same order, so the same result; false (and nothing usable
// written) if the cache holds an inf or NaN, which attend() then handles.
bool LlamaContext::attend_f16_direct(const uint16_t* k, const uint16_t* v, uint32_t pos, const float* q_head,
                                     float* att, float* out) const {
#ifdef __wasm_simd128__
  const LlamaHParams& h = model_.hparams();
  const int hd = static_cast<int>(h.head_dim);
  const uint64_t kv_dim = uint64_t(h.n_head_kv) * hd;
  const v128_t scale = wasm_f32x4_splat(1.0f / std::sqrt(static_cast<float>(hd)));
  float q[512];
  for (int i = 0; i < hd; ++i) q[i] = fp16_to_fp32(fp32_to_fp16(q_head[i]));
  v128_t top = wasm_i16x8_splat(0);
  uint32_t t = 0;
  for (; t + 16 <= pos + 1; t += 16) {
    v128_t s0 = wasm_f32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (int i = 0; i < hd; ++i) {
      const v128_t qi = wasm_f32x4_splat(q[i]);
      madd_f16x8(qi, k + i * k_stride_ + t, &s0, &s1, &top);
      madd_f16x8(qi, k + i * k_stride_ + t + 8, &s2, &s3, &top);
    }
    wasm_v128_store(att + t, wasm_f32x4_mul(s0, scale));
    wasm_v128_store(att + t + 4, wasm_f32x4_mul(s1, scale));
    wasm_v128_store(att + t + 8, wasm_f32x4_mul(s2, scale));
    wasm_v128_store(att + t + 12, wasm_f32x4_mul(s3, scale));
  }
  for (; t <= pos; t += 8) {  // lanes past pos (cached or padding halves) are computed and ignored
    v128_t s0 = wasm_f32x4_splat(0), s1 = s0;
    for (int i = 0; i < hd; ++i) madd_f16x8(wasm_f32x4_splat(q[i]), k + i * k_stride_ + t, &s0, &s1, &top);
    wasm_v128_store(att + t, wasm_f32x4_mul(s0, scale));
    wasm_v128_store(att + t + 4, wasm_f32x4_mul(s1, scale));
  }
  softmax(att, pos + 1);
  for (uint32_t j = 0; j <= pos; ++j) att[j] = fp16_to_fp32(fp32_to_fp16(att[j]));
  int i0 = 0;
  for (; i0 + 16 <= hd; i0 += 16) {
    v128_t o0 = wasm_f32x4_splat(0), o1 = o0, o2 = o0, o3 = o0;
    for (uint32_t j = 0; j <= pos; ++j) {
      const v128_t a = wasm_f32x4_splat(att[j]);
      madd_f16x8(a, v + j * kv_dim + i0, &o0, &o1, &top);
      madd_f16x8(a, v + j * kv_dim + i0 + 8, &o2, &o3, &top);
    }
    wasm_v128_store(out + i0, o0);
    wasm_v128_store(out + i0 + 4, o1);
    wasm_v128_store(out + i0 + 8, o2);
    wasm_v128_store(out + i0 + 12, o3);
  }
  std::fill(out + i0, out + hd, 0.f);
  for (uint32_t j = 0; j <= pos; ++j)
    for (int i = i0; i < hd; ++i) out[i] += att[j] * fp16_to_fp32(v[j * kv_dim + i]);
  // (Lanes past pos count too: a false alarm only costs the slower path.)
  return !wasm_v128_any_true(wasm_u16x8_ge(top, wasm_i16x8_splat(0x7C00)));
#else
  return false;
#endif
}

}  // namespace wasmlm
