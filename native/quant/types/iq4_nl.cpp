// IQ4_NL: 32 weights as 4-bit indices into 16 non-uniform levels; w = d * level.
#include <cmath>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_search.h"
#include "quant/quant_types.h"
#include "quant/signed_block_kernel.h"
#include "quant/simd128.h"
#include "quant/table_block_kernel.h"
#include "quant/wide_activations.h"

namespace wasmlm {

void dequantize_row_iq4_nl(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq4_nl*>(src);
  for (int64_t i = 0; i < n / QK4_NL; ++i, y += QK4_NL) {
    const float d = fp16_to_fp32(x[i].d);
    for (int j = 0; j < QK4_NL / 2; ++j) {
      y[j] = d * kValuesIq4nl[x[i].qs[j] & 0xF];
      y[j + QK4_NL / 2] = d * kValuesIq4nl[x[i].qs[j] >> 4];
    }
  }
}

namespace {

// The scale of one block of n values and their level indices L, searching
// 2*ntry+1 scales around max/level[0] with weights x^2 (ggml's
// quantize_row_iq4_nl_impl for one block without an importance matrix).
float quantize_iq4_block(const float* x, int n, uint8_t* L, int ntry) {
  const int8_t* values = kValuesIq4nl;
  float weight[QK_K];
  float amax = 0, max = 0;
  for (int j = 0; j < n; ++j) {
    weight[j] = x[j] * x[j];
    if (std::fabs(x[j]) > amax) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  float scale = 0;
  if (amax >= kGroupMaxEps) {
    float d = ntry > 0 ? -max / values[0] : max / values[0];
    float id = 1 / d;
    float sumqx = 0, sumq2 = 0;
    for (int j = 0; j < n; ++j) {
      const int l = best_index_int8(16, values, id * x[j]);
      const float q = values[l], w = weight[j];
      sumqx += w * q * x[j];
      sumq2 += w * q * q;
    }
    d = sumqx / sumq2;
    float best = d * sumqx;
    for (int itry = -ntry; itry <= ntry; ++itry) {
      id = (itry + values[0]) / max;
      sumqx = sumq2 = 0;
      for (int j = 0; j < n; ++j) {
        const float q = values[best_index_int8(16, values, id * x[j])], w = weight[j];
        sumqx += w * q * x[j];
        sumq2 += w * q * q;
      }
      if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
        d = sumqx / sumq2;
        best = d * sumqx;
      }
    }
    scale = d;
  }
  const float id = scale ? 1 / scale : 0;
  for (int j = 0; j < n; ++j) L[j] = static_cast<uint8_t>(best_index_int8(16, values, id * x[j]));
  return scale;
}

}  // namespace

void quantize_row_iq4_nl(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_iq4_nl*>(dst);
  uint8_t L[QK4_NL];
  for (int64_t i = 0; i < n / QK4_NL; ++i, x += QK4_NL) {
    y[i].d = fp32_to_fp16(quantize_iq4_block(x, QK4_NL, L, /*ntry=*/7));
    for (int j = 0; j < QK4_NL / 2; ++j) y[i].qs[j] = L[j] | (L[j + QK4_NL / 2] << 4);
  }
}

float vec_dot_iq4_nl_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq4_nl*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK4_NL; ++i) {
    int isum = 0;
    for (int j = 0; j < QK4_NL / 2; ++j)
      isum += kValuesIq4nl[x[i].qs[j] & 0xF] * y[i].qs[j] + kValuesIq4nl[x[i].qs[j] >> 4] * y[i].qs[j + QK4_NL / 2];
    sum += isum * (fp16_to_fp32(x[i].d) * fp16_to_fp32(y[i].d));
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_iq4_nl_q8_0_simd(int64_t n, const void* w, const void* a) {
  return simd::vec_dot_table_blocks_q8_0(kValuesIq4nl, n, static_cast<const block_iq4_nl*>(w), a,
                                         [](const block_iq4_nl& b) { return fp16_to_fp32_fast(b.d); });
}

// 2 to 4 tokens; one token uses vec_dot_iq4_nl_q8_0_simd (QuantTraits::wide_one_token).
void vec_dot_iq4_nl_q8_0w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                          int64_t out_stride) {
  simd::vec_dot_table_blocks_q8_0w(kValuesIq4nl, n, static_cast<const block_iq4_nl*>(w), a, act_stride, n_tokens, out,
                                   out_stride, [](const block_iq4_nl& b) { return fp16_to_fp32_fast(b.d); });
}
#endif

}  // namespace wasmlm
