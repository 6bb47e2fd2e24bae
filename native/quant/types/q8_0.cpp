// Q8_0: 32 weights as int8 q; w = d * q.
#include <algorithm>
#include <cmath>
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/signed_block_kernel.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

void dequantize_row_q8_0(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q8_0*>(src);
  for (int64_t i = 0; i < n / QK8_0; ++i, y += QK8_0) {
    const float d = fp16_to_fp32(x[i].d);
    for (int j = 0; j < QK8_0; ++j) y[j] = x[i].qs[j] * d;
  }
}

void quantize_row_q8_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q8_0*>(dst);
  for (int64_t i = 0; i < n / QK8_0; ++i, x += QK8_0) {
    float amax = 0;
    for (int j = 0; j < QK8_0; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127;
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    for (int j = 0; j < QK8_0; ++j) y[i].qs[j] = to_int8_saturated(std::round(x[j] * id));
  }
}

float vec_dot_q8_0_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q8_0*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK8_0; ++i) {
    int isum = 0;
    for (int j = 0; j < QK8_0; ++j) isum += x[i].qs[j] * y[i].qs[j];
    sum += isum * (fp16_to_fp32(x[i].d) * fp16_to_fp32(y[i].d));
  }
  return sum;
}

#ifdef __wasm_simd128__
// quantize_row_q8_0 in SIMD-128 with the same float operations per value;
// std::round (half away from zero) as trunc plus a sign where |fraction| >= 0.5.
void quantize_row_q8_0_simd(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q8_0*>(dst);
  for (int64_t i = 0; i < n / QK8_0; ++i, x += QK8_0) {
    v128_t v[8];
    v128_t m = wasm_f32x4_splat(0);
    for (int k = 0; k < 8; ++k) {
      v[k] = wasm_v128_load(x + 4 * k);
      m = wasm_f32x4_pmax(m, wasm_f32x4_abs(v[k]));
    }
    const float amax = simd::hmax_f32(m);
    const float d = amax / 127;
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    v128_t q[8];
    for (int k = 0; k < 8; ++k) q[k] = wasm_i32x4_trunc_sat_f32x4(simd::round_half_away(wasm_f32x4_mul(v[k], wasm_f32x4_splat(id))));
    const v128_t a = wasm_i8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(q[0], q[1]), wasm_i16x8_narrow_i32x4(q[2], q[3]));
    const v128_t b = wasm_i8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(q[4], q[5]), wasm_i16x8_narrow_i32x4(q[6], q[7]));
    wasm_v128_store(y[i].qs, a);
    wasm_v128_store(y[i].qs + 16, b);
  }
}

float vec_dot_q8_0_q8_0_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q8_0*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  v128_t acc = wasm_f32x4_splat(0);
  for (int64_t i = 0; i < n / QK8_0; ++i) {
    const v128_t isum = simd::block_dot_i8x32(wasm_v128_load(x[i].qs), wasm_v128_load(x[i].qs + 16), y[i].qs);
    acc = simd::add_scaled(acc, isum, fp16_to_fp32_fast(x[i].d) * fp16_to_fp32_fast(y[i].d));
  }
  return simd::hsum_f32(acc);
}

void vec_dot_q8_0_q8_0w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q8_0*>(w);
  simd::vec_dot_signed_blocks_q8_0w(n, x, a, act_stride, n_tokens, out, out_stride, [](const block_q8_0& b, v128_t(&w)[4]) {
    // Each quarter sign-extended as it loads (one pmovsxbw from memory in V8).
    for (int k = 0; k < 4; ++k) w[k] = wasm_i16x8_load8x8(b.qs + 8 * k);
  });
}
#endif

}  // namespace wasmlm
