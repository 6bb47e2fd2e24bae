// Q5_K: Q4_K with a 5th bit per weight in qh.
#include <algorithm>
#include <cmath>
#include <cstring>
#include "quant/k_scales.h"
#include "quant/k_tokens.h"
#include "quant/quant_search.h"
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

void dequantize_row_q5_K(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q5_K*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d), min = fp16_to_fp32(x[i].dmin);
    const uint8_t* ql = x[i].qs;
    const uint8_t* qh = x[i].qh;
    uint8_t u1 = 1, u2 = 2;
    for (int is = 0; is < 8; is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
      uint8_t sc, m;
      get_scale_min_k4(is + 0, x[i].scales, &sc, &m);
      const float d1 = d * sc, m1 = min * m;
      get_scale_min_k4(is + 1, x[i].scales, &sc, &m);
      const float d2 = d * sc, m2 = min * m;
      for (int l = 0; l < 32; ++l) *y++ = d1 * ((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
    }
  }
}

void quantize_row_q5_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q5_K*>(dst);
  uint8_t L[QK_K];
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    quantize_k_block(x, 31, -0.5f, 15, y[i].scales, &y[i].d, &y[i].dmin, L);
    uint8_t* qh = y[i].qh;
    uint8_t* ql = y[i].qs;
    std::memset(qh, 0, QK_K / 8);
    uint8_t m1 = 1, m2 = 2;
    for (int j0 = 0; j0 < QK_K; j0 += 64, m1 <<= 2, m2 <<= 2, ql += 32) {
      for (int j = 0; j < 32; ++j) {
        int l1 = L[j0 + j], l2 = L[j0 + j + 32];
        if (l1 > 15) {
          l1 -= 16;
          qh[j] |= m1;
        }
        if (l2 > 15) {
          l2 -= 16;
          qh[j] |= m2;
        }
        ql[j] = static_cast<uint8_t>(l1 | (l2 << 4));
      }
    }
  }
}

float vec_dot_q5_K_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q5_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* ql = x[i].qs;
    const uint8_t* qh = x[i].qh;
    const int8_t* q8 = y[i].qs;
    uint8_t u1 = 1, u2 = 2;
    int isum = 0, summs = 0;
    for (int j = 0; j < 8; j += 2, ql += 32, q8 += 64, u1 <<= 2, u2 <<= 2) {
      uint8_t sc0, m0, sc1, m1;
      get_scale_min_k4(j, x[i].scales, &sc0, &m0);
      get_scale_min_k4(j + 1, x[i].scales, &sc1, &m1);
      int s0 = 0, s1 = 0;
      for (int l = 0; l < 32; ++l) {
        s0 += ((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) * q8[l];
        s1 += ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) * q8[l + 32];
      }
      isum += sc0 * s0 + sc1 * s1;
      summs += m0 * (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]) + m1 * (y[i].bsums[2 * j + 2] + y[i].bsums[2 * j + 3]);
    }
    sum += y[i].d * (fp16_to_fp32(x[i].d) * isum - fp16_to_fp32(x[i].dmin) * summs);
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q5_K_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q5_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t m4 = wasm_i8x16_splat(0x0F), x10 = wasm_i8x16_splat(0x10);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* ql = x[i].qs;
    const v128_t qh0 = wasm_v128_load(x[i].qh), qh1 = wasm_v128_load(x[i].qh + 16);
    const int8_t* q8 = y[i].qs;
    v128_t isum = wasm_i32x4_splat(0);
    int summs = 0;
    for (int j = 0; j < 8; j += 2, ql += 32, q8 += 64) {
      uint8_t sc0, m0, sc1, m1;
      get_scale_min_k4(j, x[i].scales, &sc0, &m0);
      get_scale_min_k4(j + 1, x[i].scales, &sc1, &m1);
      const v128_t u1 = wasm_i8x16_splat(static_cast<int8_t>(1 << j)), u2 = wasm_i8x16_splat(static_cast<int8_t>(2 << j));
      // 0x10 where the 5th bit of the weight is set.
      auto high = [&](v128_t qh, v128_t u) { return wasm_v128_and(wasm_i8x16_eq(wasm_v128_and(qh, u), u), x10); };
      const v128_t v0 = wasm_v128_load(ql), v1 = wasm_v128_load(ql + 16);
      const v128_t s0 = wasm_i32x4_add(
          simd::dot_i8x16(wasm_v128_or(wasm_v128_and(v0, m4), high(qh0, u1)), wasm_v128_load(q8)),
          simd::dot_i8x16(wasm_v128_or(wasm_v128_and(v1, m4), high(qh1, u1)), wasm_v128_load(q8 + 16)));
      const v128_t s1 = wasm_i32x4_add(
          simd::dot_i8x16(wasm_v128_or(simd::high_nibbles(v0), high(qh0, u2)), wasm_v128_load(q8 + 32)),
          simd::dot_i8x16(wasm_v128_or(simd::high_nibbles(v1), high(qh1, u2)), wasm_v128_load(q8 + 48)));
      isum = wasm_i32x4_add(isum, wasm_i32x4_add(wasm_i32x4_mul(s0, wasm_i32x4_splat(sc0)),
                                                 wasm_i32x4_mul(s1, wasm_i32x4_splat(sc1))));
      summs += m0 * (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]) + m1 * (y[i].bsums[2 * j + 2] + y[i].bsums[2 * j + 3]);
    }
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * simd::hsum_i32(isum) - fp16_to_fp32_fast(x[i].dmin) * summs);
  }
  return sum;
}

namespace {

// The 5-bit levels (0..31) of weights 64 j/2 .. 64 j/2 + 63 (sub-blocks j and
// j + 1) in int16 lanes. h: the block's qh bytes widened to int16; byte l of
// qh holds bit j (sub-block j) and bit j + 1 (sub-block j + 1) of weight l
// of the pair.
inline void q5_K_levels(const uint8_t* q4, const v128_t (&h)[4], int j, v128_t (&lo)[4], v128_t (&hi)[4]) {
  const v128_t m4 = wasm_i16x8_splat(0x0F), bit4 = wasm_i16x8_splat(0x10);
  const v128_t v0 = wasm_v128_load(q4), v1 = wasm_v128_load(q4 + 16);
  const v128_t l[4] = {wasm_u16x8_extend_low_u8x16(v0), wasm_u16x8_extend_high_u8x16(v0),
                       wasm_u16x8_extend_low_u8x16(v1), wasm_u16x8_extend_high_u8x16(v1)};
  for (int k = 0; k < 4; ++k) {
    const v128_t hj = wasm_u16x8_shr(h[k], j);  // this pair's bits at 0 and 1
    lo[k] = wasm_v128_or(wasm_v128_and(l[k], m4), wasm_v128_and(wasm_i16x8_shl(hj, 4), bit4));
    hi[k] = wasm_v128_or(wasm_u16x8_shr(l[k], 4), wasm_v128_and(wasm_i16x8_shl(hj, 3), bit4));
  }
}

inline void q5_K_high_bits(const block_q5_K& b, v128_t (&h)[4]) {
  const v128_t h0 = wasm_v128_load(b.qh), h1 = wasm_v128_load(b.qh + 16);
  h[0] = wasm_u16x8_extend_low_u8x16(h0);
  h[1] = wasm_u16x8_extend_high_u8x16(h0);
  h[2] = wasm_u16x8_extend_low_u8x16(h1);
  h[3] = wasm_u16x8_extend_high_u8x16(h1);
}

// One token: the 8 sub-blocks' dots reduced to one lane each (hsum4) and
// scaled by 4 lanes at once.
float q5_K_one_token(int64_t nb, const block_q5_K* x, const block_q8_Kw* y) {
  float sum = 0;
  for (int64_t i = 0; i < nb; ++i) {
    const v128_t scales_mins = unpack_k_scales_simd(x[i].scales);
    v128_t h[4];
    q5_K_high_bits(x[i], h);
    v128_t sub[8];
    const uint8_t* q4 = x[i].qs;
    for (int j = 0; j < 8; j += 2, q4 += 32) {
      v128_t lo[4], hi[4];
      q5_K_levels(q4, h, j, lo, hi);
      const int16_t* q8 = y[i].qs + 32 * j;
      sub[j] = simd::dot_i16x32(lo[0], lo[1], lo[2], lo[3], q8);
      sub[j + 1] = simd::dot_i16x32(hi[0], hi[1], hi[2], hi[3], q8 + 32);
    }
    const v128_t sc = wasm_u16x8_extend_low_u8x16(scales_mins);
    const v128_t isum =
        wasm_i32x4_add(wasm_i32x4_mul(simd::hsum4_i32(sub[0], sub[1], sub[2], sub[3]), wasm_u32x4_extend_low_u16x8(sc)),
                       wasm_i32x4_mul(simd::hsum4_i32(sub[4], sub[5], sub[6], sub[7]), wasm_u32x4_extend_high_u16x8(sc)));
    const v128_t mins = wasm_u16x8_extend_high_u8x16(scales_mins);
    const int summs = simd::hsum_i32(wasm_i32x4_dot_i16x8(mins, wasm_v128_load(y[i].gsums)));
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * simd::hsum_i32(isum) - fp16_to_fp32_fast(x[i].dmin) * summs);
  }
  return sum;
}

// Several tokens: the levels scaled in int16 once (31 * 63 fits) and dotted
// with every token (k_tokens.h); the float arithmetic is one token's.
void q5_K_tokens(int64_t nb, const block_q5_K* x, const uint8_t* a, int64_t act_stride, int n_tokens, float* out,
                 int64_t out_stride) {
  float sum[kMaxWideTokens];
  v128_t isum[kMaxWideTokens];
  simd::zero_fill(sum, n_tokens);
  auto row = [&](int t) { return reinterpret_cast<const block_q8_Kw*>(a + t * act_stride); };
  for (int64_t i = 0; i < nb; ++i) {
    const v128_t scales_mins = unpack_k_scales_simd(x[i].scales);
    alignas(16) uint8_t sm[16];
    wasm_v128_store(sm, scales_mins);
    v128_t h[4];
    q5_K_high_bits(x[i], h);
    const uint8_t* q4 = x[i].qs;
    for (int j = 0; j < 8; j += 2, q4 += 32) {
      v128_t lo[4], hi[4];
      q5_K_levels(q4, h, j, lo, hi);
      const v128_t sc_lo = wasm_i16x8_splat(sm[j]), sc_hi = wasm_i16x8_splat(sm[j + 1]);
      v128_t w[8];
      for (int k = 0; k < 4; ++k) {
        w[k] = wasm_i16x8_mul(lo[k], sc_lo);
        w[4 + k] = wasm_i16x8_mul(hi[k], sc_hi);
      }
      simd::dot64_tokens<16, 32, 48>(w, row(0)[i].qs + 32 * j, act_stride, n_tokens, j == 0, isum);
    }
    const v128_t mins = wasm_u16x8_extend_high_u8x16(scales_mins);
    const float d = fp16_to_fp32_fast(x[i].d), dmin = fp16_to_fp32_fast(x[i].dmin);
    simd::for_tokens(n_tokens, a + i * sizeof(block_q8_Kw), act_stride, [&](int t, const uint8_t* r) {
      const auto& y = *reinterpret_cast<const block_q8_Kw*>(r);
      const int summs = simd::hsum_i32(wasm_i32x4_dot_i16x8(mins, wasm_v128_load(y.gsums)));
      sum[t] += y.d * (d * simd::hsum_i32(isum[t]) - dmin * summs);
    });
  }
  for (int t = 0; t < n_tokens; ++t) out[t * out_stride] = sum[t];
}

}  // namespace

void vec_dot_q5_K_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q5_K*>(w);
  if (n_tokens == 1)
    out[0] = q5_K_one_token(n / QK_K, x, static_cast<const block_q8_Kw*>(a));
  else
    q5_K_tokens(n / QK_K, x, static_cast<const uint8_t*>(a), act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
