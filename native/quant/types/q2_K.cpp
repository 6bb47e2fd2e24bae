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

float vec_dot_q2_K_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q2_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    // The mins times the activations' per-16 sums, then the scaled levels.
    int summs = 0;
    for (int j = 0; j < 16; ++j) summs += y[i].bsums[j] * (x[i].scales[j] >> 4);
    const uint8_t* q2 = x[i].qs;
    const int8_t* q8 = y[i].qs;
    int isum = 0, is = 0;
    for (int half = 0; half < QK_K; half += 128, q2 += 32)
      for (int shift = 0; shift < 8; shift += 2)
        for (int k = 0; k < 2; ++k, q8 += 16) {
          int s = 0;
          for (int l = 0; l < 16; ++l) s += q8[l] * ((q2[l + 16 * k] >> shift) & 3);
          isum += (x[i].scales[is++] & 0xF) * s;
        }
    sum += y[i].d * (fp16_to_fp32(x[i].d) * isum - fp16_to_fp32(x[i].dmin) * summs);
  }
  return sum;
}

}  // namespace wasmlm
