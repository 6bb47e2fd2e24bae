// Q4_K: 256 weights in 8 groups of 32; 4-bit q, 6-bit scale and min per group.
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

void dequantize_row_q4_K(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q4_K*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d), min = fp16_to_fp32(x[i].dmin);
    const uint8_t* q = x[i].qs;
    for (int is = 0; is < 8; is += 2, q += 32) {
      uint8_t sc, m;
      get_scale_min_k4(is + 0, x[i].scales, &sc, &m);
      const float d1 = d * sc, m1 = min * m;
      get_scale_min_k4(is + 1, x[i].scales, &sc, &m);
      const float d2 = d * sc, m2 = min * m;
      for (int l = 0; l < 32; ++l) *y++ = d1 * (q[l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * (q[l] >> 4) - m2;
    }
  }
}

void quantize_row_q4_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q4_K*>(dst);
  uint8_t L[QK_K];
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    quantize_k_block(x, 15, -1.f, 20, y[i].scales, &y[i].d, &y[i].dmin, L);
    uint8_t* q = y[i].qs;
    for (int j = 0; j < QK_K; j += 64, q += 32)
      for (int l = 0; l < 32; ++l) q[l] = L[j + l] | (L[j + l + 32] << 4);
  }
}

float vec_dot_q4_K_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q4_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* q4 = x[i].qs;
    const int8_t* q8 = y[i].qs;
    int isum = 0, summs = 0;
    for (int j = 0; j < 8; j += 2, q4 += 32, q8 += 64) {
      uint8_t sc0, m0, sc1, m1;
      get_scale_min_k4(j, x[i].scales, &sc0, &m0);
      get_scale_min_k4(j + 1, x[i].scales, &sc1, &m1);
      int s0 = 0, s1 = 0;
      for (int l = 0; l < 32; ++l) {
        s0 += (q4[l] & 0xF) * q8[l];
        s1 += (q4[l] >> 4) * q8[l + 32];
      }
      isum += sc0 * s0 + sc1 * s1;
      summs += m0 * (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]) + m1 * (y[i].bsums[2 * j + 2] + y[i].bsums[2 * j + 3]);
    }
    sum += y[i].d * (fp16_to_fp32(x[i].d) * isum - fp16_to_fp32(x[i].dmin) * summs);
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q4_K_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q4_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* q4 = x[i].qs;
    const int8_t* q8 = y[i].qs;
    v128_t isum = wasm_i32x4_splat(0);
    int summs = 0;
    for (int j = 0; j < 8; j += 2, q4 += 32, q8 += 64) {
      uint8_t sc0, m0, sc1, m1;
      get_scale_min_k4(j, x[i].scales, &sc0, &m0);
      get_scale_min_k4(j + 1, x[i].scales, &sc1, &m1);
      const v128_t v0 = wasm_v128_load(q4), v1 = wasm_v128_load(q4 + 16);
      const v128_t s0 = wasm_i32x4_add(simd::dot_i8x16(wasm_v128_and(v0, m4), wasm_v128_load(q8)),
                                       simd::dot_i8x16(wasm_v128_and(v1, m4), wasm_v128_load(q8 + 16)));
      const v128_t s1 = wasm_i32x4_add(simd::dot_i8x16(simd::high_nibbles(v0), wasm_v128_load(q8 + 32)),
                                       simd::dot_i8x16(simd::high_nibbles(v1), wasm_v128_load(q8 + 48)));
      isum = wasm_i32x4_add(isum, wasm_i32x4_add(wasm_i32x4_mul(s0, wasm_i32x4_splat(sc0)),
                                                 wasm_i32x4_mul(s1, wasm_i32x4_splat(sc1))));
      summs += m0 * (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]) + m1 * (y[i].bsums[2 * j + 2] + y[i].bsums[2 * j + 3]);
    }
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * simd::hsum_i32(isum) - fp16_to_fp32_fast(x[i].dmin) * summs);
  }
  return sum;
}


namespace {

// One token: the 8 sub-blocks' dots reduced to one lane each (hsum4) and
// scaled by 4 lanes at once.
float q4_K_one_token(int64_t nb, const block_q4_K* x, const block_q8_Kw* y) {
  const v128_t m4 = wasm_i16x8_splat(0x0F);
  float sum = 0;
  for (int64_t i = 0; i < nb; ++i) {
    const v128_t scales_mins = unpack_k_scales_simd(x[i].scales);
    const v128_t mins = wasm_u16x8_extend_high_u8x16(scales_mins);
    const uint8_t* q4 = x[i].qs;
    v128_t sub[8];
    for (int j = 0; j < 8; j += 2, q4 += 32) {
      const v128_t v0 = wasm_v128_load(q4), v1 = wasm_v128_load(q4 + 16);
      const v128_t l0 = wasm_u16x8_extend_low_u8x16(v0), l1 = wasm_u16x8_extend_high_u8x16(v0);
      const v128_t l2 = wasm_u16x8_extend_low_u8x16(v1), l3 = wasm_u16x8_extend_high_u8x16(v1);
      const int16_t* q8 = y[i].qs + 32 * j;
      sub[j] = simd::dot_i16x32(wasm_v128_and(l0, m4), wasm_v128_and(l1, m4), wasm_v128_and(l2, m4),
                                wasm_v128_and(l3, m4), q8);
      sub[j + 1] = simd::dot_i16x32(wasm_u16x8_shr(l0, 4), wasm_u16x8_shr(l1, 4), wasm_u16x8_shr(l2, 4),
                                    wasm_u16x8_shr(l3, 4), q8 + 32);
    }
    const v128_t sc = wasm_u16x8_extend_low_u8x16(scales_mins);
    const v128_t isum =
        wasm_i32x4_add(wasm_i32x4_mul(simd::hsum4_i32(sub[0], sub[1], sub[2], sub[3]), wasm_u32x4_extend_low_u16x8(sc)),
                       wasm_i32x4_mul(simd::hsum4_i32(sub[4], sub[5], sub[6], sub[7]), wasm_u32x4_extend_high_u16x8(sc)));
    const int summs = simd::hsum_i32(wasm_i32x4_dot_i16x8(mins, wasm_v128_load(y[i].gsums)));
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * simd::hsum_i32(isum) - fp16_to_fp32_fast(x[i].dmin) * summs);
  }
  return sum;
}

// Several tokens: per pair of sub-blocks, the 64 weights are unpacked and
// multiplied by their sub-block's scale in int16 once (15 * 63 fits), then
// dotted with every token, summing into one int32 vector per token and
// super-block (k_tokens.h); the float arithmetic is one token's (the same
// bits).
void q4_K_tokens(int64_t nb, const block_q4_K* x, const uint8_t* a, int64_t act_stride, int n_tokens, float* out,
                 int64_t out_stride) {
  const v128_t m4 = wasm_i16x8_splat(0x0F);
  float sum[kMaxWideTokens];
  v128_t isum[kMaxWideTokens];
  simd::zero_fill(sum, n_tokens);
  auto row = [&](int t) { return reinterpret_cast<const block_q8_Kw*>(a + t * act_stride); };
  for (int64_t i = 0; i < nb; ++i) {
    const v128_t scales_mins = unpack_k_scales_simd(x[i].scales);
    alignas(16) uint8_t sm[16];
    wasm_v128_store(sm, scales_mins);
    const uint8_t* q4 = x[i].qs;
    for (int j = 0; j < 8; j += 2, q4 += 32) {
      const v128_t v0 = wasm_v128_load(q4), v1 = wasm_v128_load(q4 + 16);
      const v128_t l[4] = {wasm_u16x8_extend_low_u8x16(v0), wasm_u16x8_extend_high_u8x16(v0),
                           wasm_u16x8_extend_low_u8x16(v1), wasm_u16x8_extend_high_u8x16(v1)};
      const v128_t sc_lo = wasm_i16x8_splat(sm[j]), sc_hi = wasm_i16x8_splat(sm[j + 1]);
      v128_t w[8];
      for (int k = 0; k < 4; ++k) {
        w[k] = wasm_i16x8_mul(wasm_v128_and(l[k], m4), sc_lo);
        w[4 + k] = wasm_i16x8_mul(wasm_u16x8_shr(l[k], 4), sc_hi);
      }
      simd::dot64_tokens<16, 32, 48>(w, row(0)[i].qs + 32 * j, act_stride, n_tokens, j == 0, isum);
    }
    // The reference's float arithmetic on the same integer sums: the same bits.
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

void vec_dot_q4_K_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q4_K*>(w);
  if (n_tokens == 1)
    out[0] = q4_K_one_token(n / QK_K, x, static_cast<const block_q8_Kw*>(a));
  else
    q4_K_tokens(n / QK_K, x, static_cast<const uint8_t*>(a), act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
