// Attention of a DecoderContext: softmax(scale * softcap(q k)) v over the
// cached positions each query sees (all earlier ones, or the last n_swa in
// a windowed layer), F32 or F16 cache, scalar or SIMD.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compute/ops.h"
#include "core/error.h"
#include "model/decoder_context.h"
#include "quant/fp16.h"
#include "quant/simd128.h"

namespace wasmlm {

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
  (void)use_simd;
  for (uint64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32_fast(src[i]);
#endif
}

// The slots holding positions [lo, lo + n) of a layer: one run, or two when
// a ring wraps around.
struct SlotRuns {
  uint32_t first[2], count[2];
  int n;
};

SlotRuns slot_runs(const KvCache& kv, uint32_t l, uint32_t lo, uint32_t n) {
  const uint32_t s = kv.slot(l, lo), cap = kv.capacity(l);
  if (s + n <= cap) return {{s, 0}, {n, 0}, 1};
  return {{s, 0}, {cap - s, n - (cap - s)}, 2};
}

}  // namespace

// Attention for every (token, query head) of the batch into xb2_, causally
// and within each layer's window. One task per key/value head (spread over
// the thread pool), which serves its group of query heads for every token
// of the batch. The keys and values the batch sees are read in place when
// they are f32 and contiguous, else converted (F16) or gathered (a ring that
// wraps) into per-thread rows in position order.
void DecoderContext::attention(uint32_t l, uint32_t pos0, int n) {
  const DecoderHParams& h = hp_;
  const uint64_t hd = h.head_dim, q_dim = h.q_dim(), kv_dim = h.kv_dim();
  const uint32_t group = h.n_head / h.n_head_kv;  // query heads per key/value head
  const bool windowed = h.layers[l].windowed;
  // The positions the batch sees: [lo, pos0 + n).
  auto first_seen = [&](uint32_t pos) { return windowed && pos + 1 > h.n_swa ? pos + 1 - h.n_swa : 0u; };
  const uint32_t lo = first_seen(pos0), span = pos0 + n - lo;
  const SlotRuns runs = slot_runs(kv_, l, lo, span);
  const bool f16 = kv_.type() == KvCacheType::F16;
  const bool use_simd = kernels_ == KernelChoice::Best;
  pool_.parallel_for(static_cast<int>(h.n_head_kv), [&](int kvh, int thread) {
    float* att = &att_[uint64_t(thread) * att_stride_];
    // Decoding with a key/value head per query head: each cached value is
    // read once, so it is converted as it is read.
    if (f16 && use_simd && n == 1 && group == 1 && runs.n == 1 &&
        attend_f16_direct(kv_.k16(l, kvh, 0) + runs.first[0], kv_.k_stride(l),
                          kv_.v16(l) + uint64_t(runs.first[0]) * kv_dim + kvh * hd, span, &q_[kvh * hd], att,
                          &xb2_[kvh * hd]))
      return;
    const float *k, *v;
    uint64_t k_stride, v_stride;
    if (f16 || runs.n == 2) {
      // Rows only as long as needed (n_ctx-long rows would put all of them in
      // the same cache sets), + 8 against 4K aliasing.
      k_stride = (uint64_t(span) + 7) / 8 * 8 + 8;
      float* kf = &kv_f32_[uint64_t(thread) * kv_f32_stride_];
      float* vf = kf + hd * k_stride;
      uint64_t at = 0;  // positions gathered so far; a run's SIMD tail is overwritten by the next run
      for (int r = 0; r < runs.n; ++r) {
        const uint32_t s = runs.first[r], c = runs.count[r];
        for (uint64_t i = 0; i < hd; ++i) {
          if (f16) f16_to_f32_row(kv_.k16(l, kvh, i) + s, kf + i * k_stride + at, c, use_simd);
          else std::memcpy(kf + i * k_stride + at, kv_.k32(l, kvh, i) + s, c * sizeof(float));
        }
        for (uint64_t j = 0; j < c; ++j) {
          const uint64_t row = uint64_t(s + j) * kv_dim + kvh * hd;
          if (f16) f16_to_f32_row(kv_.v16(l) + row, vf + (at + j) * hd, hd, use_simd);
          else std::memcpy(vf + (at + j) * hd, kv_.v32(l) + row, hd * sizeof(float));
        }
        at += c;
      }
      k = kf, v = vf, v_stride = hd;
    } else {
      k = kv_.k32(l, kvh, 0) + runs.first[0], k_stride = kv_.k_stride(l);
      v = kv_.v32(l) + uint64_t(runs.first[0]) * kv_dim + kvh * hd, v_stride = kv_dim;
    }
    for (uint32_t head = kvh * group; head < (kvh + 1) * group; ++head)
      for (int t = 0; t < n; ++t) {
        const uint32_t pos = pos0 + t, first = first_seen(pos) - lo;
        attend(k + first, k_stride, v + first * v_stride, v_stride, pos + 1 - first_seen(pos),
               &q_[t * q_dim + head * hd], att, &xb2_[t * q_dim + head * hd]);
      }
  });
}

// The query-key products in att[0, n_keys) made scores: soft-capped where the
// architecture caps them, then scaled, as llama.cpp's soft_max_ext does.
void DecoderContext::finish_scores(float* att, uint32_t n_keys) const {
  if (hp_.attn_softcap == 0.0f) return;
  for (uint32_t j = 0; j < n_keys; ++j) att[j] = softcap(att[j], hp_.attn_softcap) * kq_scale_;
}

// One query head against n_keys cached positions: k the keys transposed
// (k[i * k_stride + j]), v the values (v[j * v_stride + i]), both f32.
void DecoderContext::attend(const float* k, uint64_t k_stride, const float* v, uint64_t v_stride, uint32_t n_keys,
                            const float* q_head, float* att, float* out) const {
  const int hd = static_cast<int>(hp_.head_dim);
  // With soft-capping the products are scaled after the cap (finish_scores).
  const float att_scale = hp_.attn_softcap != 0.0f ? 1.0f : kq_scale_;
  const bool f16 = kv_.type() == KvCacheType::F16;
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
  for (; t + 16 <= n_keys; t += 16) {
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
  for (; t < n_keys; t += 4) {  // lanes past n_keys are computed and ignored
    v128_t s = wasm_f32x4_splat(0);
    for (int i = 0; i < hd; ++i)
      s = wasm_f32x4_add(s, wasm_f32x4_mul(wasm_f32x4_splat(q[i]), wasm_v128_load(k + i * k_stride + t)));
    wasm_v128_store(att + t, wasm_f32x4_mul(s, scale));
  }
  } else
#endif
  for (uint32_t t = 0; t < n_keys; ++t) {
    float score = 0;
    for (int i = 0; i < hd; ++i) score += q[i] * k[i * k_stride + t];
    att[t] = score * att_scale;
  }
  finish_scores(att, n_keys);
  softmax(att, n_keys);
  if (f16)
    for (uint32_t t = 0; t < n_keys; ++t) att[t] = r16(att[t]);
  std::fill(out, out + hd, 0.f);
  int i0 = 0;
#ifdef __wasm_simd128__
  // out[i] += a * v[t][i] over t in order, 16 then 4 lanes of i at a time.
  for (; use_simd && i0 + 16 <= hd; i0 += 16) {
    v128_t o0 = wasm_f32x4_splat(0), o1 = o0, o2 = o0, o3 = o0;
    for (uint32_t t = 0; t < n_keys; ++t) {
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
  for (uint32_t t = 0; t < n_keys; ++t) {
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
// keys (k[i * k_stride + j]), v its values (v[j * kv_dim + i]). The same
// sums in the same order, so the same result; false (and nothing usable
// written) if the cache holds an inf or NaN, which attend() then handles.
bool DecoderContext::attend_f16_direct(const uint16_t* k, uint64_t k_stride, const uint16_t* v, uint32_t n_keys,
                                       const float* q_head, float* att, float* out) const {
#ifdef __wasm_simd128__
  const int hd = static_cast<int>(hp_.head_dim);
  const uint64_t kv_dim = hp_.kv_dim();
  const v128_t scale = wasm_f32x4_splat(hp_.attn_softcap != 0.0f ? 1.0f : kq_scale_);
  float q[512];
  for (int i = 0; i < hd; ++i) q[i] = fp16_to_fp32(fp32_to_fp16(q_head[i]));
  v128_t top = wasm_i16x8_splat(0);
  uint32_t t = 0;
  for (; t + 16 <= n_keys; t += 16) {
    v128_t s0 = wasm_f32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (int i = 0; i < hd; ++i) {
      const v128_t qi = wasm_f32x4_splat(q[i]);
      madd_f16x8(qi, k + i * k_stride + t, &s0, &s1, &top);
      madd_f16x8(qi, k + i * k_stride + t + 8, &s2, &s3, &top);
    }
    wasm_v128_store(att + t, wasm_f32x4_mul(s0, scale));
    wasm_v128_store(att + t + 4, wasm_f32x4_mul(s1, scale));
    wasm_v128_store(att + t + 8, wasm_f32x4_mul(s2, scale));
    wasm_v128_store(att + t + 12, wasm_f32x4_mul(s3, scale));
  }
  for (; t < n_keys; t += 8) {  // lanes past n_keys (cached or padding halves) are computed and ignored
    v128_t s0 = wasm_f32x4_splat(0), s1 = s0;
    for (int i = 0; i < hd; ++i) madd_f16x8(wasm_f32x4_splat(q[i]), k + i * k_stride + t, &s0, &s1, &top);
    wasm_v128_store(att + t, wasm_f32x4_mul(s0, scale));
    wasm_v128_store(att + t + 4, wasm_f32x4_mul(s1, scale));
  }
  finish_scores(att, n_keys);
  softmax(att, n_keys);
  for (uint32_t j = 0; j < n_keys; ++j) att[j] = fp16_to_fp32(fp32_to_fp16(att[j]));
  int i0 = 0;
  for (; i0 + 16 <= hd; i0 += 16) {
    v128_t o0 = wasm_f32x4_splat(0), o1 = o0, o2 = o0, o3 = o0;
    for (uint32_t j = 0; j < n_keys; ++j) {
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
  for (uint32_t j = 0; j < n_keys; ++j)
    for (int i = i0; i < hd; ++i) out[i] += att[j] * fp16_to_fp32(v[j * kv_dim + i]);
  // (Lanes past n_keys count too: a false alarm only costs the slower path.)
  return !wasm_v128_any_true(wasm_u16x8_ge(top, wasm_i16x8_splat(0x7C00)));
#else
  (void)k, (void)k_stride, (void)v, (void)n_keys, (void)q_head, (void)att, (void)out;
  return false;
#endif
}

}  // namespace wasmlm
