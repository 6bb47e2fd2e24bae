// The multi-token inner loop of the K-quant kernels (wasm builds only): 64
// weights, already multiplied by their sub-block scales in int16, against
// every token's int16 activations.
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>

#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm::simd {

// For every token t < n_tokens, isum[t] = (first ? 0 : isum[t]) + the dot of
// the 8 int16x8 vectors w with 64 of token t's activations: w[2r] and
// w[2r + 1] against the 16 starting at element runs[r] = {0, R1, R2, R3}[r]
// of (const int16_t*)((const uint8_t*)y0 + t * act_stride). (Constant runs:
// computed ones cost 10% in address arithmetic.)
//
// The loop (for_tokens) stays rolled and isum lives in memory: unrolled over
// tokens, LLVM hoists every token's loads to the top and V8, with 16 vector
// registers, spills far more than this loop's one load and store per token.
template <int R1, int R2, int R3>
inline void dot64_tokens(const v128_t (&w)[8], const int16_t* y0, int64_t act_stride,
                         int n_tokens, bool first, v128_t* isum) {
  constexpr int runs[4] = {0, R1, R2, R3};
  for_tokens(n_tokens, reinterpret_cast<const uint8_t*>(y0), act_stride, [&](int t, const uint8_t* row) {
    const auto* y = reinterpret_cast<const int16_t*>(row);
    const v128_t s01 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(w[0], wasm_v128_load(y + runs[0])),
                                      wasm_i32x4_dot_i16x8(w[1], wasm_v128_load(y + runs[0] + 8)));
    const v128_t s23 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(w[2], wasm_v128_load(y + runs[1])),
                                      wasm_i32x4_dot_i16x8(w[3], wasm_v128_load(y + runs[1] + 8)));
    const v128_t s45 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(w[4], wasm_v128_load(y + runs[2])),
                                      wasm_i32x4_dot_i16x8(w[5], wasm_v128_load(y + runs[2] + 8)));
    const v128_t s67 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(w[6], wasm_v128_load(y + runs[3])),
                                      wasm_i32x4_dot_i16x8(w[7], wasm_v128_load(y + runs[3] + 8)));
    const v128_t s = wasm_i32x4_add(wasm_i32x4_add(s01, s23), wasm_i32x4_add(s45, s67));
    isum[t] = first ? s : wasm_i32x4_add(isum[t], s);
  });
}

}  // namespace wasmlm::simd
#endif
