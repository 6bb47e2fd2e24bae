#include "quant/fp16.h"
#include "quant/half_rows_kernel.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

#include <vector>

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
namespace {

// The exact converter (inf and NaN too), for rows that hold such halves.
float vec_dot_f16_f32_special(int64_t n, const uint16_t* x, const float* y) {
  v128_t acc0 = wasm_f64x2_splat(0), acc1 = acc0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t h = wasm_v128_load(x + i);
    simd::add_f64(wasm_f32x4_mul(simd::fp16x4_to_f32(wasm_u32x4_extend_low_u16x8(h)), wasm_v128_load(y + i)), &acc0, &acc1);
    simd::add_f64(wasm_f32x4_mul(simd::fp16x4_to_f32(wasm_u32x4_extend_high_u16x8(h)), wasm_v128_load(y + i + 4)), &acc0, &acc1);
  }
  double sum = simd::hsum_f64(wasm_f64x2_add(acc0, acc1));
  for (; i < n; ++i) sum += double(fp16_to_fp32_fast(x[i])) * y[i];
  return static_cast<float>(sum);
}

}  // namespace

// 1 to 4 tokens against activations scaled by 2^112 (wide_activations.h):
// the halves converted without scaling (half_rows_kernel.h; the products
// stay exact); a row with an inf or NaN is done again exactly, token by
// token.
void vec_dot_f16_f32w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                      int64_t out_stride) {
  const auto* x = static_cast<const uint16_t*>(w);
  const v128_t abs_mask = wasm_i16x8_splat(0x7FFF);
  v128_t top = wasm_i16x8_splat(0);
  simd::half_rows_dot(
      n, x, a, act_stride, n_tokens, out, out_stride,
      [&](v128_t h, v128_t* lo, v128_t* hi) {
        top = wasm_u16x8_max(top, wasm_v128_and(h, abs_mask));
        simd::fp16x8_to_f32_raw(h, lo, hi);
      },
      [&](int64_t k, float y) { return double(fp16_to_fp32_fast(x[k])) * (y / kF16RawScale); });
  const bool special = wasm_v128_any_true(wasm_u16x8_ge(top, wasm_i16x8_splat(0x7C00)));
  if (!special) return;
  std::vector<float> plain(static_cast<size_t>(n));
  for (int t = 0; t < n_tokens; ++t) {
    const auto* yt = reinterpret_cast<const float*>(static_cast<const uint8_t*>(a) + t * act_stride);
    for (int64_t k = 0; k < n; ++k) plain[k] = yt[k] / kF16RawScale;
    out[t * out_stride] = vec_dot_f16_f32_special(n, x, plain.data());
  }
}

// One token against plain F16-rounded activations (the table's vec_dot; the
// matrix products call the kernel above directly): the same kernel on the
// activations widened as matmul widens them for it.
float vec_dot_f16_f32_simd(int64_t n, const void* w, const void* a) {
  std::vector<float> scaled(static_cast<size_t>(n));
  widen_activations(WideForm::F32, a, scaled.data(), n, 0);
  float out;
  vec_dot_f16_f32w(n, w, scaled.data(), 0, 1, &out, 0);
  return out;
}
#endif

}  // namespace wasmlm
