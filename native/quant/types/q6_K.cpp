// Q6_K: 256 weights in 16 groups of 16; 6-bit q (4 low bits in ql, 2 high in
// qh), int8 scale per group; w = d * scale * (q - 32).
#include <algorithm>
#include <cmath>
#include <cstring>
#include "quant/quant_search.h"
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/k_tokens.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

void dequantize_row_q6_K(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q6_K*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    const uint8_t* ql = x[i].ql;
    const uint8_t* qh = x[i].qh;
    const int8_t* sc = x[i].scales;
    for (int half = 0; half < QK_K; half += 128, y += 128, ql += 64, qh += 32, sc += 8) {
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int q1 = static_cast<int8_t>((ql[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = static_cast<int8_t>((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = static_cast<int8_t>((ql[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = static_cast<int8_t>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l + 0] = d * sc[is + 0] * q1;
        y[l + 32] = d * sc[is + 2] * q2;
        y[l + 64] = d * sc[is + 4] * q3;
        y[l + 96] = d * sc[is + 6] * q4;
      }
    }
  }
}

void quantize_row_q6_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q6_K*>(dst);
  int8_t L[QK_K];
  float scales[QK_K / 16];
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    float max_scale = 0, max_abs_scale = 0;
    for (int ib = 0; ib < QK_K / 16; ++ib) {
      const float scale = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib, 1, nullptr);
      scales[ib] = scale;
      if (std::fabs(scale) > max_abs_scale) {
        max_abs_scale = std::fabs(scale);
        max_scale = scale;
      }
    }
    if (max_abs_scale < kGroupMaxEps) {
      std::memset(&y[i], 0, sizeof y[i]);
      continue;
    }
    const float iscale = -128.f / max_scale;
    y[i].d = fp32_to_fp16(1 / iscale);
    for (int ib = 0; ib < QK_K / 16; ++ib)
      y[i].scales[ib] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[ib])));
    for (int j = 0; j < QK_K / 16; ++j) {
      const float d = fp16_to_fp32(y[i].d) * y[i].scales[j];
      if (!d) continue;
      for (int ii = 0; ii < 16; ++ii) {
        int l = nearest_int(x[16 * j + ii] / d);
        L[16 * j + ii] = static_cast<int8_t>(std::max(-32, std::min(31, l)) + 32);
      }
    }
    uint8_t* ql = y[i].ql;
    uint8_t* qh = y[i].qh;
    for (int j = 0; j < QK_K; j += 128, ql += 64, qh += 32) {
      for (int l = 0; l < 32; ++l) {
        const uint8_t q1 = L[j + l + 0] & 0xF, q2 = L[j + l + 32] & 0xF;
        const uint8_t q3 = L[j + l + 64] & 0xF, q4 = L[j + l + 96] & 0xF;
        ql[l + 0] = q1 | (q3 << 4);
        ql[l + 32] = q2 | (q4 << 4);
        qh[l] = (L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4) | ((L[j + l + 96] >> 4) << 6);
      }
    }
  }
}

float vec_dot_q6_K_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q6_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* ql = x[i].ql;
    const uint8_t* qh = x[i].qh;
    const int8_t* sc = x[i].scales;
    const int8_t* q8 = y[i].qs;
    int isum = 0;
    for (int half = 0; half < QK_K; half += 128, ql += 64, qh += 32, sc += 8, q8 += 128) {
      int s[8] = {};
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        s[is + 0] += (((ql[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32) * q8[l + 0];
        s[is + 2] += (((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32) * q8[l + 32];
        s[is + 4] += (((ql[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32) * q8[l + 64];
        s[is + 6] += (((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32) * q8[l + 96];
      }
      for (int k = 0; k < 8; ++k) isum += sc[k] * s[k];
    }
    sum += fp16_to_fp32(x[i].d) * y[i].d * isum;
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q6_K_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q6_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t m4 = wasm_i8x16_splat(0x0F), m3 = wasm_i8x16_splat(3), s32 = wasm_i8x16_splat(32);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* ql = x[i].ql;
    const uint8_t* qh = x[i].qh;
    const int8_t* sc = x[i].scales;
    const int8_t* q8 = y[i].qs;
    v128_t isum = wasm_i32x4_splat(0);
    for (int half = 0; half < QK_K; half += 128, ql += 64, qh += 32, sc += 8, q8 += 128) {
      for (int l = 0; l < 32; l += 16) {
        const int is = l / 16;
        const v128_t a0 = wasm_v128_load(ql + l), a1 = wasm_v128_load(ql + l + 32), h = wasm_v128_load(qh + l);
        const v128_t q1 = wasm_i8x16_sub(wasm_v128_or(wasm_v128_and(a0, m4), wasm_i8x16_shl(wasm_v128_and(h, m3), 4)), s32);
        const v128_t q2 = wasm_i8x16_sub(
            wasm_v128_or(wasm_v128_and(a1, m4), wasm_i8x16_shl(wasm_v128_and(wasm_u16x8_shr(h, 2), m3), 4)), s32);
        const v128_t q3 = wasm_i8x16_sub(
            wasm_v128_or(simd::high_nibbles(a0), wasm_i8x16_shl(wasm_v128_and(simd::high_nibbles(h), m3), 4)), s32);
        const v128_t q4 = wasm_i8x16_sub(wasm_v128_or(simd::high_nibbles(a1), wasm_i8x16_shl(wasm_u8x16_shr(h, 6), 4)), s32);
        v128_t t = wasm_i32x4_mul(simd::dot_i8x16(q1, q8 + l), wasm_i32x4_splat(sc[is + 0]));
        t = wasm_i32x4_add(t, wasm_i32x4_mul(simd::dot_i8x16(q2, q8 + l + 32), wasm_i32x4_splat(sc[is + 2])));
        t = wasm_i32x4_add(t, wasm_i32x4_mul(simd::dot_i8x16(q3, q8 + l + 64), wasm_i32x4_splat(sc[is + 4])));
        t = wasm_i32x4_add(t, wasm_i32x4_mul(simd::dot_i8x16(q4, q8 + l + 96), wasm_i32x4_splat(sc[is + 6])));
        isum = wasm_i32x4_add(isum, t);
      }
    }
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * simd::hsum_i32(isum);
  }
  return sum;
}

namespace {

// The 6-bit levels (0..63, unsigned) of 64 weights of the half at ql/qh:
// q[k][0..1] are weights l..l+15 of quarter k (elements half + l + 32 k).
inline void q6_K_levels(const uint8_t* ql, const uint8_t* qh, int l, v128_t (&q)[4][2]) {
  const v128_t m4 = wasm_i16x8_splat(0x0F), m3 = wasm_i16x8_splat(3);
  const v128_t a0 = wasm_v128_load(ql + l), a1 = wasm_v128_load(ql + l + 32), h = wasm_v128_load(qh + l);
  for (int k = 0; k < 2; ++k) {
    const v128_t x0 = k ? wasm_u16x8_extend_high_u8x16(a0) : wasm_u16x8_extend_low_u8x16(a0);
    const v128_t x1 = k ? wasm_u16x8_extend_high_u8x16(a1) : wasm_u16x8_extend_low_u8x16(a1);
    const v128_t hk = k ? wasm_u16x8_extend_high_u8x16(h) : wasm_u16x8_extend_low_u8x16(h);
    q[0][k] = wasm_v128_or(wasm_v128_and(x0, m4), wasm_i16x8_shl(wasm_v128_and(hk, m3), 4));
    q[1][k] = wasm_v128_or(wasm_v128_and(x1, m4), wasm_i16x8_shl(wasm_v128_and(wasm_u16x8_shr(hk, 2), m3), 4));
    q[2][k] = wasm_v128_or(wasm_u16x8_shr(x0, 4), wasm_i16x8_shl(wasm_v128_and(wasm_u16x8_shr(hk, 4), m3), 4));
    q[3][k] = wasm_v128_or(wasm_u16x8_shr(x1, 4), wasm_i16x8_shl(wasm_u16x8_shr(hk, 6), 4));
  }
}

// The -32 offset of every weight, once per block: the 16 scales in element
// order match the 16 bsums; 32 * sum(scale * bsum), 4 lanes.
inline v128_t q6_K_offset(const block_q6_K& b, const block_q8_Kw& y) {
  const v128_t s8 = wasm_v128_load(b.scales);
  const v128_t off = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(s8), wasm_v128_load(y.bsums)),
                                    wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(s8), wasm_v128_load(y.bsums + 8)));
  return wasm_i32x4_shl(off, 5);
}

// One token: the 16 sub-blocks' dots reduced to one lane each and scaled 4
// lanes at once (simd::scale_sub_dots16).
float q6_K_one_token(int64_t nb, const block_q6_K* x, const block_q8_Kw* y) {
  float sum = 0;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* ql = x[i].ql;
    const uint8_t* qh = x[i].qh;
    v128_t sub[16];  // in scale order: sub-block 8 * (half / 128) + l / 16 + 2 k
    for (int half = 0; half < QK_K; half += 128, ql += 64, qh += 32)
      for (int l = 0; l < 32; l += 16) {
        v128_t q[4][2];
        q6_K_levels(ql, qh, l, q);
        for (int k = 0; k < 4; ++k) {
          const int16_t* q8 = y[i].qs + half + l + 32 * k;
          sub[half / 16 + l / 16 + 2 * k] = wasm_i32x4_add(wasm_i32x4_dot_i16x8(q[k][0], wasm_v128_load(q8)),
                                                             wasm_i32x4_dot_i16x8(q[k][1], wasm_v128_load(q8 + 8)));
        }
      }
    const v128_t s8 = wasm_v128_load(x[i].scales);
    const v128_t isum = simd::scale_sub_dots16(sub, wasm_i16x8_extend_low_i8x16(s8), wasm_i16x8_extend_high_i8x16(s8));
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * simd::hsum_i32(wasm_i32x4_sub(isum, q6_K_offset(x[i], y[i])));
  }
  return sum;
}

// Several tokens: the levels scaled in int16 once (63 * 128 fits) and dotted
// with every token (k_tokens.h); the float arithmetic is one token's.
void q6_K_tokens(int64_t nb, const block_q6_K* x, const uint8_t* a, int64_t act_stride, int n_tokens, float* out,
                 int64_t out_stride) {
  float sum[kMaxWideTokens];
  v128_t isum[kMaxWideTokens];
  simd::zero_fill(sum, n_tokens);
  auto row = [&](int t) { return reinterpret_cast<const block_q8_Kw*>(a + t * act_stride); };
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* ql = x[i].ql;
    const uint8_t* qh = x[i].qh;
    const int8_t* sc = x[i].scales;
    for (int half = 0; half < QK_K; half += 128, ql += 64, qh += 32, sc += 8)
      for (int l = 0; l < 32; l += 16) {
        v128_t q[4][2];
        q6_K_levels(ql, qh, l, q);
        v128_t w[8];
        for (int k = 0; k < 4; ++k) {
          const v128_t s = wasm_i16x8_splat(sc[l / 16 + 2 * k]);
          w[2 * k] = wasm_i16x8_mul(q[k][0], s);
          w[2 * k + 1] = wasm_i16x8_mul(q[k][1], s);
        }
        simd::dot64_tokens<32, 64, 96>(w, row(0)[i].qs + half + l, act_stride, n_tokens, half == 0 && l == 0, isum);
      }
    const float d = fp16_to_fp32_fast(x[i].d);
    simd::for_tokens(n_tokens, a + i * sizeof(block_q8_Kw), act_stride, [&](int t, const uint8_t* r) {
      const auto& y = *reinterpret_cast<const block_q8_Kw*>(r);
      sum[t] += d * y.d * simd::hsum_i32(wasm_i32x4_sub(isum[t], q6_K_offset(x[i], y)));
    });
  }
  for (int t = 0; t < n_tokens; ++t) out[t * out_stride] = sum[t];
}

}  // namespace

// Weights stay unsigned (0..63) in int16 lanes; the -32 offset is applied
// once per block through the activations' 16-element sums.
void vec_dot_q6_K_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q6_K*>(w);
  if (n_tokens == 1)
    out[0] = q6_K_one_token(n / QK_K, x, static_cast<const block_q8_Kw*>(a));
  else
    q6_K_tokens(n / QK_K, x, static_cast<const uint8_t*>(a), act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
