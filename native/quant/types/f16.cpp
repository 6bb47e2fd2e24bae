#include "quant/fp16.h"
#include "quant/quant_types.h"

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

}  // namespace wasmlm
