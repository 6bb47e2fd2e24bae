// Kernels over relaxed SIMD's 8-bit dot product (see relaxed_simd.h), used in
// place of the SIMD-128 ones when relaxed_simd_active(). The one-token ones
// have the signatures and bits of the kernels they replace.
#pragma once
#include <cstdint>

namespace wasmlm {

#ifdef __wasm_simd128__
float vec_dot_q4_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_q5_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_q6_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
// Q4_0 against group_q8_0r activations (wide_activations.h), 1 to
// kMaxWideTokens tokens per pass (QuantTraits::vec_dot_wide).
void vec_dot_q4_0_q8_0g_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                                int64_t out_stride);
#endif

}  // namespace wasmlm
