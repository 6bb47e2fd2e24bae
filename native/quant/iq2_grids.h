// The lattices of the 2-bit i-quants IQ2_XXS, IQ2_XS and IQ2_S (ggml's
// iq2xxs_grid, iq2xs_grid, iq2s_grid): entry k holds the magnitudes of 8
// weights, byte j (little-endian) for weight j, each 8, 25 or 43. And the
// sign patterns as int16 vectors of +-1 for the SIMD kernels.
#pragma once

#include <array>
#include <cstdint>

namespace wasmlm {

extern const std::array<uint64_t, 256> kIq2xxsGrid;
extern const std::array<uint64_t, 512> kIq2xsGrid;
extern const std::array<uint64_t, 1024> kIq2sGrid;

// Row s: weight j is -1 if bit j of s is set, else +1. kIq2SignsBy8 is
// indexed by a sign byte (IQ2_S), kIq2SignsBy7 by the 7-bit index of kIqSigns
// (iq_signs.h: IQ2_XXS, IQ2_XS).
struct alignas(16) Iq2SignRow {
  int16_t v[8];
};
extern const std::array<Iq2SignRow, 256> kIq2SignsBy8;
extern const std::array<Iq2SignRow, 128> kIq2SignsBy7;

}  // namespace wasmlm
