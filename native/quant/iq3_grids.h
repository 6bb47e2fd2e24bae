// The grids of the 3-bit i-quants (ggml's iq3xxs_grid, iq3s_grid): each
// entry is 4 unsigned weight magnitudes, one per byte (byte j: weight j).
// IQ3_XXS levels are 4, 12, ..., 52, 62; IQ3_S levels the odd 1..15.
// Also the sign bytes both use: kSignBytes[b] has byte j = 0xFF where bit j
// of b is set (the weight is negative), else 0.
#pragma once

#include <array>
#include <cstdint>

namespace wasmlm {

extern const std::array<uint32_t, 256> kIq3xxsGrid;
extern const std::array<uint32_t, 512> kIq3sGrid;

constexpr std::array<uint64_t, 256> make_sign_bytes() {
  std::array<uint64_t, 256> t{};
  for (int b = 0; b < 256; ++b)
    for (int j = 0; j < 8; ++j)
      if (b & (1 << j)) t[b] |= uint64_t{0xFF} << (8 * j);
  return t;
}

inline constexpr std::array<uint64_t, 256> kSignBytes = make_sign_bytes();

}  // namespace wasmlm
