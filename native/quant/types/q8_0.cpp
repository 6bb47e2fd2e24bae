// Q8_0: 32 weights as int8 q; w = d * q.
#include <algorithm>
#include <cmath>
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

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
    for (int j = 0; j < QK8_0; ++j) y[i].qs[j] = static_cast<int8_t>(std::round(x[j] * id));
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
#endif

}  // namespace wasmlm
