// Q4_1: 32 weights as 4-bit q; w = d * q + m.
#include <algorithm>
#include <cfloat>
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/min_block_kernel.h"
#include "quant/simd128.h"

namespace wasmlm {

void dequantize_row_q4_1(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q4_1*>(src);
  for (int64_t i = 0; i < n / QK4_1; ++i, y += QK4_1) {
    const float d = fp16_to_fp32(x[i].d), m = fp16_to_fp32(x[i].m);
    for (int j = 0; j < QK4_1 / 2; ++j) {
      y[j] = (x[i].qs[j] & 0x0F) * d + m;
      y[j + QK4_1 / 2] = (x[i].qs[j] >> 4) * d + m;
    }
  }
}

void quantize_row_q4_1(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q4_1*>(dst);
  for (int64_t i = 0; i < n / QK4_1; ++i, x += QK4_1) {
    float min = FLT_MAX, max = -FLT_MAX;
    for (int j = 0; j < QK4_1; ++j) {
      min = std::min(min, x[j]);
      max = std::max(max, x[j]);
    }
    const float d = (max - min) / ((1 << 4) - 1);
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    y[i].m = fp32_to_fp16(min);
    for (int j = 0; j < QK4_1 / 2; ++j) {
      const uint8_t xi0 = std::min<int8_t>(15, to_int8_saturated((x[j] - min) * id + 0.5f));
      const uint8_t xi1 = std::min<int8_t>(15, to_int8_saturated((x[QK4_1 / 2 + j] - min) * id + 0.5f));
      y[i].qs[j] = xi0 | (xi1 << 4);
    }
  }
}

float vec_dot_q4_1_q8_1(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q4_1*>(w);
  const auto* y = static_cast<const block_q8_1*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK4_1; ++i) {
    int isum = 0;
    for (int j = 0; j < QK4_1 / 2; ++j)
      isum += (x[i].qs[j] & 0x0F) * y[i].qs[j] + (x[i].qs[j] >> 4) * y[i].qs[j + QK4_1 / 2];
    // sum(d*q + m) * dy*qy = d*dy*isum + m * (dy * sum(qy)), the last factor stored as s.
    sum += isum * (fp16_to_fp32(x[i].d) * fp16_to_fp32(y[i].d)) + fp16_to_fp32(x[i].m) * fp16_to_fp32(y[i].s);
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q4_1_q8_1_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q4_1*>(w);
  const auto* y = static_cast<const block_q8_1*>(a);
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  v128_t acc = wasm_f32x4_splat(0);
  float sum_ms = 0;
  for (int64_t i = 0; i < n / QK4_1; ++i) {
    const v128_t v = wasm_v128_load(x[i].qs);
    const v128_t isum = simd::block_dot_i8x32(wasm_v128_and(v, m4), simd::high_nibbles(v), y[i].qs);
    acc = simd::add_scaled(acc, isum, fp16_to_fp32_fast(x[i].d) * fp16_to_fp32_fast(y[i].d));
    sum_ms += fp16_to_fp32_fast(x[i].m) * fp16_to_fp32_fast(y[i].s);
  }
  return simd::hsum_f32(acc) + sum_ms;
}

void vec_dot_q4_1_q8_1w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const v128_t m4 = wasm_i16x8_splat(0x0F);
  simd::vec_dot_min_blocks_q8_1w(n, static_cast<const block_q4_1*>(w), a, act_stride, n_tokens, out, out_stride,
                                 [&](const block_q4_1& b, v128_t* q) {
                                   const v128_t v = wasm_v128_load(b.qs);
                                   const v128_t lo = wasm_u16x8_extend_low_u8x16(v), hi = wasm_u16x8_extend_high_u8x16(v);
                                   q[0] = wasm_v128_and(lo, m4);
                                   q[1] = wasm_v128_and(hi, m4);
                                   q[2] = wasm_u16x8_shr(lo, 4);
                                   q[3] = wasm_u16x8_shr(hi, 4);
                                 });
}
#endif

}  // namespace wasmlm
