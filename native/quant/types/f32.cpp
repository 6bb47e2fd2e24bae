#include <cstring>

#include "quant/quant_types.h"

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

}  // namespace wasmlm
