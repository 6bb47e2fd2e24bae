// Next-token probabilities from logits, and the pass measure of the
// reference tests: the largest |p - q| over the reference's k most likely tokens.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace wasmlm_test {

inline std::vector<double> softmax(const float* logits, size_t n) {
  const float top = *std::max_element(logits, logits + n);
  std::vector<double> p(n);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += p[i] = std::exp(double(logits[i]) - top);
  for (double& v : p) v /= sum;
  return p;
}

// max |softmax(ours) - softmax(reference)| over the reference's k most likely tokens.
inline double top_probability_diff(const float* ours, const float* reference, size_t n, size_t k) {
  const std::vector<double> p = softmax(ours, n), q = softmax(reference, n);
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return q[a] > q[b]; });
  double worst = 0;
  for (size_t i = 0; i < std::min(k, n); ++i) worst = std::max(worst, std::fabs(p[order[i]] - q[order[i]]));
  return worst;
}

}  // namespace wasmlm_test
