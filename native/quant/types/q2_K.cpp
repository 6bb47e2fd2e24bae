// Q2_K: 256 weights in 16 groups of 16; 2-bit q, 4-bit scale and min per group.
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"

namespace wasmlm {

void dequantize_row_q2_K(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q2_K*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d), min = fp16_to_fp32(x[i].dmin);
    const uint8_t* q = x[i].qs;
    int is = 0;
    for (int half = 0; half < QK_K; half += 128) {
      for (int shift = 0; shift < 8; shift += 2) {
        for (int k = 0; k < 2; ++k) {
          const uint8_t sc = x[i].scales[is++];
          const float dl = d * (sc & 0xF), ml = min * (sc >> 4);
          for (int l = 0; l < 16; ++l) *y++ = dl * ((q[l + 16 * k] >> shift) & 3) - ml;
        }
      }
      q += 32;
    }
  }
}

}  // namespace wasmlm
