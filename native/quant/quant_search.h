// Scale searches shared by the reference quantizers (ggml's make_qx_quants,
// make_qkx2_quants, best_index_int8), so results match llama-quantize's
// output bit for bit.
#pragma once

#include <cstdint>
#include <cstring>

namespace wasmlm {

constexpr float kGroupMaxEps = 1e-15f;

// Round to nearest, ties to even (valid for |f| < 2^22).
inline int nearest_int(float f) {
  float v = f + 12582912.f;
  int i;
  std::memcpy(&i, &v, 4);
  return (i & 0x007fffff) - 0x00400000;
}

// Symmetric quantization of n values to [-nmax, nmax-1] (stored + nmax in L),
// searching scales around nmax/max; returns the scale.
float make_qx_quants(int n, int nmax, const float* x, int8_t* L, int rmse_type, const float* qw);

// Asymmetric quantization to [0, nmax] with a min, weighted least squares
// over nstep candidate scales; returns the scale, *the_min = -min.
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                       uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad);

// Index of the level in the sorted 16-entry table nearest to x.
int best_index_int8(int n, const int8_t* val, float x);

}  // namespace wasmlm
