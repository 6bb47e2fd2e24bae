// The K-quants' 12-byte scale fields: packing 8 scales and 8 mins back into
// them inverts unpack_k_scales, and a row quad's 48 bytes of them
// (encode_k_scale_quad) hold each row's scales and mins where the row-lanes
// kernels read them, and decode to the rows' bytes again.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "quant/blocks.h"
#include "quant/k_scales.h"

using namespace wasmlm;

TEST(KScales, PackingTheUnpackedBytesGivesThemBack) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 2000; ++trial) {
    uint8_t packed[16] = {}, sm[16], again[12];
    for (int b = 0; b < 12; ++b) packed[b] = static_cast<uint8_t>(rng());
    unpack_k_scales(packed, sm);
    pack_k_scale_bytes(sm, again);
    ASSERT_EQ(0, std::memcmp(packed, again, 12)) << "trial " << trial;
  }
}

TEST(KScales, AQuadsScalesAreByRowAndSubBlockAndDecodeToTheRows) {
  std::mt19937 rng(22);
  for (int trial = 0; trial < 500; ++trial) {
    uint8_t rows[4][12], quad[48], back[4][12];
    for (auto& row : rows)
      for (auto& b : row) b = static_cast<uint8_t>(rng());
    const uint8_t* in[4] = {rows[0], rows[1], rows[2], rows[3]};
    encode_k_scale_quad(in, quad);
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < 8; ++j) {
        uint8_t scale, min;
        get_scale_min_k4(j, rows[r], &scale, &min);
        const uint8_t low = quad[32 + 4 * (j / 2) + r];
        ASSERT_EQ(quad[4 * j + r] & 63, scale) << "trial " << trial << " row " << r << " sub-block " << j;
        ASSERT_EQ((quad[4 * j + r] >> 6) << 4 | (j % 2 ? low >> 4 : low & 15), min)
            << "trial " << trial << " row " << r << " sub-block " << j;
      }
    uint8_t* out[4] = {back[0], back[1], back[2], back[3]};
    decode_k_scale_quad(quad, out);
    ASSERT_EQ(0, std::memcmp(rows, back, sizeof rows)) << "trial " << trial;
  }
}
