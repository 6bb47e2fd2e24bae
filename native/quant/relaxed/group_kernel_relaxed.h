// The relaxed-SIMD kernel shared by the 32-weight types with unsigned levels
// (Q4_0, Q5_0: w = d (q - offset); Q4_1: w = d q + m; MXFP4: its signed
// table values plus 12, offset 12), for 1 to kMaxWideTokens tokens. The
// levels (0..31) are the 7-bit operand of the 8-bit dot and the int8
// activations the other, so a block's 32 products take two dots into int16
// lanes (|sum| <= 4 * 127 * 31) and one widening add. Once the dot is this
// cheap, the float work per block and token dominates (convert, scale, add),
// so it is done for 4 integer dots at once, reduced into the 4 lanes of one
// vector, and
//   offset types: acc += float(dot - offset * sum(a)) * (d_w * d_a)
//   min types:    acc += float(dot) * (d_w * d_a) + m_w * s_a
// lane by lane (the activations bring -offset * sum(a), group_q8_0r's
// offset_sums, and the integer dots start from it). A row's result is the
// sum of 4 partial sums, block 4g + k going to partial k, added as
// (p0 + p2) + (p1 + p3).
//
// One token (decoding) takes a row at a time, its 4 blocks of a group in the
// lanes (one vector of partial sums): it reads the row straight through.
// Several tokens (prompts) take a tile of kTileRows rows at once, the rows in
// the lanes: a block's levels of the 4 rows are interleaved once for all the
// tokens, and each token's 4 dots are 8 relaxed dot-adds of its activations
// (4 at a time, in every lane) into int32 lanes, nothing left to reduce (one
// instruction each where the CPU has an 8-bit dot product: AVX-VNNI, ARM's
// sdot; elsewhere the int16 dots of one token, as below: relaxed_tile_dots).
// Each token keeps one vector per k. Either way every row
// and token gets exactly that arithmetic, whatever the number of tokens and
// the rows beside it, so a batched prompt gives the bits of token-by-token
// decoding.
//
// Levels (one per type) provides: Block; kOffset (0 for the min types);
// kMaxLevel, its largest level; levels(block, &lo, &hi), the levels of
// weights 0-15 and 16-31 as bytes in 0..63 (so that a lane's 4 products stay
// within int16); scale_at(block), the table entry of its scale, and, for the
// min types, min_at(block).
//
// Levels past 63 (Q8_0: its bytes plus 128, 1..255) go through the dot-adds
// only, one token included (two per block into int32 lanes), and only where
// the engine reads their 7-bit operand as unsigned bytes and sums the
// products exactly (relaxed_dot_add_unsigned: vpdpbusd).
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>
#include <type_traits>

#include "quant/blocks.h"
#include "quant/quant_traits.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/relaxed/row_lanes_relaxed.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"
#include "quant/wide_activations.h"

namespace wasmlm::simd {

template <typename Levels>
struct RelaxedGroups {
  using Block = typename Levels::Block;
  static constexpr bool kHasMin = Levels::kOffset == 0;
  static constexpr bool kDotAddOnly = Levels::kMaxLevel > 63;
  static_assert(Levels::kOffset >= 0 && Levels::kOffset <= Levels::kMaxLevel && Levels::kMaxLevel <= 255);
  static_assert(kDotAddOnly || Levels::kOffset <= 63);
  // Where 16 products of a level and an activation (|a| <= 127, as Q8_0
  // quantization gives) fit int16, the 4 dots are summed in int16
  // lanes before they widen (13 vector ops against 17 and 4 constant loads).
  static constexpr bool kInt16Sums = 16 * 127 * Levels::kMaxLevel <= 32767;

  using Act = std::conditional_t<kHasMin, group_q8_1r, group_q8_0r>;

  // A block's integer dot with the 32 activations at a, in lanes of 4
  // products each: int16 (relaxed_dot32), or int32 (dot-adds).
  static v128_t block_dot(const int8_t* a, v128_t lo, v128_t hi) {
    if constexpr (kDotAddOnly) {
      return relaxed_dot_add_i8x16_i7x16(wasm_v128_load(a + 16), hi,
                                         relaxed_dot_add_i8x16_i7x16(wasm_v128_load(a), lo, wasm_i32x4_splat(0)));
    } else {
      return relaxed_dot32(a, lo, hi);
    }
  }

  // The integer dots of 4 blocks (or 4 rows' dots of a block), each as
  // block_dot gives it, reduced to the k-th one's sum in lane k.
  static v128_t sum_blocks(v128_t a, v128_t b, v128_t c, v128_t d) {
    if constexpr (kDotAddOnly) {
      return hsum4_i32(a, b, c, d);
    } else if constexpr (kInt16Sums) {
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

  static v128_t scales(const Block* x) {
    return load_lanes(Levels::scale_at(x[0]), Levels::scale_at(x[1]), Levels::scale_at(x[2]), Levels::scale_at(x[3]));
  }
  static v128_t mins(const Block* x) {
    return load_lanes(Levels::min_at(x[0]), Levels::min_at(x[1]), Levels::min_at(x[2]), Levels::min_at(x[3]));
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

  // acc + the float end of 4 integer dots q, lane by lane: the weights'
  // scales d (and mins m), the activations' scales ad and (min types) s.
  // Offset types: q already holds the offsets' share (offset_sums).
  static v128_t float_end(v128_t acc, v128_t q, v128_t d, v128_t m, v128_t ad, v128_t as) {
    if constexpr (kHasMin) {
      return wasm_f32x4_add(acc, wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_convert_i32x4(q), wasm_f32x4_mul(d, ad)),
                                                wasm_f32x4_mul(m, as)));
    } else {
      return wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(q), wasm_f32x4_mul(d, ad)));
    }
  }
  // Block k's s (min types: the float end's as) of a group, in every lane.
  static v128_t s_at(const Act& y, int k) {
    if constexpr (kHasMin) {
      return wasm_v128_load32_splat(&y.s[k]);
    } else {
      return wasm_f32x4_splat(0);
    }
  }
  // Block k's offset share (offset types: where its integer dots start), in
  // every lane.
  static v128_t dot_start(const Act& y, int k) {
    if constexpr (kHasMin) {
      return wasm_i32x4_splat(0);
    } else {
      return wasm_v128_load32_splat(&y.offset_sums[k]);
    }
  }

  // acc + the float end of a group's integer dots q (block k in lane k).
  static v128_t add_dots(v128_t acc, v128_t q, v128_t d, v128_t m, const Act& y) {
    if constexpr (kHasMin) {
      return float_end(acc, q, d, m, wasm_v128_load(y.d), wasm_v128_load(y.s));
    } else {
      return float_end(acc, wasm_i32x4_add(q, wasm_v128_load(y.offset_sums)), d, m, wasm_v128_load(y.d),
                       wasm_f32x4_splat(0));
    }
  }

  static v128_t add_group(v128_t acc, const Group& g, const Act& y) {
    v128_t dots[4];
    for (int b = 0; b < 4; ++b) dots[b] = block_dot(y.qs + QK8_0 * b, g.lo[b], g.hi[b]);
    return add_dots(acc, sum_blocks(dots[0], dots[1], dots[2], dots[3]), g.d, g.m, y);
  }

  // One token, a whole group: each block's levels go straight into its dot
  // (fewer live vectors than load() + add_group: V8 spilled those).
  static v128_t add_block_group(v128_t acc, const Block* x, const Act& y) {
    v128_t dots[4];
    for (int b = 0; b < 4; ++b) {
      v128_t lo, hi;
      Levels::levels(x[b], &lo, &hi);
      dots[b] = block_dot(y.qs + QK8_0 * b, lo, hi);
    }
    const v128_t q = sum_blocks(dots[0], dots[1], dots[2], dots[3]);
    if constexpr (kHasMin) {
      return add_dots(acc, q, scales(x), mins(x), y);
    } else {
      return add_dots(acc, q, scales(x), wasm_f32x4_splat(0), y);
    }
  }

  // The scales (and mins) of block i of a tile's rows, in lanes.
  static void load_scales(const Block* const* x, int64_t i, v128_t& d, v128_t& m) {
    d = load_lanes(Levels::scale_at(x[0][i]), Levels::scale_at(x[1][i]), Levels::scale_at(x[2][i]),
                   Levels::scale_at(x[3][i]));
    if constexpr (kHasMin)
      m = load_lanes(Levels::min_at(x[0][i]), Levels::min_at(x[1][i]), Levels::min_at(x[2][i]), Levels::min_at(x[3][i]));
  }

  // One block of a tile's rows for the int16 dots (where the dot-add is not
  // one exact instruction: see relaxed_tile_dots): their levels, and their
  // scales and mins in lanes.
  struct Column16 {
    v128_t lo[kTileRows], hi[kTileRows];
    v128_t d, m = wasm_f32x4_splat(0);  // m: min types
  };
  static void load_column(const Block* const* x, int64_t i, Column16& c) {
    for (int r = 0; r < kTileRows; ++r) Levels::levels(x[r][i], &c.lo[r], &c.hi[r]);
    load_scales(x, i, c.d, c.m);
  }

  // acc + the float end of block k (of 4) of a token's group y against a
  // column: add_dots with the rows in the lanes.
  template <int k>
  static v128_t add_column(v128_t acc, const Column16& c, const Act& y) {
    v128_t dots[kTileRows];  // the rows share the activations' loads (clang keeps one of each)
    for (int r = 0; r < kTileRows; ++r) dots[r] = relaxed_dot32(y.qs + QK8_0 * k, c.lo[r], c.hi[r]);
    const v128_t q = wasm_i32x4_add(sum_blocks(dots[0], dots[1], dots[2], dots[3]), dot_start(y, k));
    return float_end(acc, q, c.d, c.m, wasm_v128_load32_splat(&y.d[k]), s_at(y, k));
  }

  // One block of a tile's rows for the dot-adds: their levels in row lanes
  // (row_lanes_relaxed.h), their scales and mins in lanes.
  struct Column {
    RowLanes levels;
    v128_t d, m = wasm_f32x4_splat(0);  // m: min types
  };
  static_assert(kTileRows == 4, "a column's rows are the 4 int32 lanes");
  static void load_column(const Block* const* x, int64_t i, Column& c) {
    v128_t lo[kTileRows], hi[kTileRows];
    for (int r = 0; r < kTileRows; ++r) Levels::levels(x[r][i], &lo[r], &hi[r]);
    load_row_lanes(lo, hi, c.levels);
    load_scales(x, i, c.d, c.m);
  }

  // acc + the float end of block k (of 4) of a token's group y against a
  // column: add_dots with the rows in the lanes.
  template <int k>
  static v128_t add_column(v128_t acc, const Column& c, const Act& y) {
    const v128_t q = row_lanes_dot(c.levels, y.qs + QK8_0 * k, dot_start(y, k));
    return float_end(acc, q, c.d, c.m, wasm_v128_load32_splat(&y.d[k]), s_at(y, k));
  }

  // Rows r < n_rows (1..kTileRows) at w + r * row_bytes against 2 to
  // kMaxWideTokens tokens: out[t * out_stride + r]. Missing rows repeat the
  // last one, their lanes unused. Each column's levels are unpacked once for
  // all the tokens; the partial sums live in memory (V8 has 16 vector
  // registers).
  static void tile(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a, int64_t act_stride,
                   int n_tokens, float* out, int64_t out_stride) {
    if (n_tokens == 1) {  // a row at a time
      for (int r = 0; r < n_rows; ++r)
        dot(n, static_cast<const uint8_t*>(w) + r * row_bytes, a, act_stride, 1, out + r, 0);
    } else {
      tile_with(relaxed_tile_dots(), n, w, row_bytes, n_rows, a, act_stride, n_tokens, out, out_stride);
    }
  }
  static void tile_with(TileDots dots, int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                        int64_t act_stride, int n_tokens, float* out, int64_t out_stride) {
    const Block* x[kTileRows];
    for (int r = 0; r < kTileRows; ++r) x[r] = tile_row<Block>(w, row_bytes, n_rows, r);
    if constexpr (!kDotAddOnly) {
      if (dots == TileDots::kInt16)
        return tile_of<Column16>([&x](int64_t i, Column16& c) __attribute__((always_inline)) { load_column(x, i, c); },
                                 n, n_rows, a, act_stride, n_tokens, out, out_stride);
    }
    tile_of<Column>([&x](int64_t i, Column& c) __attribute__((always_inline)) { load_column(x, i, c); }, n, n_rows, a,
                    act_stride, n_tokens, out, out_stride);
  }
  // The tile's block i as a ColumnT: load(i, column).
  template <typename ColumnT, typename Load>
  static void tile_of(Load load, int64_t n, int n_rows, const void* a, int64_t act_stride, int n_tokens, float* out,
                      int64_t out_stride) {
    const auto* act = static_cast<const uint8_t*>(a);
    v128_t part[kMaxWideTokens][4];  // token t's partial sums k, the rows in the lanes
    zero_fill(&part[0][0], 4 * n_tokens);
    // Block 4 g + k of the rows against every token; k a constant, so that
    // its offsets in the activations' groups and the partial sums are too.
    // always_inline: clang outlined the k = 1..3 copies once the swizzle became asm.
    const auto column = [&](int64_t g, auto k) __attribute__((always_inline)) {
      ColumnT c;
      load(4 * g + k, c);
      for_tokens(n_tokens, act + g * sizeof(Act), act_stride, [&](int t, const uint8_t* y) {
        part[t][k] = add_column<k>(part[t][k], c, *reinterpret_cast<const Act*>(y));
      });
    };
    using K0 = std::integral_constant<int, 0>;
    using K1 = std::integral_constant<int, 1>;
    using K2 = std::integral_constant<int, 2>;
    using K3 = std::integral_constant<int, 3>;
    const int64_t nb = n / QK8_0, full = nb / 4, tail = nb % 4;
    for (int64_t g = 0; g < full; ++g) {
      column(g, K0{});
      column(g, K1{});
      column(g, K2{});
      column(g, K3{});
    }
    // A partial last group: its missing blocks would add zeros.
    if (tail > 0) column(full, K0{});
    if (tail > 1) column(full, K1{});
    if (tail > 2) column(full, K2{});
    for (int t = 0; t < n_tokens; ++t) {
      // hsum_f32's order: (p0 + p2) + (p1 + p3)
      const v128_t sum = wasm_f32x4_add(wasm_f32x4_add(part[t][0], part[t][2]), wasm_f32x4_add(part[t][1], part[t][3]));
      store_row_lanes(sum, n_rows, out + t * out_stride);
    }
  }

  // Rows in quads (row_quads.h; Levels::Quad, a block of the 4 rows: their
  // scales, then their levels' bytes interleaved 4 at a time), read by
  // Levels::quad_levels<H>(quad, g): lane r holds row r's levels of weights
  // 16 H + 4 g .. + 3, as RowLanes::group[4 H + g] of the rows gathered.
  template <typename Quad>
  static v128_t quad_scales(const Quad& q) {
    return load_lanes(Levels::quad_scale_at(q, 0), Levels::quad_scale_at(q, 1), Levels::quad_scale_at(q, 2),
                      Levels::quad_scale_at(q, 3));
  }
  template <typename Quad>
  static void load_quad_column(const Quad& q, Column& c) {
    for (int g = 0; g < 4; ++g) {
      c.levels.group[g] = Levels::template quad_levels<0>(q, g);
      c.levels.group[g + 4] = Levels::template quad_levels<1>(q, g);
    }
    c.d = quad_scales(q);
  }

  // A row quad (QuantTraits::vec_dot_quads) against 1 to kMaxWideTokens
  // tokens: each row and token the bits of dot() for that row alone, as the
  // tiles give them. One token keeps its partial sums in registers, each
  // block's integer dots in two chains of dot-adds straight from the quad.
  template <typename Quad>
  static void quads(int64_t n, const void* w, int n_rows, const void* a, int64_t act_stride, int n_tokens, float* out,
                    int64_t out_stride) {
    static_assert(!kHasMin, "quads of the offset types");
    const auto* x = static_cast<const Quad*>(w);
    if (n_tokens > 1)
      return tile_of<Column>([x](int64_t i, Column& c) __attribute__((always_inline)) { load_quad_column(x[i], c); },
                             n, n_rows, a, act_stride, n_tokens, out, out_stride);
    const auto* y = static_cast<const Act*>(a);
    v128_t part[4] = {wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0)};
    const auto block = [&](const Quad& q, const Act& g, auto k) __attribute__((always_inline)) {
      const int8_t* qs = g.qs + QK8_0 * k;
      v128_t lo = dot_start(g, k), hi = wasm_i32x4_splat(0);
      const auto group = [&](auto J) __attribute__((always_inline)) {
        constexpr int j = decltype(J)::value;
        lo = relaxed_dot_add_i8x16_i7x16(activation_group<j>(qs), Levels::template quad_levels<0>(q, j), lo);
        hi = relaxed_dot_add_i8x16_i7x16(activation_group<j + 4>(qs), Levels::template quad_levels<1>(q, j), hi);
      };
      group(std::integral_constant<int, 0>{});
      group(std::integral_constant<int, 1>{});
      group(std::integral_constant<int, 2>{});
      group(std::integral_constant<int, 3>{});
      // add_column's float end
      part[k] = float_end(part[k], wasm_i32x4_add(lo, hi), quad_scales(q), wasm_f32x4_splat(0),
                          wasm_v128_load32_splat(&g.d[k]), wasm_f32x4_splat(0));
    };
    using K0 = std::integral_constant<int, 0>;
    using K1 = std::integral_constant<int, 1>;
    using K2 = std::integral_constant<int, 2>;
    using K3 = std::integral_constant<int, 3>;
    const int64_t nb = n / QK8_0, full = nb / 4, tail = nb % 4;
    for (int64_t g = 0; g < full; ++g, x += 4, ++y) {
      block(x[0], *y, K0{});
      block(x[1], *y, K1{});
      block(x[2], *y, K2{});
      block(x[3], *y, K3{});
    }
    if (tail > 0) block(x[0], *y, K0{});
    if (tail > 1) block(x[1], *y, K1{});
    if (tail > 2) block(x[2], *y, K2{});
    store_row_lanes(wasm_f32x4_add(wasm_f32x4_add(part[0], part[2]), wasm_f32x4_add(part[1], part[3])), n_rows, out);
  }

  // One row (QuantTraits::vec_dot_wide): one token through its groups,
  // several as a tile of that row alone.
  static void dot(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                  int64_t out_stride) {
    if (n_tokens > 1) {
      float rows[kMaxWideTokens];
      tile(n, w, 0, 1, a, act_stride, n_tokens, rows, 1);
      for (int t = 0; t < n_tokens; ++t) out[t * out_stride] = rows[t];
      return;
    }
    const auto* x = static_cast<const Block*>(w);
    const auto* y = static_cast<const Act*>(a);
    const int64_t nb = n / QK8_0, full = nb / 4;
    const int tail = static_cast<int>(nb % 4);
    v128_t acc = wasm_f32x4_splat(0);
    for (const Block* end = x + 4 * full; x != end; x += 4, ++y) acc = add_block_group(acc, x, *y);
    if (tail) {
      Group grp;
      load(x, tail, grp);
      acc = add_group(acc, grp, *y);
    }
    out[0] = hsum_f32(acc);
  }
};

}  // namespace wasmlm::simd
#endif
