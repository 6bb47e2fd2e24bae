// Pieces the relaxed Q4_K and Q5_K kernels share: both store 8 sub-blocks of
// 32 weights with 6-bit scales and mins (k_scales.h) and differ only in how
// the levels of a sub-block pair are unpacked, so the block loop is shared too.
#pragma once
#ifdef __wasm_simd128__

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/k_scales.h"
#include "quant/quant_traits.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/relaxed/row_lanes_relaxed.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm::simd {

// sum_j m_j (bsums[2j] + bsums[2j + 1]) in 4 lanes: each of the 8 mins (m16)
// applies to two 16-value sums of the activations.
inline v128_t mins_dot(v128_t m16, const int16_t* bsums) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_v128_load(bsums), wasm_i16x8_shuffle(m16, m16, 0, 0, 1, 1, 2, 2, 3, 3)),
                        wasm_i32x4_dot_i16x8(wasm_v128_load(bsums + 8), wasm_i16x8_shuffle(m16, m16, 4, 4, 5, 5, 6, 6, 7, 7)));
}

// The one-token dot of Q4_K or Q5_K weights x with Q8_K activations y:
// pairs(block, q8, sc16) returns a block's scaled sub-block dots (4 int32
// lanes); the mins and the float arithmetic are the
// reference's, so the result has its bits.
template <typename Block, typename Pairs>
inline float k_dot_relaxed(int64_t n, const Block* x, const block_q8_K* y, Pairs&& pairs) {
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const v128_t scales_mins = unpack_k_scales_simd(x[i].scales);
    const v128_t sc16 = wasm_u16x8_extend_low_u8x16(scales_mins), m16 = wasm_u16x8_extend_high_u8x16(scales_mins);
    // Both horizontal sums at once: lane 0 the scaled dots', lane 1 the mins'.
    const v128_t folded = fold_pair(pairs(x[i], y[i].qs, sc16), mins_dot(m16, y[i].bsums));
    const v128_t sums = wasm_i32x4_add(folded, wasm_i32x4_shuffle(folded, folded, 2, 3, 0, 1));
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * static_cast<float>(wasm_i32x4_extract_lane(sums, 0)) -
                     fp16_to_fp32_fast(x[i].dmin) * static_cast<float>(wasm_i32x4_extract_lane(sums, 1)));
  }
  return sum;
}

// The levels of sub-blocks J (lo0, lo1: weights 0-15, 16-31) and J + 1
// (hi0, hi1), as bytes.
struct PairLevels {
  v128_t lo0, lo1, hi0, hi1;
};

// One token: a super-block's 8 sub-blocks against their activations q8,
// scaled by sc16, in 4 int32 lanes. pairs.next() gives the levels of the
// next sub-block pair. A rolled loop (each pair's scales by a relaxed
// swizzle): unrolled, V8 loaded every activation at the top and spilled half.
template <typename Pairs>
inline v128_t k_sub_dots(Pairs pairs, const int8_t* q8, v128_t sc16) {
  v128_t acc = wasm_i32x4_splat(0);
#pragma clang loop unroll(disable)
  for (int j = 0; j < 8; j += 2, q8 += 64) {
    const PairLevels l = pairs.next();
    const v128_t lo = relaxed_dot32(q8, l.lo0, l.lo1), hi = relaxed_dot32(q8 + 32, l.hi0, l.hi1);
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(lo, splat_i16_lane(sc16, j)));
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(hi, splat_i16_lane(sc16, j + 1)));
  }
  return acc;
}

// Sub-blocks J and J + 1 of super-block i against every token's activations
// (Q8_K rows act_stride bytes apart from a): the pair is unpacked
// (Levels::pair<J>) and its scales splatted once, and each token's integer
// sum gains the pair's two sub-block dots, each (two relaxed dots summed in
// int16, |sum| <= 4 * 128 * 31) scaled by its lane of sc16 with one
// i32x4.dot_i16x8 (kFirst: is set to them).
template <int J, typename Levels, bool kFirst = false, typename Block>
inline void pair_tokens(const Block& x, int64_t i, v128_t sc16, const uint8_t* a, int64_t act_stride, int n_tokens,
                        v128_t* isum) {
  const PairLevels l = Levels::template pair<J>(x);
  const v128_t s0 = wasm_i16x8_shuffle(sc16, sc16, J, J, J, J, J, J, J, J);
  const v128_t s1 = wasm_i16x8_shuffle(sc16, sc16, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1);
  const uint8_t* first = a + i * sizeof(block_q8_K) + offsetof(block_q8_K, qs) + 32 * J;
  for_tokens(n_tokens, first, act_stride, [&](int t, const uint8_t* row) {
    const auto* q8 = reinterpret_cast<const int8_t*>(row);
    const v128_t lo = relaxed_dot32(q8, l.lo0, l.lo1), hi = relaxed_dot32(q8 + 32, l.hi0, l.hi1);
    const v128_t pair = wasm_i32x4_add(wasm_i32x4_dot_i16x8(lo, s0), wasm_i32x4_dot_i16x8(hi, s1));
    isum[t] = kFirst ? pair : wasm_i32x4_add(isum[t], pair);
  });
}

// 1 to kMaxWideTokens tokens of Q4_K or Q5_K weights x against Q8_K
// activations as they are (WideForm::Q8_KAsIs), a row's super-blocks
// unpacked once for all of them. Every token gets k_dot_relaxed's integer
// sums and float arithmetic: the reference's bits, as one token alone.
template <typename Levels, typename Block>
inline void k_tokens_relaxed(int64_t n, const Block* x, const void* activations, int64_t act_stride, int n_tokens,
                             float* out, int64_t out_stride) {
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum[kMaxWideTokens / 4], isum[kMaxWideTokens], mins[kMaxWideTokens];
  start_quads(sum, n_tokens, {isum, mins});
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const v128_t scales_mins = unpack_k_scales_simd(x[i].scales);
    const v128_t sc16 = wasm_u16x8_extend_low_u8x16(scales_mins), m16 = wasm_u16x8_extend_high_u8x16(scales_mins);
    for_tokens(n_tokens, a + i * sizeof(block_q8_K), act_stride, [&](int t, const uint8_t* y) {
      mins[t] = mins_dot(m16, reinterpret_cast<const block_q8_K*>(y)->bsums);
    });
    pair_tokens<0, Levels, true>(x[i], i, sc16, a, act_stride, n_tokens, isum);
    pair_tokens<2, Levels>(x[i], i, sc16, a, act_stride, n_tokens, isum);
    pair_tokens<4, Levels>(x[i], i, sc16, a, act_stride, n_tokens, isum);
    pair_tokens<6, Levels>(x[i], i, sc16, a, act_stride, n_tokens, isum);
    add_block_dmin(sum, n_tokens, isum, mins, fp16_to_fp32_fast(x[i].d), fp16_to_fp32_fast(x[i].dmin), a, act_stride,
                   i);
  }
  store_quads(sum, n_tokens, out, out_stride);
}

// 16 scale bytes by (sub-block, row), 4 sub-blocks of 4 rows, widened:
// sc4[j], lane r: row r's scale of sub-block j (int32).
inline void widen_scale_bytes(v128_t bytes, v128_t* sc4) {
  const v128_t lo = wasm_u16x8_extend_low_u8x16(bytes), hi = wasm_u16x8_extend_high_u8x16(bytes);
  sc4[0] = wasm_u32x4_extend_low_u16x8(lo);
  sc4[1] = wasm_u32x4_extend_high_u16x8(lo);
  sc4[2] = wasm_u32x4_extend_low_u16x8(hi);
  sc4[3] = wasm_u32x4_extend_high_u16x8(hi);
}

// The scales and mins of 4 rows' super-block, each row's 12 bytes at
// packed[r], as RowLanesScales holds them.
inline void gather_scale_lanes(const uint8_t* const* packed, v128_t* sc, v128_t* mp) {
  v128_t sm[kTileRows];
  for (int r = 0; r < kTileRows; ++r) sm[r] = unpack_k_scales_simd(packed[r]);
  const v128_t s01 = wasm_i8x16_shuffle(sm[0], sm[1], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const v128_t s23 = wasm_i8x16_shuffle(sm[2], sm[3], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const v128_t m01 = wasm_i8x16_shuffle(sm[0], sm[1], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const v128_t m23 = wasm_i8x16_shuffle(sm[2], sm[3], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  // Bytes by (sub-block, row): sub-blocks 0-3 and 4-7.
  const v128_t by_sub[4] = {wasm_i16x8_shuffle(s01, s23, 0, 8, 1, 9, 2, 10, 3, 11),
                            wasm_i16x8_shuffle(s01, s23, 4, 12, 5, 13, 6, 14, 7, 15),
                            wasm_i16x8_shuffle(m01, m23, 0, 8, 1, 9, 2, 10, 3, 11),
                            wasm_i16x8_shuffle(m01, m23, 4, 12, 5, 13, 6, 14, 7, 15)};
  for (int h = 0; h < 2; ++h) {
    widen_scale_bytes(by_sub[h], sc + 4 * h);
    const v128_t m_lo = wasm_u16x8_extend_low_u8x16(by_sub[2 + h]), m_hi = wasm_u16x8_extend_high_u8x16(by_sub[2 + h]);
    mp[2 * h + 0] = wasm_i16x8_shuffle(m_lo, m_lo, 0, 4, 1, 5, 2, 6, 3, 7);
    mp[2 * h + 1] = wasm_i16x8_shuffle(m_hi, m_hi, 0, 4, 1, 5, 2, 6, 3, 7);
  }
}

// The byte pairs of quad_scale_lanes' top bits, as a relaxed swizzle's
// indices, loaded through unseen (as a shuffle's constant V8 builds it in
// registers each time, 4 instructions).
alignas(16) inline constexpr uint8_t kScaleTopPairs[16] = {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15};

// The same from a quad's 48 bytes of scales (encode_k_scale_quad): the
// bytes are already by (sub-block, row), the mins' two parts a shuffle
// apart from their pairs.
inline void quad_scale_lanes(const uint8_t* quad, v128_t* sc, v128_t* mp) {
  const v128_t a = wasm_v128_load(quad), b = wasm_v128_load(quad + 16), low = wasm_v128_load(quad + 32);
  const v128_t six = loaded_splat<63>();
  widen_scale_bytes(wasm_v128_and(a, six), sc);
  widen_scale_bytes(wasm_v128_and(b, six), sc + 4);
  // Byte 2 r + e of pair k: row r's min of sub-block 2 k + e.
  const v128_t nib = loaded_splat<0x0F>(), top = loaded_splat<0x30>();
  const v128_t lo4 = wasm_v128_and(low, nib), hi4 = high_nibbles(low, nib);
  const v128_t low01 = wasm_i8x16_shuffle(lo4, hi4, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const v128_t low23 = wasm_i8x16_shuffle(lo4, hi4, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const v128_t pairs = wasm_v128_load(unseen(kScaleTopPairs));
  const v128_t top01 = relaxed_swizzle(a, pairs), top23 = relaxed_swizzle(b, pairs);
  const v128_t m01 = wasm_v128_or(low01, wasm_v128_and(wasm_u16x8_shr(top01, 2), top));
  const v128_t m23 = wasm_v128_or(low23, wasm_v128_and(wasm_u16x8_shr(top23, 2), top));
  mp[0] = wasm_u16x8_extend_low_u8x16(m01);
  mp[1] = wasm_u16x8_extend_high_u8x16(m01);
  mp[2] = wasm_u16x8_extend_low_u8x16(m23);
  mp[3] = wasm_u16x8_extend_high_u8x16(m23);
}

// A super-block's scales, mins and float scales of 4 rows in lanes: sc[j],
// lane r: row r's scale of sub-block j (int32); mp[k], lane r: row r's mins
// of sub-blocks 2k and 2k + 1 (an int16 pair); d, dmin: the rows' d and dmin.
struct RowLanesScales {
  v128_t sc[8], mp[4], d, dmin;

  template <typename Rows>
  void load(const Rows& rows, int64_t i) {
    rows.scale_lanes(i, sc, mp);
    const auto d_of = [&](int r) { return kFp16Table + rows.d(r, i); };
    const auto dmin_of = [&](int r) { return kFp16Table + rows.dmin(r, i); };
    d = load_lanes(d_of(0), d_of(1), d_of(2), d_of(3));
    dmin = load_lanes(dmin_of(0), dmin_of(1), dmin_of(2), dmin_of(3));
  }

  // The super-block's share of a token's 4 row sums, given the rows' scaled
  // sub-block dots isum and the token's Q8_K block y: the float end of
  // k_dot_relaxed, lane by lane.
  v128_t block_sum(v128_t isum, const block_q8_K& y) const {
    // The token's 8 sums of 32 activations, as int16 (|sum| <= 4096).
    const v128_t b = wasm_i16x8_narrow_i32x4(wasm_i32x4_extadd_pairwise_i16x8(wasm_v128_load(y.bsums)),
                                             wasm_i32x4_extadd_pairwise_i16x8(wasm_v128_load(y.bsums + 8)));
    const v128_t mins =
        wasm_i32x4_add(wasm_i32x4_add(wasm_i32x4_dot_i16x8(mp[0], wasm_i32x4_shuffle(b, b, 0, 0, 0, 0)),
                                      wasm_i32x4_dot_i16x8(mp[1], wasm_i32x4_shuffle(b, b, 1, 1, 1, 1))),
                       wasm_i32x4_add(wasm_i32x4_dot_i16x8(mp[2], wasm_i32x4_shuffle(b, b, 2, 2, 2, 2)),
                                      wasm_i32x4_dot_i16x8(mp[3], wasm_i32x4_shuffle(b, b, 3, 3, 3, 3))));
    const v128_t block = wasm_f32x4_sub(wasm_f32x4_mul(d, wasm_f32x4_convert_i32x4(isum)),
                                        wasm_f32x4_mul(dmin, wasm_f32x4_convert_i32x4(mins)));
    return wasm_f32x4_mul(wasm_v128_load32_splat(&y.d), block);
  }
};

// The 4 rows of a tile gathered from their places (row r at w + r *
// row_bytes; missing rows repeat the last): a sub-block's levels are
// interleaved into row lanes (load_row_lanes) at each use.
template <typename Levels, typename Block>
struct GatheredRows {
  const Block* x[kTileRows];
  void scale_lanes(int64_t i, v128_t* sc, v128_t* mp) const {
    const uint8_t* packed[kTileRows] = {x[0][i].scales, x[1][i].scales, x[2][i].scales, x[3][i].scales};
    gather_scale_lanes(packed, sc, mp);
  }
  uint16_t d(int r, int64_t i) const { return x[r][i].d; }
  uint16_t dmin(int r, int64_t i) const { return x[r][i].dmin; }
  // Sub-block J + H of the pair at J (H: 0 or 1) of super-block i.
  template <int J, int H>
  void lanes(int64_t i, RowLanes& c) const {
    PairLevels l[kTileRows];
    for (int r = 0; r < kTileRows; ++r) l[r] = Levels::template pair<J>(x[r][i]);
    const v128_t lo[kTileRows] = {H ? l[0].hi0 : l[0].lo0, H ? l[1].hi0 : l[1].lo0, H ? l[2].hi0 : l[2].lo0,
                                  H ? l[3].hi0 : l[3].lo0};
    const v128_t hi[kTileRows] = {H ? l[0].hi1 : l[0].lo1, H ? l[1].hi1 : l[1].lo1, H ? l[2].hi1 : l[2].lo1,
                                  H ? l[3].hi1 : l[3].lo1};
    load_row_lanes(lo, hi, c);
  }
};

// 4 rows of Q4_K or Q5_K against 1 to kMaxWideTokens tokens, the rows in the
// lanes of the relaxed dot-add (row_lanes_relaxed.h): per super-block each
// sub-block's levels come in row lanes (Rows::lanes) once for all the
// tokens, a token's 4 rows' sub-block dots (8 dot-adds) are scaled by the
// rows' scales with one i32x4.mul, and the mins' share is 4 i32x4.dot_i16x8
// of the rows' mins (pairs in lanes) with the token's sums of 32
// activations. The integers and, lane by lane, the float ends are
// k_dot_relaxed's: each row gets its bits. out[t * out_stride + r] for the
// first n_rows rows.
template <typename Rows>
inline void k_row_lanes_relaxed(int64_t n, const Rows& rows, int n_rows, const void* activations, int64_t act_stride,
                                int n_tokens, float* out, int64_t out_stride) {
  static_assert(kTileRows == 4, "the tile's rows are the 4 int32 lanes");
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum[kMaxWideTokens], isum[kMaxWideTokens];
  zero_fill(sum, n_tokens);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    RowLanesScales k;
    k.load(rows, i);
    const uint8_t* ai = a + i * sizeof(block_q8_K);
    // Sub-block J + H's levels in row lanes, then every token's scaled dots
    // (kFirst: isum is set to them).
    const auto sub = [&](auto J, auto H, auto first) __attribute__((always_inline)) {
      constexpr int j = decltype(J)::value, h = decltype(H)::value;
      RowLanes c;
      rows.template lanes<j, h>(i, c);
      for_tokens(n_tokens, ai + offsetof(block_q8_K, qs) + 32 * (j + h), act_stride, [&](int t, const uint8_t* q8) {
        const v128_t s = wasm_i32x4_mul(row_lanes_dot(c, reinterpret_cast<const int8_t*>(q8)), k.sc[j + h]);
        isum[t] = decltype(first)::value ? s : wasm_i32x4_add(isum[t], s);
      });
    };
    using Zero = std::integral_constant<int, 0>;
    using One = std::integral_constant<int, 1>;
    sub(Zero{}, Zero{}, std::true_type{});
    sub(Zero{}, One{}, std::false_type{});
    sub(std::integral_constant<int, 2>{}, Zero{}, std::false_type{});
    sub(std::integral_constant<int, 2>{}, One{}, std::false_type{});
    sub(std::integral_constant<int, 4>{}, Zero{}, std::false_type{});
    sub(std::integral_constant<int, 4>{}, One{}, std::false_type{});
    sub(std::integral_constant<int, 6>{}, Zero{}, std::false_type{});
    sub(std::integral_constant<int, 6>{}, One{}, std::false_type{});
    for_tokens(n_tokens, ai, act_stride, [&](int t, const uint8_t* yrow) {
      sum[t] = wasm_f32x4_add(sum[t], k.block_sum(isum[t], *reinterpret_cast<const block_q8_K*>(yrow)));
    });
  }
  for (int t = 0; t < n_tokens; ++t) store_row_lanes(sum[t], n_rows, out + t * out_stride);
}

// The d, dmin and scales of 4 rows in a quad block of Q4_K or Q5_K (whose
// fields start d[4], dmin[4], then the 48 bytes of encode_k_scale_quad), as
// RowLanesScales reads them.
template <typename QuadBlock>
struct KQuadScales {
  const QuadBlock* x;
  void scale_lanes(int64_t i, v128_t* sc, v128_t* mp) const { quad_scale_lanes(x[i].scales, sc, mp); }
  uint16_t d(int r, int64_t i) const { return x[i].d[r]; }
  uint16_t dmin(int r, int64_t i) const { return x[i].dmin[r]; }
};

// Rows in quads (row_quads.h), read by level<H>(i, p, g): lane r holds row
// r's levels of weights 4g..4g+3 of sub-block 2p + H of super-block i (p
// known at compile time: level_at<P, H>(i, g)). The one-token kernel reads
// one_token_level<H>, the same levels but those of H = 1 shifted left by
// kOneTokenHighShift bits, and splats activations as kActivationsByShuffle
// says (activation_group).
template <typename Quad>
struct QuadRows : Quad {
  template <int J, int H>
  void lanes(int64_t i, RowLanes& c) const {
    for (int g = 0; g < 8; ++g) c.group[g] = this->template level_at<J / 2, H>(i, g);
  }
};

// One token against a row quad: k_row_lanes_relaxed's integers and float
// ends, the sub-block pairs in a rolled loop with four chains of dot-adds
// (1.2x the form for several tokens; Chromium, Zen 5).
template <typename Rows>
inline void k_row_lanes_one_relaxed(int64_t n, const Rows& rows, int n_rows, const block_q8_K* y, float* out) {
  v128_t sum = wasm_f32x4_splat(0);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    RowLanesScales k;
    k.load(rows, i);
    v128_t isum = wasm_i32x4_splat(0);
    const int8_t* q8 = y[i].qs;
#pragma clang loop unroll(disable)
    for (int p = 0; p < 4; ++p, q8 += 64) {
      v128_t l0 = wasm_i32x4_splat(0), l1 = l0, h0 = l0, h1 = l0;
      // Groups g and g + 1 of both sub-blocks.
      const auto groups = [&](auto G) __attribute__((always_inline)) {
        constexpr int g = decltype(G)::value;
        constexpr bool by_shuffle = Rows::kActivationsByShuffle;
        const auto dot = [&](auto H, int j, v128_t a, v128_t acc) __attribute__((always_inline)) {
          return relaxed_dot_add_i8x16_i7x16(a, rows.template one_token_level<decltype(H)::value>(i, p, j), acc);
        };
        using Low = std::integral_constant<int, 0>;
        using High = std::integral_constant<int, 1>;
        l0 = dot(Low{}, g, activation_group<g, by_shuffle>(q8), l0);
        l1 = dot(Low{}, g + 1, activation_group<g + 1, by_shuffle>(q8), l1);
        h0 = dot(High{}, g, activation_group<g, by_shuffle>(q8 + 32), h0);
        h1 = dot(High{}, g + 1, activation_group<g + 1, by_shuffle>(q8 + 32), h1);
      };
      groups(std::integral_constant<int, 0>{});
      groups(std::integral_constant<int, 2>{});
      groups(std::integral_constant<int, 4>{});
      groups(std::integral_constant<int, 6>{});
      const v128_t high = wasm_i32x4_shr(wasm_i32x4_add(h0, h1), Rows::kOneTokenHighShift);
      isum = wasm_i32x4_add(isum, wasm_i32x4_add(wasm_i32x4_mul(wasm_i32x4_add(l0, l1), k.sc[2 * p]),
                                                 wasm_i32x4_mul(high, k.sc[2 * p + 1])));
    }
    sum = wasm_f32x4_add(sum, k.block_sum(isum, y[i]));
  }
  store_row_lanes(sum, n_rows, out);
}

// A row quad of Q4_K or Q5_K (QuadRows<Quad>) against 1 to kMaxWideTokens
// tokens: each row the bits of k_dot_relaxed.
template <typename Quad, typename QuadBlock>
inline void k_quads_relaxed(int64_t n, const void* w, int n_rows, const void* activations, int64_t act_stride,
                            int n_tokens, float* out, int64_t out_stride) {
  const QuadRows<Quad> rows{{{static_cast<const QuadBlock*>(w)}}};
  if (n_tokens == 1)
    k_row_lanes_one_relaxed(n, rows, n_rows, static_cast<const block_q8_K*>(activations), out);
  else
    k_row_lanes_relaxed(n, rows, n_rows, activations, act_stride, n_tokens, out, out_stride);
}

// kTileRows rows of Q4_K or Q5_K (row r at w + r * row_bytes; missing rows
// repeat the last, their lanes unused) against 2 to kMaxWideTokens tokens:
// out[t * out_stride + r]. Where the dot-add is one instruction
// (relaxed_tile_dots) the rows go in the lanes (k_row_lanes_relaxed), each
// sub-block interleaved once for all the tokens; elsewhere, and for one
// token, k_tokens_relaxed row by row.
template <typename Levels, typename Block>
inline void k_tile_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* activations,
                           int64_t act_stride, int n_tokens, float* out, int64_t out_stride) {
  const auto row = [&](int r) { return tile_row<Block>(w, row_bytes, n_rows, r); };
  if (n_tokens == 1 || relaxed_tile_dots() != TileDots::kDotAdd) {
    for (int r = 0; r < n_rows; ++r)
      k_tokens_relaxed<Levels>(n, row(r), activations, act_stride, n_tokens, out + r, out_stride);
    return;
  }
  const GatheredRows<Levels, Block> rows{{row(0), row(1), row(2), row(3)}};
  k_row_lanes_relaxed(n, rows, n_rows, activations, act_stride, n_tokens, out, out_stride);
}

}  // namespace wasmlm::simd
#endif
