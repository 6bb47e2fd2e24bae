// silu_mul (the feed-forward's SiLU gate; in wasm SIMD builds e^x from a
// polynomial) against the scalar silu(g) * u.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compute/ops.h"

using namespace wasmlm;

TEST(SiluMul, MatchesTheScalarFormWithinAFewUlps) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 6.f);
  std::vector<float> g, u;
  for (int i = 0; i < 4000; ++i) g.push_back(normal(rng));
  for (float x = -120.f; x <= 120.f; x += 0.37f) g.push_back(x);  // past the clamp at |g| = 87 too
  for (float x : {0.f, -0.f, 1e-30f, -1e-30f, 86.9f, -86.9f, 87.5f, -87.5f, 88.7f, -88.7f, 1e30f, -1e30f}) g.push_back(x);
  for (size_t i = 0; i < g.size(); ++i) u.push_back(i % 3 ? 1.0f : normal(rng));
  for (size_t n : {g.size(), size_t(1), size_t(3), size_t(37)}) {  // and 4-value tails
    std::vector<float> out(n);
    silu_mul(out.data(), g.data(), u.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const float ref = silu(g[i]) * u[i];
      SCOPED_TRACE("g = " + std::to_string(g[i]) + ", u = " + std::to_string(u[i]));
      EXPECT_NEAR(out[i], ref, 4e-7f * std::fabs(ref) + 1e-30f);
    }
  }
}

TEST(SiluMul, NanStaysNan) {
  const float g[5] = {1.f, NAN, -2.f, 3.f, NAN}, u[5] = {1.f, 1.f, NAN, 1.f, 1.f};
  float out[5];
  silu_mul(out, g, u, 5);
  EXPECT_FALSE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_FALSE(std::isnan(out[3]));
  EXPECT_TRUE(std::isnan(out[4]));
}
