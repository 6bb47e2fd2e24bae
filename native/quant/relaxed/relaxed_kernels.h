// Kernels over relaxed SIMD's 8-bit dot product (see relaxed_simd.h), used in
// place of the SIMD-128 ones when relaxed_simd_active(). Same signatures and
// bits as the kernels they replace.
#pragma once
#include <cstdint>

namespace wasmlm {

#ifdef __wasm_simd128__
float vec_dot_q4_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_q5_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_q6_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
#endif

}  // namespace wasmlm
