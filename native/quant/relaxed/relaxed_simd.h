// Relaxed SIMD's i16x8.relaxed_dot_i8x16_i7x16_s (pmaddubsw on x86: 16
// multiply-adds of int8 by 7-bit values in one instruction; SIMD-128 has no
// 8-bit dot product) and i8x16.relaxed_swizzle (a bare pshufb: SIMD-128's
// swizzle adds a saturating add to zero the lanes of indices past 15).
// Debian's clang 14 cannot emit them, so the source writes
// i16x8.q15mulr_sat_s and i8x16.avgr_u in their places (same operand and
// result types, used nowhere else) and the build rewrites those opcodes into
// the relaxed ones in a second copy of each .wasm (wasm/relaxed-simd.mjs);
// i32x4.relaxed_dot_i8x16_i7x16_add_s, with three operands, is a pair of
// i16x8.avgr_u.
// The loader picks that copy where the engine validates relaxed SIMD.
// Both placeholders are commutative and the relaxed instructions are not:
// clang may swap their operands, which the SIMD-vs-scalar tests catch. The
// swizzle is written in asm, which keeps them in order; the dot is still a
// builtin and has not been swapped so far (if it is, write it in asm too).
// relaxed_simd_active() tells at run time which binary this is: the kernels
// here are chosen only when it is true.
#pragma once
#ifdef __wasm_simd128__

#include <wasm_simd128.h>

#include <cstdint>

namespace wasmlm {

bool relaxed_simd_active();
// Whether the kernels may use i32x4.relaxed_dot_i8x16_i7x16_add_s: not on V8
// before 11.4 (Node 20 with relaxed SIMD by flag), which returned twice the
// dot without the accumulator in kernels, and only if it gives the dot plus
// the accumulator once here. Else the int16 dots. Only meaningful where
// relaxed_simd_active().
bool relaxed_dot_add_exact();

// How the engine computes the dot-add, told by its result for a 7-bit
// operand out of range (0xFF), where the spec lets engines differ:
// kUnsignedExact: 0xFF as 255, the 4 products summed exactly: x86's
//   vpdpbusd (V8 where the CPU has AVX-VNNI), one instruction;
// kPairsSaturated: 255, pairs of products saturated to int16: x86's
//   pmaddubsw, pmaddwd and an add, three instructions (x86 without it);
// kSigned: 0xFF as -1: ARM's sdot (or x86's vpdpbssd), one instruction;
// kOther: none of these.
enum class DotAddLowering { kUnsignedExact, kPairsSaturated, kSigned, kOther };
DotAddLowering relaxed_dot_add_lowering();
// Whether the dot-add is exact and reads its 7-bit operand as unsigned bytes
// (kUnsignedExact): then that operand may be any byte, 0..255 (Q8_0's
// kernels on it).
bool relaxed_dot_add_unsigned();
// Whether the dot-add is exact and one instruction (kUnsignedExact or
// kSigned): where the kernels built around it pay.
bool relaxed_dot_add_one_instruction();

// The integer dots of the 4-row prompt tiles (group_kernel_relaxed.h), the
// same bits either way: int16 dots, or 8-bit dot-adds where those are exact
// and one instruction (Chromium on Zen 5 with AVX-VNNI: Q4_0 tiles 14%
// faster; where the dot-add was three instructions, 30% slower). A lowering
// rather than a timing decides: at the first prompts engines still run
// baseline code (V8's Liftoff), whose speeds ranked the two the other way.
enum class TileDots { kInt16, kDotAdd };
TileDots relaxed_tile_dots();
// Tests and benchmarks: one kind from now on (kDotAdd only where
// relaxed_dot_add_exact()), or back to the choice by the lowering.
void pin_relaxed_tile_dots(TileDots dots);
void unpin_relaxed_tile_dots();

namespace simd {

// Lane k of the int16 result: a[2k] b[2k] + a[2k+1] b[2k+1]; a int8, b in 0..127.
inline v128_t relaxed_dot_i8x16_i7x16(v128_t a, v128_t b) { return wasm_i16x8_q15mulr_sat(a, b); }

// Lane k: table[idx[k]], for indices in 0..15 only (past 15 the relaxed
// swizzle may give either 0 or table[idx[k] % 16]). In asm: as a builtin,
// clang swapped the table and the indices when both were loaded values.
inline v128_t relaxed_swizzle(v128_t table, v128_t idx) {
  v128_t r;
  __asm__("local.get %1\n\tlocal.get %2\n\ti8x16.avgr_u\n\tlocal.set %0" : "=r"(r) : "r"(table), "r"(idx));
  return r;
}

// Lane k: acc[k] + a[4k] b[4k] + ... + a[4k+3] b[4k+3]; a int8, b in 0..127
// (i32x4.relaxed_dot_i8x16_i7x16_add_s: one vpdpbusd where x86 has AVX-VNNI,
// one sdot on ARM with the dot product extension; pmaddubsw, pmaddwd and an
// add on other x86). Its placeholder is two i16x8.avgr_u, (a (b acc)), in
// asm so that clang keeps them and their operands in order; the build
// rewrites the pair (wasm/relaxed-simd.mjs), and fails where binaryen split
// one (it did once, most likely sharing the inner (b acc) of two dot-adds
// with the same levels and a zero accumulator: two tokens per pass).
inline v128_t relaxed_dot_add_i8x16_i7x16(v128_t a, v128_t b, v128_t acc) {
  v128_t r;
  __asm__("local.get %1\n\tlocal.get %2\n\tlocal.get %3\n\ti16x8.avgr_u\n\ti16x8.avgr_u\n\tlocal.set %0"
          : "=r"(r)
          : "r"(a), "r"(b), "r"(acc));
  return r;
}

// Tables of byte indices for the relaxed swizzles below.
struct SplatIndices {
  alignas(16) uint8_t i16[8][16];  // int16 lane k: bytes 2k, 2k + 1 repeated
  alignas(16) uint8_t i8[16][16];  // byte k repeated
};
inline constexpr SplatIndices kSplatIndices = [] {
  SplatIndices t{};
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j) {
      if (k < 8) t.i16[k][j] = static_cast<uint8_t>(2 * k + j % 2);
      t.i8[k][j] = static_cast<uint8_t>(k);
    }
  return t;
}();

// int16 lane k (0..7, not a constant) of v in every lane: one pshufb.
// t: kSplatIndices, or the same through a pointer clang cannot see into
// (simd::unseen), which keeps the rows loads where clang would make them
// constants for V8 to build in registers.
inline v128_t splat_i16_lane(v128_t v, int k, const SplatIndices& t = kSplatIndices) {
  return relaxed_swizzle(v, wasm_v128_load(t.i16[k]));
}
// Byte k (0..15) of v in every byte.
inline v128_t splat_i8_lane(v128_t v, int k, const SplatIndices& t = kSplatIndices) {
  return relaxed_swizzle(v, wasm_v128_load(t.i8[k]));
}

// 32 int8 activations a[0..31] against levels lo (for a[0..15]) and hi
// (a[16..31]), in 0..127: lane k holds 4 of the products, summed in int16.
inline v128_t relaxed_dot32(const int8_t* a, v128_t lo, v128_t hi) {
  return wasm_i16x8_add(relaxed_dot_i8x16_i7x16(wasm_v128_load(a), lo),
                        relaxed_dot_i8x16_i7x16(wasm_v128_load(a + 16), hi));
}

}  // namespace simd
}  // namespace wasmlm
#endif
