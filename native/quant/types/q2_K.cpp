// Q2_K: 256 weights in 16 groups of 16; 2-bit q, 4-bit scale and min per group.
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

void dequantize_row_q2_K(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q2_K*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d), min = fp16_to_fp32(x[i].dmin);
    const uint8_t* q = x[i].qs;
    int is = 0;
    for (int half = 0; half < QK_K; half += 128) {
      for (int shift = 0; shift < 8; shift += 2) {
        for (int k = 0; k < 2; ++k) {
          const uint8_t sc = x[i].scales[is++];
          const float dl = d * (sc & 0xF), ml = min * (sc >> 4);
          for (int l = 0; l < 16; ++l) *y++ = dl * ((q[l + 16 * k] >> shift) & 3) - ml;
        }
      }
      q += 32;
    }
  }
}

float vec_dot_q2_K_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q2_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    // The mins times the activations' per-16 sums, then the scaled levels.
    int summs = 0;
    for (int j = 0; j < 16; ++j) summs += y[i].bsums[j] * (x[i].scales[j] >> 4);
    const uint8_t* q2 = x[i].qs;
    const int8_t* q8 = y[i].qs;
    int isum = 0, is = 0;
    for (int half = 0; half < QK_K; half += 128, q2 += 32)
      for (int shift = 0; shift < 8; shift += 2)
        for (int k = 0; k < 2; ++k, q8 += 16) {
          int s = 0;
          for (int l = 0; l < 16; ++l) s += q8[l] * ((q2[l + 16 * k] >> shift) & 3);
          isum += (x[i].scales[is++] & 0xF) * s;
        }
    sum += y[i].d * (fp16_to_fp32(x[i].d) * isum - fp16_to_fp32(x[i].dmin) * summs);
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q2_K_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q2_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t m3 = wasm_i8x16_splat(3);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    int summs = 0;
    for (int j = 0; j < 16; ++j) summs += y[i].bsums[j] * (x[i].scales[j] >> 4);
    const uint8_t* q2 = x[i].qs;
    const int8_t* q8 = y[i].qs;
    v128_t isum = wasm_i32x4_splat(0);
    int is = 0;
    for (int half = 0; half < QK_K; half += 128, q2 += 32) {
      const v128_t v0 = wasm_v128_load(q2), v1 = wasm_v128_load(q2 + 16);
      for (int shift = 0; shift < 8; shift += 2, q8 += 32, is += 2) {
        const v128_t s0 = simd::dot_i8x16(wasm_v128_and(wasm_u16x8_shr(v0, shift), m3), q8);
        const v128_t s1 = simd::dot_i8x16(wasm_v128_and(wasm_u16x8_shr(v1, shift), m3), q8 + 16);
        isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s0, wasm_i32x4_splat(x[i].scales[is] & 0xF)));
        isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s1, wasm_i32x4_splat(x[i].scales[is + 1] & 0xF)));
      }
    }
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * simd::hsum_i32(isum) - fp16_to_fp32_fast(x[i].dmin) * summs);
  }
  return sum;
}

// Against int16 activations: each 32 bytes of 2-bit levels are widened once
// and shifted in 16-bit lanes (native shifts, unlike u8x16.shr). One token:
// the 16 sub-block dots are scaled together (4 lanes per multiply); several:
// the levels are scaled in int16 once (3 * 15 fits) and shared.
void vec_dot_q2_K_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q2_K*>(w);
  const v128_t m3 = wasm_i16x8_splat(3), m4 = wasm_i8x16_splat(0x0F);
  simd::dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const block_q8_Kw* y[T];
    simd::token_rows(a, act_stride, y);
    float sum[T] = {};
    for (int64_t i = 0; i < n / QK_K; ++i) {
      const v128_t sc_bytes = wasm_v128_load(x[i].scales);
      const v128_t scales = wasm_v128_and(sc_bytes, m4);
      const v128_t mins = simd::high_nibbles(sc_bytes);
      alignas(16) uint8_t sc[16];
      wasm_v128_store(sc, scales);
      v128_t isum[T];
      for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_splat(0);
      v128_t sub[16];  // one token: the sub-blocks' unscaled dots
      const uint8_t* q2 = x[i].qs;
      for (int half = 0; half < 2; ++half, q2 += 32) {
        const v128_t v0 = wasm_v128_load(q2), v1 = wasm_v128_load(q2 + 16);
        const v128_t l0 = wasm_u16x8_extend_low_u8x16(v0), l1 = wasm_u16x8_extend_high_u8x16(v0);
        const v128_t l2 = wasm_u16x8_extend_low_u8x16(v1), l3 = wasm_u16x8_extend_high_u8x16(v1);
        for (int s = 0; s < 4; ++s) {
          const int is = 8 * half + 2 * s, at = 128 * half + 32 * s;
          const v128_t w0 = wasm_v128_and(wasm_u16x8_shr(l0, 2 * s), m3), w1 = wasm_v128_and(wasm_u16x8_shr(l1, 2 * s), m3);
          const v128_t w2 = wasm_v128_and(wasm_u16x8_shr(l2, 2 * s), m3), w3 = wasm_v128_and(wasm_u16x8_shr(l3, 2 * s), m3);
          if constexpr (T == 1) {
            const int16_t* q8 = y[0][i].qs + at;
            sub[is] = wasm_i32x4_add(wasm_i32x4_dot_i16x8(w0, wasm_v128_load(q8)), wasm_i32x4_dot_i16x8(w1, wasm_v128_load(q8 + 8)));
            sub[is + 1] = wasm_i32x4_add(wasm_i32x4_dot_i16x8(w2, wasm_v128_load(q8 + 16)), wasm_i32x4_dot_i16x8(w3, wasm_v128_load(q8 + 24)));
          } else {
            const v128_t s0 = wasm_i16x8_splat(sc[is]), s1 = wasm_i16x8_splat(sc[is + 1]);
            const v128_t a0 = wasm_i16x8_mul(w0, s0), a1 = wasm_i16x8_mul(w1, s0);
            const v128_t a2 = wasm_i16x8_mul(w2, s1), a3 = wasm_i16x8_mul(w3, s1);
            for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_add(isum[t], simd::dot_i16x32(a0, a1, a2, a3, y[t][i].qs + at));
          }
        }
      }
      if constexpr (T == 1)
        isum[0] = simd::scale_sub_dots16(sub, wasm_u16x8_extend_low_u8x16(scales), wasm_u16x8_extend_high_u8x16(scales));
      const v128_t mins_lo = wasm_u16x8_extend_low_u8x16(mins), mins_hi = wasm_u16x8_extend_high_u8x16(mins);
      const float d = fp16_to_fp32_fast(x[i].d), dmin = fp16_to_fp32_fast(x[i].dmin);
      for (int t = 0; t < T; ++t) {
        const int summs = simd::hsum_i32(wasm_i32x4_add(wasm_i32x4_dot_i16x8(mins_lo, wasm_v128_load(y[t][i].bsums)),
                                                        wasm_i32x4_dot_i16x8(mins_hi, wasm_v128_load(y[t][i].bsums + 8))));
        sum[t] += y[t][i].d * (d * simd::hsum_i32(isum[t]) - dmin * summs);
      }
    }
    for (int t = 0; t < T; ++t) out[t * out_stride] = sum[t];
  });
}
#endif

}  // namespace wasmlm
