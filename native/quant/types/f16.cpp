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

}  // namespace wasmlm
