// The multi-token kernel of the 256-weight types whose weights decode to
// small signed integers under one scale per block (TQ1_0, TQ2_0), against
// Q8_K activations widened to int16: each block is decoded once into 256
// int16 weights, then dotted with 1 to 4 tokens; each token gets the
// one-token kernels' arithmetic, float(q . a) * (d_w * d_a), so the results
// are theirs to the bit.
#pragma once
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm::simd {

// decode(block, int16_t (&w)[QK_K]) writes the block's integer weights;
// scale(block) gives d_w.
template <typename Block, typename Decode, typename Scale>
void vec_dot_decoded_blocks_q8_Kw(int64_t n, const Block* x, const void* a, int64_t act_stride, int n_tokens,
                                  float* out, int64_t out_stride, Decode&& decode, Scale&& scale) {
  dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const block_q8_Kw* y[T];
    token_rows(a, act_stride, y);
    float sum[T] = {};
    alignas(16) int16_t q[QK_K];
    for (int64_t i = 0; i < n / QK_K; ++i) {
      decode(x[i], q);
      v128_t isum[T];
      for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_splat(0);
      for (int j = 0; j < QK_K; j += 32) {
        const v128_t w0 = wasm_v128_load(q + j), w1 = wasm_v128_load(q + j + 8);
        const v128_t w2 = wasm_v128_load(q + j + 16), w3 = wasm_v128_load(q + j + 24);
        for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_add(isum[t], dot_i16x32(w0, w1, w2, w3, y[t][i].qs + j));
      }
      const float d = scale(x[i]);
      for (int t = 0; t < T; ++t) sum[t] += static_cast<float>(hsum_i32(isum[t])) * (d * y[t][i].d);
    }
    for (int t = 0; t < T; ++t) out[t * out_stride] = sum[t];
  });
}

}  // namespace wasmlm::simd
#endif
