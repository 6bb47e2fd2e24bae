#include "quant/k_scales.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "quant/blocks.h"
#include "quant/fp16.h"
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

void pack_k_scale_bytes(const uint8_t scales_mins[16], uint8_t packed[12]) {
  for (int j = 0; j < 4; ++j) {
    const uint8_t s_hi = scales_mins[j + 4], m_hi = scales_mins[j + 12];
    packed[j] = static_cast<uint8_t>(scales_mins[j] | (s_hi >> 4) << 6);
    packed[j + 4] = static_cast<uint8_t>(scales_mins[j + 8] | (m_hi >> 4) << 6);
    packed[j + 8] = static_cast<uint8_t>((s_hi & 0xF) | (m_hi & 0xF) << 4);
  }
}

void encode_k_scale_quad(const uint8_t* const* rows, uint8_t* quad) {
  for (int r = 0; r < 4; ++r) {
    uint8_t sm[16];
    unpack_k_scales(rows[r], sm);
    for (int j = 0; j < 8; ++j) quad[4 * j + r] = static_cast<uint8_t>(sm[j] | (sm[8 + j] >> 4) << 6);
    for (int k = 0; k < 4; ++k)
      quad[32 + 4 * k + r] = static_cast<uint8_t>((sm[8 + 2 * k] & 0xF) | (sm[9 + 2 * k] & 0xF) << 4);
  }
}

void decode_k_scale_quad(const uint8_t* quad, uint8_t* const* rows) {
  for (int r = 0; r < 4; ++r) {
    uint8_t sm[16];
    for (int j = 0; j < 8; ++j) {
      const uint8_t low = quad[32 + 4 * (j / 2) + r];
      sm[j] = quad[4 * j + r] & 63;
      sm[8 + j] = static_cast<uint8_t>((quad[4 * j + r] >> 6) << 4 | (j % 2 ? low >> 4 : low & 0xF));
    }
    pack_k_scale_bytes(sm, rows[r]);
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

void quantize_k_block(const float* x, int nmax, float rmin, int nstep, uint8_t packed[12], uint16_t* d,
                      uint16_t* dmin, uint8_t L[256]) {
  uint8_t Laux[32];
  float weights[32], mins[QK_K / 32], scales[QK_K / 32];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < QK_K / 32; ++j) {
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += x[32 * j + l] * x[32 * j + l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(x[32 * j + l]);
    scales[j] = make_qkx2_quants(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, rmin, 0.1f, nstep, false);
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  pack_k_scales(scales, mins, inv_scale, inv_min, packed);
  *d = fp32_to_fp16(max_scale / 63.f);
  *dmin = fp32_to_fp16(max_min / 63.f);
  requantize_k_levels(x, packed, fp16_to_fp32(*d), fp16_to_fp32(*dmin), nmax, L);
}


}  // namespace wasmlm
