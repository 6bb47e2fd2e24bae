// The multi-token kernel shared by Q4_1 and Q5_1 (weights w = d * q + m,
// q unsigned): per 32-weight block, the unsigned levels in four int16x8
// vectors (unpack(i, w) fills them), then per token d_w d_a (q . a) + m_w s_a.
#pragma once
#ifdef __wasm_simd128__

#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"
#include "quant/wide_activations.h"

namespace wasmlm::simd {

template <typename Block, typename Unpack>
void vec_dot_min_blocks_q8_1w(int64_t n, const Block* x, const void* a, int64_t act_stride, int n_tokens, float* out,
                              int64_t out_stride, Unpack&& unpack) {
  const auto* base = static_cast<const uint8_t*>(a);
  if (n_tokens == 1) {
    const auto* y = reinterpret_cast<const block_q8_1w*>(base);
    v128_t acc = wasm_f32x4_splat(0);
    float mins = 0;
    for (int64_t i = 0; i < n / 32; ++i) {
      v128_t w[4];
      unpack(x[i], w);
      acc = add_scaled(acc, dot_i16x32(w[0], w[1], w[2], w[3], y[i].qs), fp16_to_fp32_fast(x[i].d) * y[i].d);
      mins += fp16_to_fp32_fast(x[i].m) * y[i].s;
    }
    out[0] = hsum_f32(acc) + mins;
    return;
  }
  // Several tokens: each block is unpacked once; the token loop stays rolled,
  // its sums in memory (k_tokens.h says why). Every token gets one token's
  // arithmetic, so results do not depend on how tokens are grouped.
  v128_t acc[kMaxWideTokens];
  float mins[kMaxWideTokens];
  zero_fill(acc, n_tokens);
  zero_fill(mins, n_tokens);
  for (int64_t i = 0; i < n / 32; ++i) {
    v128_t w[4];
    unpack(x[i], w);
    const float d = fp16_to_fp32_fast(x[i].d), m = fp16_to_fp32_fast(x[i].m);
    for_tokens(n_tokens, base + i * sizeof(block_q8_1w), act_stride, [&](int t, const uint8_t* r) {
      const auto& y = *reinterpret_cast<const block_q8_1w*>(r);
      acc[t] = add_scaled(acc[t], dot_i16x32(w[0], w[1], w[2], w[3], y.qs), d * y.d);
      mins[t] += m * y.s;
    });
  }
  for (int t = 0; t < n_tokens; ++t) out[t * out_stride] = hsum_f32(acc[t]) + mins[t];
}

}  // namespace wasmlm::simd
#endif
