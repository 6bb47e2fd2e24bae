// Pieces the relaxed Q4_K and Q5_K kernels share: both store 8 sub-blocks of
// 32 weights with 6-bit scales and mins (k_scales.h) and differ only in how
// the levels of a sub-block pair are unpacked.
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>

#include "quant/relaxed/relaxed_simd.h"

namespace wasmlm::simd {

// Sub-blocks J and J + 1 against their 64 activations a: lo0/lo1 hold the
// levels of sub-block J (weights 0-15, 16-31), hi0/hi1 those of J + 1. Each
// sub-block's two dots are summed in int16 (|sum| <= 4 * 128 * 31) and scaled
// by lane J / J + 1 of sc16 with one i32x4.dot_i16x8; returns acc plus both.
template <int J>
inline v128_t scaled_pair_dot(const int8_t* a, v128_t lo0, v128_t lo1, v128_t hi0, v128_t hi1, v128_t sc16,
                              v128_t acc) {
  const v128_t lo = wasm_i16x8_add(relaxed_dot_i8x16_i7x16(wasm_v128_load(a), lo0),
                                   relaxed_dot_i8x16_i7x16(wasm_v128_load(a + 16), lo1));
  const v128_t hi = wasm_i16x8_add(relaxed_dot_i8x16_i7x16(wasm_v128_load(a + 32), hi0),
                                   relaxed_dot_i8x16_i7x16(wasm_v128_load(a + 48), hi1));
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(lo, wasm_i16x8_shuffle(sc16, sc16, J, J, J, J, J, J, J, J)));
  return wasm_i32x4_add(
      acc, wasm_i32x4_dot_i16x8(hi, wasm_i16x8_shuffle(sc16, sc16, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1)));
}

// sum_j m_j (bsums[2j] + bsums[2j + 1]) in 4 lanes: each of the 8 mins (m16)
// applies to two 16-value sums of the activations.
inline v128_t mins_dot(v128_t m16, const int16_t* bsums) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_v128_load(bsums), wasm_i16x8_shuffle(m16, m16, 0, 0, 1, 1, 2, 2, 3, 3)),
                        wasm_i32x4_dot_i16x8(wasm_v128_load(bsums + 8), wasm_i16x8_shuffle(m16, m16, 4, 4, 5, 5, 6, 6, 7, 7)));
}

}  // namespace wasmlm::simd
#endif
