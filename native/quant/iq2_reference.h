// The reference dequantization and dot of the 2-bit i-quants (IQ2_XXS,
// IQ2_XS, IQ2_S), through their codecs (iq2_codecs.h): what gguf-py's
// dequantization and ggml's generic vec_dot_iq2_*_q8_K compute, to the bit.
#pragma once

#include <cstdint>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq2_codecs.h"

namespace wasmlm {

template <typename Codec>
void iq2_dequantize(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const typename Codec::Block*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const Codec c(x[i], ib32);
      const float db[2] = {d * (0.5f + static_cast<float>(c.s1)) * 0.25f, d * (0.5f + static_cast<float>(c.s2)) * 0.25f};
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint64_t g = *c.grid(l);
        const uint8_t signs = c.sign_bits(l);
        for (int j = 0; j < 8; ++j)
          y[j] = db[l / 2] * static_cast<float>((g >> 8 * j) & 0xFF) * ((signs >> j) & 1 ? -1.0f : 1.0f);
      }
    }
  }
}

// Per 16 weights an integer dot times its odd scale 2 s + 1, summed over the
// block; sum += d * d8 * that, and 0.125 * sum at the end (ggml's (0.5 + s) / 4).
template <typename Codec>
float iq2_vec_dot_ref(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const typename Codec::Block*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    int32_t bsum = 0;
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const Codec c(x[i], ib32);
      for (int half = 0; half < 2; ++half) {
        int32_t s = 0;
        for (int l = 2 * half; l < 2 * half + 2; ++l, q8 += 8) {
          const uint64_t g = *c.grid(l);
          const uint8_t signs = c.sign_bits(l);
          for (int j = 0; j < 8; ++j) {
            const int v = static_cast<int>((g >> 8 * j) & 0xFF) * q8[j];
            s += (signs >> j) & 1 ? -v : v;
          }
        }
        bsum += s * (half == 0 ? c.ls1 : c.ls2);
      }
    }
    sum += fp16_to_fp32(x[i].d) * y[i].d * static_cast<float>(bsum);
  }
  return 0.125f * sum;
}

}  // namespace wasmlm
