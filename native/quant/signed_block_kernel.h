// The multi-token kernel shared by the 32-weight types with w = d * q, q
// signed (Q4_0, Q5_0, Q8_0, IQ4_NL, MXFP4), against Q8_0 activations widened to
// int16: per block, the signed levels in four int16x8 vectors (unpack(block,
// w) fills them) are dotted with 1 to 4 tokens, each getting one token's
// arithmetic, d_w d_a (q . a), lane by lane.
#pragma once
#ifdef __wasm_simd128__

#include "quant/fp16.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm::simd {

// scale(block) gives d_w: the block's fp16 d unless given.
template <typename Block, typename Unpack, typename Scale>
void vec_dot_signed_blocks_q8_0w(int64_t n, const Block* x, const void* a, int64_t act_stride, int n_tokens,
                                 float* out, int64_t out_stride, Unpack&& unpack, Scale&& scale) {
  dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const block_q8_0w* y[T];
    token_rows(a, act_stride, y);
    v128_t acc[T];
    for (int t = 0; t < T; ++t) acc[t] = wasm_f32x4_splat(0);
    for (int64_t i = 0; i < n / 32; ++i) {
      v128_t w[4];
      unpack(x[i], w);
      const float d = scale(x[i]);
      for (int t = 0; t < T; ++t)
        acc[t] = add_scaled(acc[t], dot_i16x32(w[0], w[1], w[2], w[3], y[t][i].qs), d * y[t][i].d);
    }
    for (int t = 0; t < T; ++t) out[t * out_stride] = hsum_f32(acc[t]);
  });
}

template <typename Block, typename Unpack>
void vec_dot_signed_blocks_q8_0w(int64_t n, const Block* x, const void* a, int64_t act_stride, int n_tokens,
                                 float* out, int64_t out_stride, Unpack&& unpack) {
  vec_dot_signed_blocks_q8_0w(n, x, a, act_stride, n_tokens, out, out_stride, unpack,
                              [](const Block& b) { return fp16_to_fp32_fast(b.d); });
}

}  // namespace wasmlm::simd
#endif
