// RoPE (llama.cpp's normal layout) with and without LLaMA-3's per-dimension
// frequency factors, against the rotation computed directly in double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compute/ops.h"

using namespace wasmlm;

namespace {

constexpr int kHeads = 2, kHeadDim = 16, kRot = 12;

std::vector<float> random_heads(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> x(kHeads * kHeadDim);
  for (auto& v : x) v = dist(rng);
  return x;
}

// Pair i of each head turned by pos * scale * base^(-2i/n_rot) / factor[i].
std::vector<double> rotated(const std::vector<float>& x, int pos, double base, double scale,
                            const std::vector<float>& factors) {
  std::vector<double> out(x.begin(), x.end());
  for (int h = 0; h < kHeads; ++h)
    for (int i = 0; i < kRot; i += 2) {
      const double f = factors.empty() ? 1.0 : factors[i / 2];
      const double angle = scale * pos * std::pow(base, -double(i) / kRot) / f;
      const double a = x[h * kHeadDim + i], b = x[h * kHeadDim + i + 1];
      out[h * kHeadDim + i] = a * std::cos(angle) - b * std::sin(angle);
      out[h * kHeadDim + i + 1] = a * std::sin(angle) + b * std::cos(angle);
    }
  return out;
}

}  // namespace

TEST(Rope, RotatesLeadingPairsByTheDirectAnglesWithAndWithoutFactors) {
  const std::vector<float> factors = {1.f, 1.f, 2.5f, 8.f, 8.f, 32.f};  // n_rot / 2 of them
  for (int pos : {0, 1, 7, 300}) {
    for (bool with_factors : {false, true}) {
      std::vector<float> x = random_heads(pos + 1);
      const std::vector<double> expect = rotated(x, pos, 10000.0, 0.5, with_factors ? factors : std::vector<float>{});
      rope_normal(x.data(), kHeads, kHeadDim, kRot, pos, 10000.f, 0.5f, with_factors ? factors.data() : nullptr);
      for (size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(x[i], expect[i], 2e-4) << "pos " << pos << " dim " << i << (with_factors ? " with factors" : "");
    }
  }
}

TEST(Rope, UnitFactorsChangeNothingToTheBit) {
  const std::vector<float> ones(kRot / 2, 1.f);
  std::vector<float> a = random_heads(5), b = a;
  rope_normal(a.data(), kHeads, kHeadDim, kRot, 123, 500000.f, 1.f);
  rope_normal(b.data(), kHeads, kHeadDim, kRot, 123, 500000.f, 1.f, ones.data());
  EXPECT_EQ(a, b);
}
