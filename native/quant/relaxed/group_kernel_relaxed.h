// The relaxed-SIMD kernel shared by the 32-weight types with unsigned levels
// (Q4_0, Q5_0: w = d (q - offset); Q4_1: w = d q + m; MXFP4: its signed
// table values plus 12, offset 12), for 1 to
// kMaxWideTokens tokens. The levels (0..31) are the 7-bit operand of the
// 8-bit dot and the int8 activations the other, so a block's 32 products take
// two dots into int16 lanes (|sum| <= 4 * 127 * 31) and one widening add.
// Once the dot is this cheap, the float work per block and token dominates
// (convert, scale, add), so it is done for 4 blocks at once: their integer
// dots are reduced into the 4 lanes of one vector (hsum4_i32), block 4g + k
// in lane k, and
//   offset types: acc += float(dot - offset * sum(a)) * (d_w * d_a)
//   min types:    acc += float(dot) * (d_w * d_a) + m_w * s_a
// lane by lane; the result is the sum of acc's lanes. Each token gets exactly
// that arithmetic whatever the number of tokens in the call, so a batched
// prompt gives the bits of token-by-token decoding.
//
// Levels (one per type) provides: Block; kOffset (0 for the min types);
// kMaxLevel, its largest level; levels(block, &lo, &hi), the levels of
// weights 0-15 and 16-31 as bytes in 0..63 (so that a lane's 4 products stay
// within int16); scale_at(block), the table entry of its scale, and, for the
// min types, min_at(block).
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>
#include <type_traits>

#include "quant/blocks.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"
#include "quant/wide_activations.h"

namespace wasmlm::simd {

template <typename Levels>
struct RelaxedGroups {
  using Block = typename Levels::Block;
  static constexpr bool kHasMin = Levels::kOffset == 0;
  static_assert(Levels::kOffset >= 0 && Levels::kOffset <= 63 && Levels::kMaxLevel <= 63);
  // Where 16 products of a level and an activation (|a| <= 127, as Q8_0
  // quantization gives) fit int16, the 4 blocks' dots are summed in int16
  // lanes before they widen (13 vector ops against 17 and 4 constant loads).
  static constexpr bool kInt16Sums = 16 * 127 * Levels::kMaxLevel <= 32767;

  // offset * sum(a), lane by lane (a shift where the offset is a power of 2).
  static v128_t offset_times(v128_t sums) {
    constexpr int k = Levels::kOffset;
    if constexpr ((k & (k - 1)) == 0) {
      return wasm_i32x4_shl(sums, __builtin_ctz(k));
    } else {
      return wasm_i32x4_mul(sums, wasm_i32x4_splat(k));
    }
  }
  using Act = std::conditional_t<kHasMin, group_q8_1r, group_q8_0r>;

  // The integer dots of 4 blocks, each as the int16x8 that relaxed_dot32
  // gives (4 products per lane), reduced to block k's sum in lane k.
  static v128_t sum_blocks(v128_t a, v128_t b, v128_t c, v128_t d) {
    if constexpr (kInt16Sums) {
      // Lanes a b a b ... (8 products each), then a b c d a b c d (16).
      const v128_t ab = wasm_i16x8_add(wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11),
                                       wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15));
      const v128_t cd = wasm_i16x8_add(wasm_i16x8_shuffle(c, d, 0, 8, 1, 9, 2, 10, 3, 11),
                                       wasm_i16x8_shuffle(c, d, 4, 12, 5, 13, 6, 14, 7, 15));
      const v128_t abcd = wasm_i16x8_add(wasm_i32x4_shuffle(ab, cd, 0, 4, 1, 5), wasm_i32x4_shuffle(ab, cd, 2, 6, 3, 7));
      return wasm_i32x4_add(wasm_i32x4_extend_low_i16x8(abcd), wasm_i32x4_extend_high_i16x8(abcd));
    } else {
      return hsum4_i32(wasm_i32x4_extadd_pairwise_i16x8(a), wasm_i32x4_extadd_pairwise_i16x8(b),
                       wasm_i32x4_extadd_pairwise_i16x8(c), wasm_i32x4_extadd_pairwise_i16x8(d));
    }
  }

  // A group of a weight row: levels, scales and mins of blocks [0, count);
  // the blocks past count (a row's last, partial group) are zero.
  struct Group {
    v128_t lo[4], hi[4];
    v128_t d, m;
  };

  // The floats at 4 table entries, each loaded straight into its lane (V8
  // spilled the scalars of f32x4_make to the stack).
  static v128_t lanes(const float* a, const float* b, const float* c, const float* d) {
    v128_t v = wasm_v128_load32_zero(a);
    v = wasm_v128_load32_lane(b, v, 1);
    v = wasm_v128_load32_lane(c, v, 2);
    return wasm_v128_load32_lane(d, v, 3);
  }
  static v128_t scales(const Block* x) {
    return lanes(Levels::scale_at(x[0]), Levels::scale_at(x[1]), Levels::scale_at(x[2]), Levels::scale_at(x[3]));
  }
  static v128_t mins(const Block* x) {
    return lanes(Levels::min_at(x[0]), Levels::min_at(x[1]), Levels::min_at(x[2]), Levels::min_at(x[3]));
  }

  static void load(const Block* x, int count, Group& g) {
    float d[4] = {0, 0, 0, 0}, m[4] = {0, 0, 0, 0};
    for (int b = 0; b < 4; ++b) {
      if (b < count) {
        Levels::levels(x[b], &g.lo[b], &g.hi[b]);
        d[b] = *Levels::scale_at(x[b]);
        if constexpr (kHasMin) m[b] = *Levels::min_at(x[b]);
      } else {
        g.lo[b] = g.hi[b] = wasm_i8x16_splat(0);
      }
    }
    g.d = wasm_f32x4_make(d[0], d[1], d[2], d[3]);
    g.m = wasm_f32x4_make(m[0], m[1], m[2], m[3]);
  }

  // acc + the float end of a group's integer dots q (block k in lane k).
  static v128_t add_dots(v128_t acc, v128_t q, v128_t d, v128_t m, const Act& y) {
    if constexpr (kHasMin) {
      return wasm_f32x4_add(acc, wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(q), wasm_f32x4_mul(d, wasm_v128_load(y.d))),
                                                wasm_f32x4_mul(m, wasm_v128_load(y.s))));
    } else {
      q = wasm_i32x4_sub(q, offset_times(wasm_v128_load(y.sums)));
      return wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(q), wasm_f32x4_mul(d, wasm_v128_load(y.d))));
    }
  }

  static v128_t add_group(v128_t acc, const Group& g, const Act& y) {
    v128_t dots[4];
    for (int b = 0; b < 4; ++b) dots[b] = relaxed_dot32(y.qs + QK8_0 * b, g.lo[b], g.hi[b]);
    return add_dots(acc, sum_blocks(dots[0], dots[1], dots[2], dots[3]), g.d, g.m, y);
  }

  // One token, a whole group: each block's levels go straight into its dot
  // (fewer live vectors than load() + add_group: V8 spilled those).
  static v128_t add_block_group(v128_t acc, const Block* x, const Act& y) {
    v128_t dots[4];
    for (int b = 0; b < 4; ++b) {
      v128_t lo, hi;
      Levels::levels(x[b], &lo, &hi);
      dots[b] = relaxed_dot32(y.qs + QK8_0 * b, lo, hi);
    }
    const v128_t q = sum_blocks(dots[0], dots[1], dots[2], dots[3]);
    if constexpr (kHasMin) {
      return add_dots(acc, q, scales(x), mins(x), y);
    } else {
      return add_dots(acc, q, scales(x), wasm_f32x4_splat(0), y);
    }
  }

  static void dot(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                  int64_t out_stride) {
    const auto* x = static_cast<const Block*>(w);
    const int64_t nb = n / QK8_0, full = nb / 4;
    const int tail = static_cast<int>(nb % 4);
    if (n_tokens == 1) {
      const auto* y = static_cast<const Act*>(a);
      v128_t acc = wasm_f32x4_splat(0);
      for (const Block* end = x + 4 * full; x != end; x += 4, ++y) acc = add_block_group(acc, x, *y);
      if (tail) {
        Group grp;
        load(x, tail, grp);
        acc = add_group(acc, grp, *y);
      }
      out[0] = hsum_f32(acc);
      return;
    }
    // Each group's levels are unpacked once for all the tokens; the
    // accumulators live in memory (16 would not fit V8's registers).
    v128_t acc[kMaxWideTokens];
    for (int t = 0; t < n_tokens; ++t) acc[t] = wasm_f32x4_splat(0);
    for (int64_t g = 0; g < full + (tail ? 1 : 0); ++g) {
      Group grp;
      load(x + 4 * g, g < full ? 4 : tail, grp);
      for_tokens(n_tokens, static_cast<const uint8_t*>(a) + g * sizeof(Act), act_stride, [&](int t, const uint8_t* y) {
        acc[t] = add_group(acc[t], grp, *reinterpret_cast<const Act*>(y));
      });
    }
    for (int t = 0; t < n_tokens; ++t) out[t * out_stride] = hsum_f32(acc[t]);
  }
};

}  // namespace wasmlm::simd
#endif
