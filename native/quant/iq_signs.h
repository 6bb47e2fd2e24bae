// The sign patterns of the 2- and 3-bit i-quants (ggml's ksigns_iq2xs): a
// 7-bit index gives the signs of 8 weights, the eighth chosen so that the
// number of negative weights is even. Bit j set: weight j is negative.
#pragma once

#include <array>
#include <cstdint>

namespace wasmlm {

constexpr std::array<uint8_t, 128> make_iq_signs() {
  std::array<uint8_t, 128> signs{};
  for (int i = 0; i < 128; ++i) signs[i] = static_cast<uint8_t>(i | ((__builtin_popcount(i) & 1) << 7));
  return signs;
}

inline constexpr std::array<uint8_t, 128> kIqSigns = make_iq_signs();

static_assert(kIqSigns[1] == 129 && kIqSigns[3] == 3 && kIqSigns[127] == 255);

}  // namespace wasmlm
