// Q4_0: 32 weights as 4-bit q in [0, 15]; w = d * (q - 8).
#include <algorithm>
#include <cmath>
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/signed_block_kernel.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

void dequantize_row_q4_0(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q4_0*>(src);
  for (int64_t i = 0; i < n / QK4_0; ++i, y += QK4_0) {
    const float d = fp16_to_fp32(x[i].d);
    for (int j = 0; j < QK4_0 / 2; ++j) {
      y[j] = ((x[i].qs[j] & 0x0F) - 8) * d;
      y[j + QK4_0 / 2] = ((x[i].qs[j] >> 4) - 8) * d;
    }
  }
}

void quantize_row_q4_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q4_0*>(dst);
  for (int64_t i = 0; i < n / QK4_0; ++i, x += QK4_0) {
    float amax = 0, max = 0;  // the value of largest magnitude, with its sign
    for (int j = 0; j < QK4_0; ++j)
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    const float d = max / -8;
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    for (int j = 0; j < QK4_0 / 2; ++j) {
      const uint8_t xi0 = std::min<int8_t>(15, to_int8_saturated(x[j] * id + 8.5f));
      const uint8_t xi1 = std::min<int8_t>(15, to_int8_saturated(x[QK4_0 / 2 + j] * id + 8.5f));
      y[i].qs[j] = xi0 | (xi1 << 4);
    }
  }
}

float vec_dot_q4_0_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q4_0*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK4_0; ++i) {
    int isum = 0;
    for (int j = 0; j < QK4_0 / 2; ++j)
      isum += ((x[i].qs[j] & 0x0F) - 8) * y[i].qs[j] + ((x[i].qs[j] >> 4) - 8) * y[i].qs[j + QK4_0 / 2];
    sum += isum * (fp16_to_fp32(x[i].d) * fp16_to_fp32(y[i].d));
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q4_0_q8_0_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q4_0*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  const v128_t m4 = wasm_i8x16_splat(0x0F), s8 = wasm_i8x16_splat(8);
  v128_t acc = wasm_f32x4_splat(0);
  for (int64_t i = 0; i < n / QK4_0; ++i) {
    const v128_t v = wasm_v128_load(x[i].qs);
    const v128_t lo = wasm_i8x16_sub(wasm_v128_and(v, m4), s8);
    const v128_t hi = wasm_i8x16_sub(simd::high_nibbles(v), s8);
    const v128_t isum = simd::block_dot_i8x32(lo, hi, y[i].qs);
    acc = simd::add_scaled(acc, isum, fp16_to_fp32_fast(x[i].d) * fp16_to_fp32_fast(y[i].d));
  }
  return simd::hsum_f32(acc);
}

// Nibbles widen to int16 lanes, where masking and shifting are single
// instructions (wasm has no 8-bit shift on x86). One token: the unsigned
// nibbles' dot minus the activations' sum8 (the same int32 lanes, one
// subtraction instead of four); several: the 4 subtractions of 8 are shared.
void vec_dot_q4_0_q8_0w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q4_0*>(w);
  const v128_t m4 = wasm_i16x8_splat(0x0F), s8 = wasm_i16x8_splat(8);
  if (n_tokens == 1) {
    const auto* y = static_cast<const block_q8_0w*>(a);
    v128_t acc = wasm_f32x4_splat(0);
    for (int64_t i = 0; i < n / QK4_0; ++i) {
      const v128_t v = wasm_v128_load(x[i].qs);
      const v128_t lo = wasm_u16x8_extend_low_u8x16(v), hi = wasm_u16x8_extend_high_u8x16(v);
      const v128_t w0 = wasm_v128_and(lo, m4), w1 = wasm_v128_and(hi, m4);
      const v128_t w2 = wasm_u16x8_shr(lo, 4), w3 = wasm_u16x8_shr(hi, 4);
      const v128_t isum = wasm_i32x4_sub(simd::dot_i16x32(w0, w1, w2, w3, y[i].qs), wasm_v128_load(y[i].sum8));
      acc = simd::add_scaled(acc, isum, fp16_to_fp32_fast(x[i].d) * y[i].d);
    }
    out[0] = simd::hsum_f32(acc);
    return;
  }
  simd::vec_dot_signed_blocks_q8_0w(n, x, a, act_stride, n_tokens, out, out_stride, [&](const block_q4_0& b, v128_t(&w)[4]) {
    const v128_t v = wasm_v128_load(b.qs);
    const v128_t lo = wasm_u16x8_extend_low_u8x16(v), hi = wasm_u16x8_extend_high_u8x16(v);
    w[0] = wasm_i16x8_sub(wasm_v128_and(lo, m4), s8);
    w[1] = wasm_i16x8_sub(wasm_v128_and(hi, m4), s8);
    w[2] = wasm_i16x8_sub(wasm_u16x8_shr(lo, 4), s8);
    w[3] = wasm_i16x8_sub(wasm_u16x8_shr(hi, 4), s8);
  });
}

#endif

}  // namespace wasmlm
