// Q8_K: 256 int8 q with an f32 scale and per-16 sums; activations for K-quants.
#include <algorithm>
#include <cmath>
#include <cstring>
#include "quant/quant_search.h"
#include "quant/blocks.h"
#include "quant/quant_types.h"

namespace wasmlm {

void dequantize_row_q8_K(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q8_K*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i, y += QK_K)
    for (int j = 0; j < QK_K; ++j) y[j] = x[i].d * x[i].qs[j];
}

void quantize_row_q8_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q8_K*>(dst);
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    float max = 0, amax = 0;
    for (int j = 0; j < QK_K; ++j)
      if (std::fabs(x[j]) > amax) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    if (!amax) {
      y[i].d = 0;
      std::memset(y[i].qs, 0, QK_K);
      std::memset(y[i].bsums, 0, sizeof y[i].bsums);
      continue;
    }
    const float iscale = -127.f / max;
    for (int j = 0; j < QK_K; ++j) y[i].qs[j] = static_cast<int8_t>(std::min(127, nearest_int(iscale * x[j])));
    for (int j = 0; j < QK_K / 16; ++j) {
      int sum = 0;
      for (int k = 0; k < 16; ++k) sum += y[i].qs[16 * j + k];
      y[i].bsums[j] = static_cast<int16_t>(sum);
    }
    y[i].d = 1 / iscale;
  }
}

}  // namespace wasmlm
