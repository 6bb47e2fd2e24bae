// Four weight rows in the four int32 lanes, for the prompt tiles on the
// relaxed 8-bit dot-add (i32x4.relaxed_dot_i8x16_i7x16_add_s; see
// relaxed_tile_dots for where they run). A 32-weight block of each row is
// interleaved once per tile, 4 bytes at a time, so that lane r of group k
// holds row r's levels of weights 4k..4k+3; then each token's 4 integer dots
// are 8 dot-adds of its activations (4 at a time, splatted into every lane)
// with nothing left to reduce.
#pragma once
#ifdef __wasm_simd128__

#include <wasm_simd128.h>

#include <cstdint>
#include <type_traits>

#include "quant/quant_traits.h"
#include "quant/relaxed/relaxed_simd.h"

namespace wasmlm::simd {

// The 32 levels (0..127, the 7-bit operand) of a block of 4 rows.
struct RowLanes {
  v128_t group[8];
};

// The 4 rows' levels v[r] (16 each) as 4 vectors of one 4-byte group each.
inline void interleave_rows(const v128_t* v, v128_t* out) {
  const v128_t t0 = wasm_i32x4_shuffle(v[0], v[1], 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(v[2], v[3], 0, 4, 1, 5);
  const v128_t t2 = wasm_i32x4_shuffle(v[0], v[1], 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(v[2], v[3], 2, 6, 3, 7);
  out[0] = wasm_i64x2_shuffle(t0, t1, 0, 2);
  out[1] = wasm_i64x2_shuffle(t0, t1, 1, 3);
  out[2] = wasm_i64x2_shuffle(t2, t3, 0, 2);
  out[3] = wasm_i64x2_shuffle(t2, t3, 1, 3);
}

// lo[r], hi[r]: row r's levels of weights 0-15 and 16-31.
inline void load_row_lanes(const v128_t* lo, const v128_t* hi, RowLanes& c) {
  interleave_rows(lo, c.group);
  interleave_rows(hi, c.group + 4);
}

// Bytes 4k..4k+3 of v in every lane. From one 16-byte load, 4 splats by
// shuffle: V8 puts an address add before each v128.load32_splat (it folds
// no offset into it), two instructions where this is one.
template <int k>
inline v128_t splat_group(v128_t v) {
  return wasm_i32x4_shuffle(v, v, k, k, k, k);
}

// Activations 4g..4g+3 at a in every lane: splat_group of a 16-byte load
// (loads of the same 16 bytes are one), or v128.load32_splat, which holds no
// register before its dot-add (Q5_K's one-token kernel, whose levels take
// many, is faster with it).
template <int g, bool kByShuffle = true>
inline v128_t activation_group(const int8_t* a) {
  if constexpr (kByShuffle) {
    return splat_group<g % 4>(wasm_v128_load(a + 16 * (g / 4)));
  } else {
    return wasm_v128_load32_splat(a + 4 * g);
  }
}

// Lane r: init + row r's integer dot with the 32 int8 activations at a, in
// two chains of four dot-adds (the tiles keep several tokens' chains in
// flight, so more chains only cost their adds).
inline v128_t row_lanes_dot(const RowLanes& c, const int8_t* a, v128_t init = wasm_i32x4_splat(0)) {
  v128_t lo = init, hi = wasm_i32x4_splat(0);
  const auto group = [&](auto G) __attribute__((always_inline)) {
    constexpr int g = decltype(G)::value;
    lo = relaxed_dot_add_i8x16_i7x16(activation_group<g>(a), c.group[g], lo);
    hi = relaxed_dot_add_i8x16_i7x16(activation_group<g + 4>(a), c.group[g + 4], hi);
  };
  group(std::integral_constant<int, 0>{});
  group(std::integral_constant<int, 1>{});
  group(std::integral_constant<int, 2>{});
  group(std::integral_constant<int, 3>{});
  return wasm_i32x4_add(lo, hi);
}

// Row r of a tile of n_rows rows at w, row_bytes apart; rows past n_rows
// repeat the last (their lanes are computed and never stored).
template <typename Block>
inline const Block* tile_row(const void* w, int64_t row_bytes, int n_rows, int r) {
  return reinterpret_cast<const Block*>(static_cast<const uint8_t*>(w) + (r < n_rows ? r : n_rows - 1) * row_bytes);
}

// out[r] = lane r of sum, for the tile's n_rows rows.
inline void store_row_lanes(v128_t sum, int n_rows, float* out) {
  if (n_rows == kTileRows) {
    wasm_v128_store(out, sum);
  } else {
    alignas(16) float lane[kTileRows];
    wasm_v128_store(lane, sum);
    for (int r = 0; r < n_rows; ++r) out[r] = lane[r];
  }
}

}  // namespace wasmlm::simd
#endif
