// The grids of the 3-bit i-quants (ggml's iq3xxs_grid, iq3s_grid): each
// entry is 4 unsigned weight magnitudes, one per byte (byte j: weight j).
// IQ3_XXS levels are 4, 12, ..., 52, 62; IQ3_S levels the odd 1..15.
#pragma once

#include <array>
#include <cstdint>

#include "quant/iq_signs.h"  // kSignBytes, which the IQ3 kernels use

namespace wasmlm {

extern const std::array<uint32_t, 256> kIq3xxsGrid;
extern const std::array<uint32_t, 512> kIq3sGrid;

}  // namespace wasmlm
