// The relaxed-SIMD kernels of the ternary types (TQ1_0, TQ2_0) against Q8_K
// activations: each weight's t + 1 (0..2) is the 7-bit operand of the 8-bit
// dot, so the dot of t with the activations is dot(t + 1, a) - sum(a), the
// sum from the Q8_K block's bsums. The int16 lanes hold 16 dots of 2
// products of at most 128 * 2 each: below 2^15. The integer sum and the
// float arithmetic are the references': the same bits as their one-token
// dots, for one token or many (a prompt: each block decoded once for all).
//
// Levels (one per type) provides Block and levels(block, f), which calls
// f(k, c) for k = 0..15 with the block's values t + 1 of activations
// 16k..16k + 15 as the bytes of c (one token consumes each c as it comes).
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm::simd {

// A block's integer dot in 4 int32 lanes: the relaxed dots of t + 1 (acc's
// int16 lanes) less the sum of its 256 activations (from the bsums).
inline v128_t ternary_block_dot(v128_t acc, const block_q8_K& y) {
  const v128_t ones = wasm_i16x8_splat(1);
  return wasm_i32x4_sub(wasm_i32x4_extadd_pairwise_i16x8(acc), scaled_bsums(ones, ones, y.bsums));
}

// dot(t + 1, a) of a block's 256 activations q8, in int16 lanes.
template <typename Levels>
inline v128_t ternary_levels_dot(const typename Levels::Block& x, const int8_t* q8) {
  v128_t acc = wasm_i16x8_splat(0);
  Levels::levels(x, [&](int k, v128_t c) {
    acc = wasm_i16x8_add(acc, relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16 * k), c));
  });
  return acc;
}

template <typename Levels>
inline float ternary_dot_relaxed(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const typename Levels::Block*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const v128_t isum = ternary_block_dot(ternary_levels_dot<Levels>(x[i], y[i].qs), y[i]);
    sum += static_cast<float>(hsum_i32(isum)) * (y[i].d * fp16_to_fp32_fast(x[i].d));
  }
  return sum;
}

// Several tokens: each block's levels decoded once; each token's block sums
// reduced four tokens at a time and its float arithmetic done in the lanes
// of four tokens (token_quads.h).
template <typename Levels>
inline void ternary_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride,
                                   int n_tokens, float* out, int64_t out_stride) {
  const auto* x = static_cast<const typename Levels::Block*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum[kMaxWideTokens / 4], part[kMaxWideTokens];
  start_quads(sum, n_tokens, {part});
  for (int64_t i = 0; i < n / QK_K; ++i) {
    v128_t c[16];
    Levels::levels(x[i], [&](int k, v128_t ck) { c[k] = ck; });
    for_tokens(n_tokens, a + i * sizeof(block_q8_K), act_stride, [&](int t, const uint8_t* row) {
      const auto& y = *reinterpret_cast<const block_q8_K*>(row);
      v128_t acc = wasm_i16x8_splat(0);
      for (int k = 0; k < 16; ++k) acc = wasm_i16x8_add(acc, relaxed_dot_i8x16_i7x16(wasm_v128_load(y.qs + 16 * k), c[k]));
      part[t] = ternary_block_dot(acc, y);
    });
    add_block_d(sum, n_tokens, part, fp16_to_fp32_fast(x[i].d), a, act_stride, i);
  }
  store_quads(sum, n_tokens, out, out_stride);
}

}  // namespace wasmlm::simd
#endif
