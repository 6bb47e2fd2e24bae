#include "quant/fp16.h"
#include "quant/half_rows_kernel.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

void dequantize_row_bf16(const void* src, float* dst, int64_t n) {
  const auto* x = static_cast<const uint16_t*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_fp32(x[i]);
}

void quantize_row_bf16(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<uint16_t*>(dst);
  for (int64_t i = 0; i < n; ++i) y[i] = fp32_to_bf16(x[i]);
}

float vec_dot_bf16_f32(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const float*>(a);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += double(bf16_to_fp32(x[i])) * y[i];
  return static_cast<float>(sum);
}

#ifdef __wasm_simd128__
float vec_dot_bf16_f32_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const uint16_t*>(w);
  const auto* y = static_cast<const float*>(a);
  // Products with BF16-rounded activations are exact in f32; sums in f64 (simd128.h's add_f64).
  v128_t acc0 = wasm_f64x2_splat(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t h = wasm_v128_load(x + i);
    simd::add_f64(wasm_f32x4_mul(wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(h), 16), wasm_v128_load(y + i)), &acc0, &acc1);
    simd::add_f64(wasm_f32x4_mul(wasm_i32x4_shl(wasm_u32x4_extend_high_u16x8(h), 16), wasm_v128_load(y + i + 4)), &acc2, &acc3);
  }
  double sum = simd::hsum_f64(wasm_f64x2_add(wasm_f64x2_add(acc0, acc1), wasm_f64x2_add(acc2, acc3)));
  for (; i < n; ++i) sum += double(bf16_to_fp32(x[i])) * y[i];
  return static_cast<float>(sum);
}

// 1 to 4 tokens of the BF16-rounded f32 activations as they are
// (WideForm::F32AsIs), on half_rows_kernel.h: a bfloat16 is the high half of
// its f32, so 4 of them convert in one interleave with zeros.
void vec_dot_bf16_f32w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                       int64_t out_stride) {
  const auto* x = static_cast<const uint16_t*>(w);
  const v128_t zero = wasm_i16x8_splat(0);
  simd::half_rows_dot(
      n, x, a, act_stride, n_tokens, out, out_stride,
      [&](v128_t h, v128_t* lo, v128_t* hi) {
        *lo = wasm_i16x8_shuffle(zero, h, 0, 8, 1, 9, 2, 10, 3, 11);
        *hi = wasm_i16x8_shuffle(zero, h, 4, 12, 5, 13, 6, 14, 7, 15);
      },
      [&](int64_t k, float y) { return double(bf16_to_fp32(x[k])) * y; });
}
#endif

}  // namespace wasmlm
