// Q8_1: Q8_0 plus s = d * sum(q), used for activations against Q4_1/Q5_1.
#include <algorithm>
#include <cmath>
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"

namespace wasmlm {

void dequantize_row_q8_1(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q8_1*>(src);
  for (int64_t i = 0; i < n / QK8_1; ++i, y += QK8_1) {
    const float d = fp16_to_fp32(x[i].d);
    for (int j = 0; j < QK8_1; ++j) y[j] = x[i].qs[j] * d;
  }
}

void quantize_row_q8_1(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q8_1*>(dst);
  for (int64_t i = 0; i < n / QK8_1; ++i, x += QK8_1) {
    float amax = 0;
    for (int j = 0; j < QK8_1; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127;
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    int sum = 0;
    for (int j = 0; j < QK8_1; ++j) {
      y[i].qs[j] = to_int8_saturated(std::round(x[j] * id));
      sum += y[i].qs[j];
    }
    y[i].s = fp32_to_fp16(sum * d);
  }
}

}  // namespace wasmlm
