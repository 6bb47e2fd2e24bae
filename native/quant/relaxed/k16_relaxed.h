// Pieces the relaxed Q2_K, Q3_K and Q6_K kernels share: all three have 16
// sub-blocks of 16 weights with unsigned levels (Q2_K 0..3; Q3_K 0..7 and
// Q6_K 0..63 once the offset is taken out) and one integer scale each.
#pragma once
#ifdef __wasm_simd128__

#include <cstddef>
#include <cstdint>

#include "quant/blocks.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm::simd {

// Sub-blocks J and J + 1 against their 32 int8 activations a: l0 / l1 hold
// their 16 levels each (0..127). Each dot lands in int16 lanes (two products
// per lane) and is scaled by its lane J % 8 / J % 8 + 1 of sc16 (the scales
// of sub-blocks J / 8 * 8 on) with one i32x4.dot_i16x8; returns acc plus both.
template <int J>
inline v128_t scaled_pair16(const int8_t* a, v128_t l0, v128_t l1, v128_t sc16, v128_t acc) {
  constexpr int K = J % 8;
  const v128_t p0 = relaxed_dot_i8x16_i7x16(wasm_v128_load(a), l0);
  const v128_t p1 = relaxed_dot_i8x16_i7x16(wasm_v128_load(a + 16), l1);
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(p0, wasm_i16x8_shuffle(sc16, sc16, K, K, K, K, K, K, K, K)));
  return wasm_i32x4_add(
      acc, wasm_i32x4_dot_i16x8(p1, wasm_i16x8_shuffle(sc16, sc16, K + 1, K + 1, K + 1, K + 1, K + 1, K + 1, K + 1, K + 1)));
}

// The 2-bit fields at bit `shift` of each byte of v, as bytes 0..3 (a 16-bit
// shift, native on x86 unlike u8x16.shr: the mask drops what crosses bytes).
inline v128_t crumbs(v128_t v, int shift) {
  return wasm_v128_and(wasm_u16x8_shr(v, shift), wasm_i8x16_splat(3));
}

// Several tokens: sub-blocks J..J + 3 (levels l[0..3]) of super-block i
// against every token's 64 activations from element 16 J (Q8_K rows
// act_stride bytes apart from a); each token's isum gains what two
// scaled_pair16 calls give one token (kFirst: is set to it).
template <int J, bool kFirst = false>
inline void quad16_tokens(const v128_t (&l)[4], v128_t sc16, const uint8_t* a, int64_t i, int64_t act_stride,
                          int n_tokens, v128_t* isum) {
  constexpr int K = J % 8;
  const v128_t s0 = wasm_i16x8_shuffle(sc16, sc16, K, K, K, K, K, K, K, K);
  const v128_t s1 = wasm_i16x8_shuffle(sc16, sc16, K + 1, K + 1, K + 1, K + 1, K + 1, K + 1, K + 1, K + 1);
  const v128_t s2 = wasm_i16x8_shuffle(sc16, sc16, K + 2, K + 2, K + 2, K + 2, K + 2, K + 2, K + 2, K + 2);
  const v128_t s3 = wasm_i16x8_shuffle(sc16, sc16, K + 3, K + 3, K + 3, K + 3, K + 3, K + 3, K + 3, K + 3);
  const uint8_t* first = a + i * sizeof(block_q8_K) + offsetof(block_q8_K, qs) + 16 * J;
  for_tokens(n_tokens, first, act_stride, [&](int t, const uint8_t* q8) {
    const v128_t p0 = relaxed_dot_i8x16_i7x16(wasm_v128_load(q8), l[0]);
    const v128_t p1 = relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16), l[1]);
    const v128_t p2 = relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 32), l[2]);
    const v128_t p3 = relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 48), l[3]);
    const v128_t pair0 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(p0, s0), wasm_i32x4_dot_i16x8(p1, s1));
    const v128_t pair1 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(p2, s2), wasm_i32x4_dot_i16x8(p3, s3));
    const v128_t quad = wasm_i32x4_add(pair0, pair1);
    isum[t] = kFirst ? quad : wasm_i32x4_add(isum[t], quad);
  });
}

}  // namespace wasmlm::simd
#endif
