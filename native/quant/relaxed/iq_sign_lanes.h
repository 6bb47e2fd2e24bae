// The i-quants' sign bytes in vector lanes, for their relaxed one-token
// kernels: a 7-bit sign index per octet (8 weights) and, as its eighth bit,
// the parity of the seven (kIqSigns), found for 16 octets at once; then each
// 16 activations take the signs of their two octets. Scalar index arithmetic
// per octet was most of these kernels' instructions, and V8 in Chromium
// compiled it worst.
#pragma once
#ifdef __wasm_simd128__

#include <wasm_simd128.h>

#include <cstdint>

#include "quant/relaxed/relaxed_simd.h"

namespace wasmlm::simd {

struct IqSignLanes {
  uint8_t odd_parity[16];  // 0x80 where the 4-bit index has odd parity
  uint8_t spread[8][16];   // sign bytes 2k and 2k + 1 over 8 bytes each
  uint8_t bits[16];        // bit j of a sign byte, for byte j of 8
};

alignas(16) inline constexpr IqSignLanes kIqSignLanes = [] {
  IqSignLanes t{};
  for (int i = 0; i < 16; ++i) {
    t.odd_parity[i] = (__builtin_popcount(i) & 1) ? 0x80 : 0;
    t.bits[i] = static_cast<uint8_t>(1 << (i % 8));
    for (int k = 0; k < 8; ++k) t.spread[k][i] = static_cast<uint8_t>(2 * k + i / 8);
  }
  return t;
}();

// A table (or buffer) through a pointer clang cannot see into: its rows stay
// loads at their uses (as constants, V8 builds each in registers and spills them in
// these unrolled kernels).
template <typename T>
inline T* unseen(T* table) {
  __asm__("" : "+r"(table));
  return table;
}

// s: 7-bit sign indices in bytes (bit 7 clear); the sign bytes: each index
// with the parity of its bits as bit 7, from the low 4 bits xor the high 3.
inline v128_t iq_sign_bytes(const IqSignLanes* t, v128_t s) {
  const v128_t fold = wasm_v128_and(wasm_v128_xor(s, wasm_u16x8_shr(s, 4)), wasm_i8x16_splat(0x0F));
  return wasm_v128_or(s, relaxed_swizzle(wasm_v128_load(t->odd_parity), fold));
}

// Four group words of IQ2_XXS or IQ3_XXS (4 7-bit sign indices, octets 0-3
// of the group from bit 0 up, and the 4-bit scale in bits 28-31): the sign
// bytes of their 16 octets in order.
inline v128_t iq_word_sign_bytes(const IqSignLanes* t, v128_t words) {
  const v128_t m127 = wasm_i32x4_splat(127);
  const v128_t s = wasm_v128_or(
      wasm_v128_or(wasm_v128_and(words, m127), wasm_i32x4_shl(wasm_v128_and(wasm_u32x4_shr(words, 7), m127), 8)),
      wasm_v128_or(wasm_i32x4_shl(wasm_v128_and(wasm_u32x4_shr(words, 14), m127), 16),
                   wasm_i32x4_shl(wasm_v128_and(wasm_u32x4_shr(words, 21), m127), 24)));
  return iq_sign_bytes(t, s);
}

// Their groups' scales as the reference uses them, 2 s + 1, in int32 lanes.
inline v128_t iq_word_scales(v128_t words) {
  return wasm_v128_or(wasm_i32x4_shl(wasm_u32x4_shr(words, 28), 1), wasm_i32x4_splat(1));
}

// The 16 activations q8 with the signs of octets 2k and 2k + 1 of the sign
// bytes `signs` (bit j: weight j negative) applied: z - (a ^ z), z = 0xFF
// where the weight is positive, exact as Q8_K keeps |a| <= 127.
inline v128_t iq_signed_activations(const IqSignLanes* t, v128_t signs, int k, const int8_t* q8) {
  const v128_t bit = wasm_v128_load(t->bits);
  const v128_t spread = relaxed_swizzle(signs, wasm_v128_load(t->spread[k]));
  const v128_t z = wasm_i8x16_eq(wasm_v128_and(spread, bit), wasm_i8x16_splat(0));
  return wasm_i8x16_sub(z, wasm_v128_xor(wasm_v128_load(q8), z));
}

}  // namespace wasmlm::simd
#endif
