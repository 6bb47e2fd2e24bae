// Q5_0: 32 weights as 5-bit q (low 4 bits in qs, 5th bit in qh); w = d * (q - 16).
#include <cstring>

#include <algorithm>
#include <cmath>
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/signed_block_kernel.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

void dequantize_row_q5_0(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q5_0*>(src);
  for (int64_t i = 0; i < n / QK5_0; ++i, y += QK5_0) {
    const float d = fp16_to_fp32(x[i].d);
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, sizeof qh);
    for (int j = 0; j < QK5_0 / 2; ++j) {
      const uint8_t xh0 = ((qh >> (j + 0)) << 4) & 0x10;
      const uint8_t xh1 = ((qh >> (j + 12))) & 0x10;
      y[j] = (((x[i].qs[j] & 0x0F) | xh0) - 16) * d;
      y[j + QK5_0 / 2] = (((x[i].qs[j] >> 4) | xh1) - 16) * d;
    }
  }
}

void quantize_row_q5_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q5_0*>(dst);
  for (int64_t i = 0; i < n / QK5_0; ++i, x += QK5_0) {
    float amax = 0, max = 0;
    for (int j = 0; j < QK5_0; ++j)
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    const float d = max / -16;
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    uint32_t qh = 0;
    for (int j = 0; j < QK5_0 / 2; ++j) {
      const uint8_t xi0 = std::min<int8_t>(31, to_int8_saturated(x[j] * id + 16.5f));
      const uint8_t xi1 = std::min<int8_t>(31, to_int8_saturated(x[QK5_0 / 2 + j] * id + 16.5f));
      y[i].qs[j] = (xi0 & 0x0F) | ((xi1 & 0x0F) << 4);
      qh |= ((xi0 & 0x10u) >> 4) << (j + 0);
      qh |= ((xi1 & 0x10u) >> 4) << (j + QK5_0 / 2);
    }
    std::memcpy(y[i].qh, &qh, sizeof qh);
  }
}

float vec_dot_q5_0_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q5_0*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK5_0; ++i) {
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, sizeof qh);
    int isum = 0;
    for (int j = 0; j < QK5_0 / 2; ++j) {
      const int x0 = ((x[i].qs[j] & 0x0F) | (((qh >> (j + 0)) << 4) & 0x10)) - 16;
      const int x1 = ((x[i].qs[j] >> 4) | ((qh >> (j + 12)) & 0x10)) - 16;
      isum += x0 * y[i].qs[j] + x1 * y[i].qs[j + QK5_0 / 2];
    }
    sum += isum * (fp16_to_fp32(x[i].d) * fp16_to_fp32(y[i].d));
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q5_0_q8_0_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q5_0*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  const v128_t m4 = wasm_i8x16_splat(0x0F), s16 = wasm_i8x16_splat(16);
  v128_t acc = wasm_f32x4_splat(0);
  for (int64_t i = 0; i < n / QK5_0; ++i) {
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, sizeof qh);
    v128_t h_lo, h_hi;
    simd::q5_high_bits(qh, &h_lo, &h_hi);
    const v128_t v = wasm_v128_load(x[i].qs);
    const v128_t lo = wasm_i8x16_sub(wasm_v128_or(wasm_v128_and(v, m4), h_lo), s16);
    const v128_t hi = wasm_i8x16_sub(wasm_v128_or(simd::high_nibbles(v), h_hi), s16);
    const v128_t isum = simd::block_dot_i8x32(lo, hi, y[i].qs);
    acc = simd::add_scaled(acc, isum, fp16_to_fp32_fast(x[i].d) * fp16_to_fp32_fast(y[i].d));
  }
  return simd::hsum_f32(acc);
}

// Against int16 activations (wide_activations.h): the unsigned 5-bit levels
// (0..31) are built in bytes and widened. One token: their dot minus 16 x the
// activations' sums (2 x sum8, the same int32 lanes) equals the dot with
// (level - 16). Several (at most 4, signed_block_kernel.h): the 4
// subtractions of 16 are shared.
void vec_dot_q5_0_q8_0w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q5_0*>(w);
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  auto levels = [&](const block_q5_0& b, v128_t (&q)[4]) {
    uint32_t qh;
    std::memcpy(&qh, b.qh, sizeof qh);
    v128_t h_lo, h_hi;
    simd::q5_high_bits(qh, &h_lo, &h_hi);
    const v128_t v = wasm_v128_load(b.qs);
    const v128_t lo = wasm_v128_or(wasm_v128_and(v, m4), h_lo), hi = wasm_v128_or(simd::high_nibbles(v), h_hi);
    q[0] = wasm_u16x8_extend_low_u8x16(lo);
    q[1] = wasm_u16x8_extend_high_u8x16(lo);
    q[2] = wasm_u16x8_extend_low_u8x16(hi);
    q[3] = wasm_u16x8_extend_high_u8x16(hi);
  };
  if (n_tokens == 1) {
    const auto* y = static_cast<const block_q8_0w*>(a);
    v128_t acc = wasm_f32x4_splat(0);
    for (int64_t i = 0; i < n / QK5_0; ++i) {
      v128_t q[4];
      levels(x[i], q);
      const v128_t sum16 = wasm_i32x4_shl(wasm_v128_load(y[i].sum8), 1);
      const v128_t isum = wasm_i32x4_sub(simd::dot_i16x32(q[0], q[1], q[2], q[3], y[i].qs), sum16);
      acc = simd::add_scaled(acc, isum, fp16_to_fp32_fast(x[i].d) * y[i].d);
    }
    out[0] = simd::hsum_f32(acc);
    return;
  }
  const v128_t s16 = wasm_i16x8_splat(16);
  simd::vec_dot_signed_blocks_q8_0w(n, x, a, act_stride, n_tokens, out, out_stride, [&](const block_q5_0& b, v128_t(&w)[4]) {
    levels(b, w);
    for (int k = 0; k < 4; ++k) w[k] = wasm_i16x8_sub(w[k], s16);
  });
}
#endif

}  // namespace wasmlm
