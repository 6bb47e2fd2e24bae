#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

void dequantize_row_f16(const void* src, float* dst, int64_t n) {
  const auto* x = static_cast<const uint16_t*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32(x[i]);
}

void quantize_row_f16(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<uint16_t*>(dst);
  for (int64_t i = 0; i < n; ++i) y[i] = fp32_to_fp16(x[i]);
}

float vec_dot_f16_f32(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const float*>(a);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += double(fp16_to_fp32(x[i])) * y[i];
  return static_cast<float>(sum);
}

#ifdef __wasm_simd128__
float vec_dot_f16_f32_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const float*>(a);
  v128_t acc0 = wasm_f32x4_splat(0), acc1 = acc0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t h = wasm_v128_load(x + i);
    acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(simd::fp16x4_to_f32(wasm_u32x4_extend_low_u16x8(h)), wasm_v128_load(y + i)));
    acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(simd::fp16x4_to_f32(wasm_u32x4_extend_high_u16x8(h)), wasm_v128_load(y + i + 4)));
  }
  float sum = simd::hsum_f32(wasm_f32x4_add(acc0, acc1));
  for (; i < n; ++i) sum += fp16_to_fp32_fast(x[i]) * y[i];
  return sum;
}
#endif

}  // namespace wasmlm
