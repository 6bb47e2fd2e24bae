// Q5_1: 32 weights as 5-bit q; w = d * q + m.
#include <cstring>

#include <algorithm>
#include <cfloat>
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/min_block_kernel.h"
#include "quant/simd128.h"

namespace wasmlm {

void dequantize_row_q5_1(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q5_1*>(src);
  for (int64_t i = 0; i < n / QK5_1; ++i, y += QK5_1) {
    const float d = fp16_to_fp32(x[i].d), m = fp16_to_fp32(x[i].m);
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, sizeof qh);
    for (int j = 0; j < QK5_1 / 2; ++j) {
      const uint8_t xh0 = ((qh >> (j + 0)) << 4) & 0x10;
      const uint8_t xh1 = ((qh >> (j + 12))) & 0x10;
      y[j] = ((x[i].qs[j] & 0x0F) | xh0) * d + m;
      y[j + QK5_1 / 2] = ((x[i].qs[j] >> 4) | xh1) * d + m;
    }
  }
}

void quantize_row_q5_1(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q5_1*>(dst);
  for (int64_t i = 0; i < n / QK5_1; ++i, x += QK5_1) {
    float min = FLT_MAX, max = -FLT_MAX;
    for (int j = 0; j < QK5_1; ++j) {
      min = std::min(min, x[j]);
      max = std::max(max, x[j]);
    }
    const float d = (max - min) / ((1 << 5) - 1);
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    y[i].m = fp32_to_fp16(min);
    uint32_t qh = 0;
    for (int j = 0; j < QK5_1 / 2; ++j) {
      const uint8_t xi0 = static_cast<uint8_t>(to_int8_saturated((x[j] - min) * id + 0.5f));
      const uint8_t xi1 = static_cast<uint8_t>(to_int8_saturated((x[QK5_1 / 2 + j] - min) * id + 0.5f));
      y[i].qs[j] = (xi0 & 0x0F) | ((xi1 & 0x0F) << 4);
      qh |= ((xi0 & 0x10u) >> 4) << (j + 0);
      qh |= ((xi1 & 0x10u) >> 4) << (j + QK5_1 / 2);
    }
    std::memcpy(y[i].qh, &qh, sizeof qh);
  }
}

float vec_dot_q5_1_q8_1(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q5_1*>(w);
  const auto* y = static_cast<const block_q8_1*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK5_1; ++i) {
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, sizeof qh);
    int isum = 0;
    for (int j = 0; j < QK5_1 / 2; ++j) {
      const int x0 = (x[i].qs[j] & 0x0F) | (((qh >> (j + 0)) << 4) & 0x10);
      const int x1 = (x[i].qs[j] >> 4) | ((qh >> (j + 12)) & 0x10);
      isum += x0 * y[i].qs[j] + x1 * y[i].qs[j + QK5_1 / 2];
    }
    sum += isum * (fp16_to_fp32(x[i].d) * fp16_to_fp32(y[i].d)) + fp16_to_fp32(x[i].m) * fp16_to_fp32(y[i].s);
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q5_1_q8_1_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q5_1*>(w);
  const auto* y = static_cast<const block_q8_1*>(a);
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  v128_t acc = wasm_f32x4_splat(0);
  float sum_ms = 0;
  for (int64_t i = 0; i < n / QK5_1; ++i) {
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, sizeof qh);
    v128_t h_lo, h_hi;
    simd::q5_high_bits(qh, &h_lo, &h_hi);
    const v128_t v = wasm_v128_load(x[i].qs);
    const v128_t lo = wasm_v128_or(wasm_v128_and(v, m4), h_lo);
    const v128_t hi = wasm_v128_or(simd::high_nibbles(v), h_hi);
    const v128_t isum = simd::block_dot_i8x32(lo, hi, y[i].qs);
    acc = simd::add_scaled(acc, isum, fp16_to_fp32_fast(x[i].d) * fp16_to_fp32_fast(y[i].d));
    sum_ms += fp16_to_fp32_fast(x[i].m) * fp16_to_fp32_fast(y[i].s);
  }
  return simd::hsum_f32(acc) + sum_ms;
}

void vec_dot_q5_1_q8_1w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  simd::vec_dot_min_blocks_q8_1w(n, static_cast<const block_q5_1*>(w), a, act_stride, n_tokens, out, out_stride,
                                 [&](const block_q5_1& b, v128_t* q) {
                                   uint32_t qh;
                                   std::memcpy(&qh, b.qh, sizeof qh);
                                   v128_t h_lo, h_hi;
                                   simd::q5_high_bits(qh, &h_lo, &h_hi);
                                   const v128_t v = wasm_v128_load(b.qs);
                                   const v128_t lo = wasm_v128_or(wasm_v128_and(v, m4), h_lo);
                                   const v128_t hi = wasm_v128_or(simd::high_nibbles(v), h_hi);
                                   q[0] = wasm_u16x8_extend_low_u8x16(lo);
                                   q[1] = wasm_u16x8_extend_high_u8x16(lo);
                                   q[2] = wasm_u16x8_extend_low_u8x16(hi);
                                   q[3] = wasm_u16x8_extend_high_u8x16(hi);
                                 });
}
#endif

}  // namespace wasmlm
