// Q2_K: 256 weights in 16 groups of 16; 2-bit q, 4-bit scale and min per group.
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

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
        const v128_t s0 = simd::dot_i8x16(wasm_v128_and(wasm_u8x16_shr(v0, shift), m3), wasm_v128_load(q8));
        const v128_t s1 = simd::dot_i8x16(wasm_v128_and(wasm_u8x16_shr(v1, shift), m3), wasm_v128_load(q8 + 16));
        isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s0, wasm_i32x4_splat(x[i].scales[is] & 0xF)));
        isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s1, wasm_i32x4_splat(x[i].scales[is + 1] & 0xF)));
      }
    }
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * simd::hsum_i32(isum) - fp16_to_fp32_fast(x[i].dmin) * summs);
  }
  return sum;
}
#endif

}  // namespace wasmlm
