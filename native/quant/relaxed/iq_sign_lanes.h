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

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"

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

// ls = 2 s + 1 of 4-bit scales packed two to a byte (low nibble first), as
// int16 lanes: ls[0] from packed bytes 0-3, ls[1] from bytes 4-7 (IQ2_XS,
// IQ2_S: 16 scales of 16 weights; IQ3_S: 8 scales of 32, ls[0] only).
inline void iq_nibble_scale_lanes(v128_t packed, v128_t ls[2]) {
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  const v128_t nib = wasm_i8x16_shuffle(wasm_v128_and(packed, m4), wasm_v128_and(wasm_u16x8_shr(packed, 4), m4), 0, 16, 1,
                                        17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const v128_t ls8 = wasm_v128_or(wasm_i8x16_add(nib, nib), wasm_i8x16_splat(1));
  ls[0] = wasm_u16x8_extend_low_u8x16(ls8);
  ls[1] = wasm_u16x8_extend_high_u8x16(ls8);
}

// The sign bytes and int16 scales (2 s + 1) of a block's 8 groups from
// their words (IQ2_XXS, IQ3_XXS): word0 groups 0-3, word1 groups 4-7.
inline void iq_word_lanes(const IqSignLanes* t, v128_t word0, v128_t word1, v128_t signs[2], v128_t ls[2]) {
  signs[0] = iq_word_sign_bytes(t, word0);
  signs[1] = iq_word_sign_bytes(t, word1);
  ls[0] = wasm_i16x8_narrow_i32x4(iq_word_scales(word0), iq_word_scales(word1));
}

// The one-token dot of a type of 8 groups of 32 weights whose magnitudes (at
// most kMaxLevel) take a sign per weight, with kScalesPerGroup scales per
// group (1: IQ3_XXS, IQ3_S, IQ2_XXS; 2, one per 16 weights: IQ2_XS, IQ2_S),
// without its factor. lanes(block, t, signs, ls) gives the sign bytes of
// octets 0-15 and 16-31 (bit j: weight j negative) and the scales 2 s + 1
// in int16 lanes (ls[0] the first 8, ls[1] the next 8); grid16(block, g)
// the magnitudes of weights 16g..16g+15 (called after lanes, for the same
// block). The integer sums and the float arithmetic are the reference's.
// The groups are unrolled, so every table row's offset is a constant
// (rolled: 0.77x in Chromium).
template <typename Block, int kMaxLevel, int kScalesPerGroup, typename Lanes, typename Grid16>
inline float iq_sign_groups_dot(int64_t n, const void* w, const void* activations, Lanes&& lanes, Grid16&& grid16) {
  static_assert(kScalesPerGroup == 1 || kScalesPerGroup == 2);
  static_assert(2 * (3 - kScalesPerGroup) * kMaxLevel * 127 < 32768, "int16 lanes hold the products of one scale");
  const auto* x = static_cast<const Block*>(w);
  const auto* y = static_cast<const block_q8_K*>(activations);
  const IqSignLanes* t = unseen(&kIqSignLanes);
  const SplatIndices* splat = unseen(&kSplatIndices);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    v128_t signs[2], ls[2];
    lanes(x[i], t, signs, ls);
    v128_t isum = wasm_i32x4_splat(0);
#pragma clang loop unroll(full)
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      v128_t p[2];
      for (int half = 0; half < 2; ++half) {
        const int g = 2 * ib + half;  // octets 2 g, 2 g + 1
        p[half] = relaxed_dot_i8x16_i7x16(iq_signed_activations(t, signs[g >> 3], g & 7, y[i].qs + 16 * g), grid16(x[i], g));
      }
      if constexpr (kScalesPerGroup == 1) {
        isum = wasm_i32x4_add(isum, wasm_i32x4_dot_i16x8(wasm_i16x8_add(p[0], p[1]), splat_i16_lane(ls[0], ib, *splat)));
      } else {
        for (int half = 0; half < 2; ++half) {
          const int g = 2 * ib + half;
          isum = wasm_i32x4_add(isum, wasm_i32x4_dot_i16x8(p[half], splat_i16_lane(ls[g >> 3], g & 7, *splat)));
        }
      }
    }
    sum += (fp16_to_fp32_fast(x[i].d) * y[i].d) * static_cast<float>(hsum_i32(isum));
  }
  return sum;
}

}  // namespace wasmlm::simd
#endif
