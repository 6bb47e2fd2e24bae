// The grid of the 1-bit i-quants (ggml's iq1s_grid): each entry is 8 weights
// in {-1, 0, 1}, one int8 per byte (byte j: weight j). IQ1_S and IQ1_M add
// a shift of +-1/8 (kIq1Delta) to every weight of a group.
#pragma once

#include <array>
#include <cstdint>
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace wasmlm {

extern const std::array<uint64_t, 2048> kIq1sGrid;

constexpr float kIq1Delta = 0.125f;  // ggml's IQ1S_DELTA, IQ1M_DELTA

#ifdef __wasm_simd128__
// The grid entries of indices k[0..3] (32 weights) as int8: *lo k[0], k[1];
// *hi k[2], k[3].
inline void iq1_grid_entries(const uint16_t* k, v128_t* lo, v128_t* hi) {
  const uint64_t* grid = kIq1sGrid.data();
  *lo = wasm_v128_load64_lane(&grid[k[1]], wasm_v128_load64_zero(&grid[k[0]]), 1);
  *hi = wasm_v128_load64_lane(&grid[k[3]], wasm_v128_load64_zero(&grid[k[2]]), 1);
}
#endif

}  // namespace wasmlm
