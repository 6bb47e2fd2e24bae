// The multi-token inner step shared by the IQ3_XXS, IQ3_S, IQ4_XS and IQ1_S
// kernels (wasm builds only): 32 decoded int8 weights with one scale against
// 1 to 4 tokens' int16 activations; and the whole kernels of the types made
// of such groups only (IQ3_XXS, IQ3_S, IQ4_XS).
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm::simd {

// isum[t] += ls * the dot of 32 int8 weights (lo: 0-15, hi: 16-31) with
// token t's activations at `at` of block i. One token: the unscaled dot
// times ls in int32; several: the weights scaled in int16 once (|w * ls| <
// 2^15) and shared.
template <int T>
inline void iq_isum_scaled(v128_t lo, v128_t hi, int16_t ls, const block_q8_Kw* const* y, int64_t i, int at,
                           v128_t* isum) {
  const v128_t w0 = wasm_i16x8_extend_low_i8x16(lo), w1 = wasm_i16x8_extend_high_i8x16(lo);
  const v128_t w2 = wasm_i16x8_extend_low_i8x16(hi), w3 = wasm_i16x8_extend_high_i8x16(hi);
  if constexpr (T == 1) {
    isum[0] = wasm_i32x4_add(isum[0], wasm_i32x4_mul(dot_i16x32(w0, w1, w2, w3, y[0][i].qs + at), wasm_i32x4_splat(ls)));
  } else {
    const v128_t v = wasm_i16x8_splat(ls);
    const v128_t s0 = wasm_i16x8_mul(w0, v), s1 = wasm_i16x8_mul(w1, v);
    const v128_t s2 = wasm_i16x8_mul(w2, v), s3 = wasm_i16x8_mul(w3, v);
    for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_add(isum[t], dot_i16x32(s0, s1, s2, s3, y[t][i].qs + at));
  }
}

// The kernels of a type whose 256 weights are 8 groups of 32 int8 weights
// with an integer scale each: Groups::Block; Groups::decode(block, ib, &lo,
// &hi) (weights 0-15, 16-31); Groups::scale(block, ib); Groups::kFactor,
// ggml's multiplier of the whole sum. Per block sum += (d * d8) * isum, as
// ggml's generic dot: one token against Q8_K, or 1 to 4 against int16
// activations (the same bits).
template <typename Groups>
float iq_groups_vec_dot(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const typename Groups::Block*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32_fast(x[i].d) * y[i].d;
    v128_t isum = wasm_i32x4_splat(0);
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      v128_t lo, hi;
      Groups::decode(x[i], ib, &lo, &hi);
      const v128_t s = block_dot_i8x32(lo, hi, y[i].qs + 32 * ib);
      isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s, wasm_i32x4_splat(Groups::scale(x[i], ib))));
    }
    sum += d * static_cast<float>(hsum_i32(isum));
  }
  return Groups::kFactor * sum;
}

template <typename Groups>
void iq_groups_vec_dot_wide(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                            int64_t out_stride) {
  const auto* x = static_cast<const typename Groups::Block*>(w);
  dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const block_q8_Kw* y[T];
    token_rows(a, act_stride, y);
    float sum[T] = {};
    for (int64_t i = 0; i < n / QK_K; ++i) {
      v128_t isum[T];
      for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_splat(0);
      for (int ib = 0; ib < QK_K / 32; ++ib) {
        v128_t lo, hi;
        Groups::decode(x[i], ib, &lo, &hi);
        iq_isum_scaled<T>(lo, hi, static_cast<int16_t>(Groups::scale(x[i], ib)), y, i, 32 * ib, isum);
      }
      const float dx = fp16_to_fp32_fast(x[i].d);
      for (int t = 0; t < T; ++t) sum[t] += (dx * y[t][i].d) * static_cast<float>(hsum_i32(isum[t]));
    }
    for (int t = 0; t < T; ++t) out[t * out_stride] = Groups::kFactor * sum[t];
  });
}

}  // namespace wasmlm::simd
#endif
