// IQ4_XS: 256 weights in 8 groups of 32 with IQ4_NL levels and a 6-bit
// scale per group (4 low bits in scales_l, 2 high in scales_h).
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

void dequantize_row_iq4_xs(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq4_xs*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    const uint8_t* qs = x[i].qs;
    for (int ib = 0; ib < QK_K / 32; ++ib, y += 32, qs += 16) {
      const int ls = ((x[i].scales_l[ib / 2] >> 4 * (ib % 2)) & 0xF) | (((x[i].scales_h >> 2 * ib) & 3) << 4);
      const float dl = d * (ls - 32);
      for (int j = 0; j < 16; ++j) {
        y[j] = dl * kValuesIq4nl[qs[j] & 0xF];
        y[j + 16] = dl * kValuesIq4nl[qs[j] >> 4];
      }
    }
  }
}

float vec_dot_iq4_xs_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq4_xs*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* qs = x[i].qs;
    const int8_t* q8 = y[i].qs;
    int isum = 0;
    for (int ib = 0; ib < QK_K / 32; ++ib, qs += 16, q8 += 32) {
      const int ls = ((x[i].scales_l[ib / 2] >> 4 * (ib % 2)) & 0xF) | (((x[i].scales_h >> 2 * ib) & 3) << 4);
      int s = 0;
      for (int j = 0; j < 16; ++j) s += kValuesIq4nl[qs[j] & 0xF] * q8[j] + kValuesIq4nl[qs[j] >> 4] * q8[j + 16];
      isum += (ls - 32) * s;
    }
    sum += fp16_to_fp32(x[i].d) * y[i].d * isum;
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_iq4_xs_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq4_xs*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t levels = wasm_v128_load(kValuesIq4nl), m4 = wasm_i8x16_splat(0x0F);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* qs = x[i].qs;
    const int8_t* q8 = y[i].qs;
    v128_t isum = wasm_i32x4_splat(0);
    for (int ib = 0; ib < QK_K / 32; ++ib, qs += 16, q8 += 32) {
      const int ls = ((x[i].scales_l[ib / 2] >> 4 * (ib % 2)) & 0xF) | (((x[i].scales_h >> 2 * ib) & 3) << 4);
      const v128_t v = wasm_v128_load(qs);
      const v128_t s = wasm_i32x4_add(
          simd::dot_i8x16(wasm_i8x16_swizzle(levels, wasm_v128_and(v, m4)), wasm_v128_load(q8)),
          simd::dot_i8x16(wasm_i8x16_swizzle(levels, wasm_u8x16_shr(v, 4)), wasm_v128_load(q8 + 16)));
      isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s, wasm_i32x4_splat(ls - 32)));
    }
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * simd::hsum_i32(isum);
  }
  return sum;
}
#endif

}  // namespace wasmlm
