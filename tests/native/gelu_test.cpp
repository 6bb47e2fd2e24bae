// gelu_ggml (ggml's CPU GELU: input rounded to F16, result from an F16
// table) at known points, and gelu_mul (in wasm SIMD builds, four inputs
// rounded to F16 at once) against gelu_ggml(g) * u, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "compute/ops.h"
#include "quant/fp16.h"

using namespace wasmlm;

TEST(GeluGgml, RoundsInputAndResultThroughF16AndClampsAtTen) {
  EXPECT_EQ(gelu_ggml(1.0f), 0.84130859375f);       // GELU(1) = 0.8411920 -> F16
  EXPECT_EQ(gelu_ggml(1.0001f), 0.84130859375f);    // the input rounds to 1 first
  EXPECT_EQ(gelu_ggml(-1.0f), -0.15881347656250f);  // GELU(-1) = -0.1588080 -> F16
  EXPECT_EQ(gelu_ggml(0.0f), 0.0f);
  EXPECT_EQ(gelu_ggml(9.99f), 9.9921875f);  // F16(9.99); GELU(x) = x there
  EXPECT_EQ(gelu_ggml(10.0f), 10.0f);
  EXPECT_EQ(gelu_ggml(123.5f), 123.5f);
  EXPECT_EQ(gelu_ggml(-10.0f), 0.0f);
  EXPECT_EQ(gelu_ggml(-1e30f), 0.0f);
}

TEST(GeluMul, GivesTheBitsOfGeluGgmlTimesU) {
  std::vector<float> g, u;
  for (uint32_t h = 0; h < 65536; ++h) g.push_back(fp16_to_fp32(static_cast<uint16_t>(h)));  // every F16 value
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.f, 4.f);
  for (int i = 0; i < 20000; ++i) g.push_back(normal(rng));
  // Rounding ties (F16 half-way points, even and odd), the F16 subnormal edge, the clamps.
  for (float x : {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, -(1.0f + 0x1p-11f), 0x1p-14f, -0x1p-14f, 0x1.ffep-15f,
                  6e-8f, -6e-8f, 1e-30f, 9.999f, -9.999f, 9.9980469f, 10.0f, -10.0f, 10.001f, -10.001f, 1e30f,
                  INFINITY, -INFINITY, NAN})
    g.push_back(x);
  for (size_t i = 0; i < g.size(); ++i) u.push_back(i % 3 ? 1.0f : normal(rng));
  for (size_t n : {g.size(), size_t(1), size_t(3), size_t(37)}) {
    const size_t from = g.size() - n;  // the edge cases sit at the end
    std::vector<float> out(n);
    gelu_mul(out.data(), g.data() + from, u.data() + from, n);
    for (size_t i = 0; i < n; ++i) {
      const float ref = gelu_ggml(g[from + i]) * u[from + i];
      SCOPED_TRACE("g = " + std::to_string(g[from + i]));
      if (std::isnan(ref)) {
        EXPECT_TRUE(std::isnan(out[i]));
      } else {
        EXPECT_EQ(std::memcmp(&out[i], &ref, 4), 0) << out[i] << " vs " << ref;
      }
    }
  }
}
