#include <cstring>

#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

void dequantize_row_f32(const void* src, float* dst, int64_t n) { std::memcpy(dst, src, n * sizeof(float)); }

void quantize_row_f32(const float* x, void* dst, int64_t n) { std::memcpy(dst, x, n * sizeof(float)); }

float vec_dot_f32_f32(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const float*>(w);
  const auto* y = static_cast<const float*>(a);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += double(x[i]) * y[i];
  return static_cast<float>(sum);
}

#ifdef __wasm_simd128__
float vec_dot_f32_f32_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const float*>(w);
  const auto* y = static_cast<const float*>(a);
  v128_t acc0 = wasm_f32x4_splat(0), acc1 = acc0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(wasm_v128_load(x + i), wasm_v128_load(y + i)));
    acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(wasm_v128_load(x + i + 4), wasm_v128_load(y + i + 4)));
  }
  float sum = simd::hsum_f32(wasm_f32x4_add(acc0, acc1));
  for (; i < n; ++i) sum += x[i] * y[i];
  return sum;
}
#endif

}  // namespace wasmlm
