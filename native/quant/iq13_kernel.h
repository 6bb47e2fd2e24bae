// The multi-token inner step shared by the IQ3_XXS, IQ3_S and IQ1_S kernels
// (wasm builds only): 32 decoded int8 weights with one scale against 1 to 4
// tokens' int16 activations.
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>

#include "quant/blocks.h"
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

}  // namespace wasmlm::simd
#endif
