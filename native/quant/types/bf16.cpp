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

// One token (the table's vec_dot; the matrix products call the kernel above).
float vec_dot_bf16_f32_simd(int64_t n, const void* w, const void* a) {
  float out;
  vec_dot_bf16_f32w(n, w, a, 0, 1, &out, 0);
  return out;
}
#endif

}  // namespace wasmlm
