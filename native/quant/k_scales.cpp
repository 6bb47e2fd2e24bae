#include "quant/k_scales.h"

#include <algorithm>

#include "quant/blocks.h"
#include "quant/quant_search.h"

namespace wasmlm {

void pack_k_scales(const float scales[8], const float mins[8], float inv_scale, float inv_min, uint8_t out[12]) {
  for (int j = 0; j < 8; ++j) {
    const uint8_t ls = static_cast<uint8_t>(std::min(63, nearest_int(inv_scale * scales[j])));
    const uint8_t lm = static_cast<uint8_t>(std::min(63, nearest_int(inv_min * mins[j])));
    if (j < 4) {
      out[j] = ls;
      out[j + 4] = lm;
    } else {
      out[j + 4] = (ls & 0xF) | ((lm & 0xF) << 4);
      out[j - 4] |= ((ls >> 4) << 6);
      out[j - 0] |= ((lm >> 4) << 6);
    }
  }
}

void requantize_k_levels(const float* x, const uint8_t packed[12], float d, float dmin, int nmax, uint8_t* L) {
  for (int j = 0; j < QK_K / 32; ++j) {
    uint8_t sc, m;
    get_scale_min_k4(j, packed, &sc, &m);
    const float dd = d * sc;
    if (!dd) continue;
    const float dm = dmin * m;
    for (int ii = 0; ii < 32; ++ii) {
      const int l = nearest_int((x[32 * j + ii] + dm) / dd);
      L[32 * j + ii] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
    }
  }
}

}  // namespace wasmlm
