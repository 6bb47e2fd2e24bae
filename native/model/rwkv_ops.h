// Element-wise pieces of the RWKV blocks (scalar: small next to the matrix
// products).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace wasmlm {

// The scale that normalizes n values to unit variance, and their mean
// (ggml_norm's sums, in double).
inline float normal_scale(const float* x, size_t n, float eps, float* mean) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += x[i];
  *mean = static_cast<float>(sum / n);
  double sum2 = 0;
  for (size_t i = 0; i < n; ++i) sum2 += double(x[i] - *mean) * (x[i] - *mean);
  return 1.0f / std::sqrt(static_cast<float>(sum2 / n) + eps);
}

// out = (x - mean) / sqrt(var + eps) * w + b  (ggml_norm, then weight and bias)
inline void layer_norm(float* out, const float* x, const float* w, const float* b, size_t n, float eps) {
  float mean;
  const float scale = normal_scale(x, n, eps, &mean);
  for (size_t i = 0; i < n; ++i) out[i] = (x[i] - mean) * scale * w[i] + b[i];
}

// Group norm of each of n_groups consecutive groups of `size` values, in place
// (no weight: the caller applies ln_x).
inline void group_norm(float* x, size_t n_groups, size_t size, float eps) {
  for (size_t g = 0; g < n_groups; ++g) {
    float* v = x + g * size;
    float mean;
    const float scale = normal_scale(v, size, eps, &mean);
    for (size_t i = 0; i < size; ++i) v[i] = (v[i] - mean) * scale;
  }
}

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// prev[t] = the input before token t: the carried state for t = 0, else
// x[t - 1]; the state then carries x[n - 1].
inline void token_shift(const float* x, float* carry, float* prev, int n, size_t c) {
  std::memcpy(prev, carry, c * sizeof(float));
  if (n > 1) std::memcpy(prev + c, x, (n - 1) * c * sizeof(float));
  std::memcpy(carry, x + (n - 1) * c, c * sizeof(float));
}

}  // namespace wasmlm
