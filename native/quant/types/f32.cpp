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
// Products and sums in f64, as the scalar reference (simd128.h's add_f64).
float vec_dot_f32_f32_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const float*>(w);
  const auto* y = static_cast<const float*>(a);
  v128_t acc0 = wasm_f64x2_splat(0), acc1 = acc0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t xv = wasm_v128_load(x + i), yv = wasm_v128_load(y + i);
    acc0 = wasm_f64x2_add(acc0, wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(xv), wasm_f64x2_promote_low_f32x4(yv)));
    acc1 = wasm_f64x2_add(acc1, wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(wasm_i64x2_shuffle(xv, xv, 1, 1)),
                                               wasm_f64x2_promote_low_f32x4(wasm_i64x2_shuffle(yv, yv, 1, 1))));
  }
  double sum = simd::hsum_f64(wasm_f64x2_add(acc0, acc1));
  for (; i < n; ++i) sum += double(x[i]) * y[i];
  return static_cast<float>(sum);
}
#endif

}  // namespace wasmlm
