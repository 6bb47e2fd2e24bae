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

// A sign byte b as 8 bytes: byte j = 0xFF where bit j of b is set (the
// weight is negative), else 0.
constexpr std::array<uint64_t, 256> make_sign_bytes() {
  std::array<uint64_t, 256> t{};
  for (int b = 0; b < 256; ++b)
    for (int j = 0; j < 8; ++j)
      if (b & (1 << j)) t[b] |= uint64_t{0xFF} << (8 * j);
  return t;
}

inline constexpr std::array<uint64_t, 256> kSignBytes = make_sign_bytes();

// The same for the 8 signs of a 7-bit index: kSignBytes[kIqSigns[i]].
constexpr std::array<uint64_t, 128> make_sign_bytes_by7() {
  std::array<uint64_t, 128> t{};
  for (int i = 0; i < 128; ++i) t[i] = kSignBytes[kIqSigns[i]];
  return t;
}

inline constexpr std::array<uint64_t, 128> kSignBytesBy7 = make_sign_bytes_by7();

}  // namespace wasmlm
