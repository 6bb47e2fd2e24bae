// The grid of the 1-bit i-quants (ggml's iq1s_grid): each entry is 8 weights
// in {-1, 0, 1}, one int8 per byte (byte j: weight j). IQ1_S and IQ1_M add
// a shift of +-1/8 (kIq1Delta) to every weight of a group.
#pragma once

#include <array>
#include <cstdint>

namespace wasmlm {

extern const std::array<uint64_t, 2048> kIq1sGrid;

constexpr float kIq1Delta = 0.125f;  // ggml's IQ1S_DELTA, IQ1M_DELTA

#ifdef __wasm_simd128__
// For the relaxed kernels: the grid's values plus one (0..2), a 7-bit
// operand of the 8-bit dot.
extern const std::array<uint64_t, 2048> kIq1sGridPlus1;
#endif

}  // namespace wasmlm
