// MXFP4 (E8M0 shared exponent + E2M1 codes): the reference quantizer picks
// ggml's exponent and each weight's nearest level, dequantization gives the
// E2M1 values times 2^(e - 127), and the dot against Q8_0 activations is the
// integer dot scaled by both blocks' scales.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_traits.h"

using namespace wasmlm;

namespace {

// The 16 E2M1 values in code order: every one is exactly representable.
constexpr float kE2m1[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.f, -0.5f, -1, -1.5f, -2, -3, -4, -6};

block_mxfp4 quantize_block(const float* x) {
  block_mxfp4 b;
  quant_traits(GgmlType::MXFP4).from_float(x, &b, QK_MXFP4);
  return b;
}

}  // namespace

TEST(Mxfp4, E8m0HalfIsTwoToTheEMinus128IncludingSubnormals) {
  EXPECT_EQ(e8m0_to_fp32_half(128), 1.0f);
  EXPECT_EQ(e8m0_to_fp32_half(127), 0.5f);
  EXPECT_EQ(e8m0_to_fp32_half(130), 4.0f);
  EXPECT_EQ(e8m0_to_fp32_half(2), std::ldexp(1.0f, -126));
  EXPECT_EQ(e8m0_to_fp32_half(1), std::ldexp(1.0f, -127));  // subnormal
  EXPECT_EQ(e8m0_to_fp32_half(0), std::ldexp(1.0f, -128));  // subnormal
  EXPECT_EQ(e8m0_to_fp32_half(255), std::ldexp(1.0f, 127));
}

TEST(Mxfp4, E2m1ValuesQuantizeToTheirCodesAndBackExactly) {
  // Low nibbles: the 16 values in code order; high nibbles: their negations.
  float x[QK_MXFP4];
  for (int j = 0; j < 16; ++j) {
    x[j] = kE2m1[j];
    x[16 + j] = -kE2m1[j];
  }
  for (int shift : {0, 10, -100, 100}) {
    float xs[QK_MXFP4];
    for (int j = 0; j < QK_MXFP4; ++j) xs[j] = std::ldexp(x[j], shift);
    const block_mxfp4 b = quantize_block(xs);
    SCOPED_TRACE("shift " + std::to_string(shift));
    EXPECT_EQ(b.e, 127 + shift);  // max |x| = 6 * 2^shift: floor(log2) = 2 + shift
    for (int j = 0; j < 16; ++j) {
      const int lo = j == 8 ? 0 : j;                            // -0 takes code 0 (the first of the tie)
      const int hi = j == 0 || j == 8 ? 0 : j < 8 ? j + 8 : j - 8;  // the negated value's code
      EXPECT_EQ(b.qs[j], lo | hi << 4) << "byte " << j;
    }
    float y[QK_MXFP4];
    quant_traits(GgmlType::MXFP4).to_float(&b, y, QK_MXFP4);
    for (int j = 0; j < QK_MXFP4; ++j) EXPECT_EQ(y[j], xs[j]) << j;
  }
}

TEST(Mxfp4, ValuesBetweenLevelsRoundToTheNearestAndTiesToTheLowerCode) {
  float x[QK_MXFP4] = {};
  x[0] = 6;       // e = 127, d = 0.5: levels 0, .5, 1, 1.5, 2, 3, 4, 6
  x[1] = 5;       // tie between 4 (code 6) and 6 (code 7): code 6
  x[2] = 0.25f;   // tie between 0 and 0.5: code 0
  x[3] = -0.25f;  // tie between 0 (code 0) and -0.5 (code 9): code 0
  x[4] = 2.6f;    // nearest 3: code 5
  x[5] = -5.1f;   // nearest -6: code 15
  x[6] = 0.1f;    // nearest 0
  x[16] = -3.4f;  // nearest -3: code 13 (high nibble of byte 0)
  const block_mxfp4 b = quantize_block(x);
  EXPECT_EQ(b.e, 127);
  EXPECT_EQ(b.qs[0], 7 | 13 << 4);
  EXPECT_EQ(b.qs[1], 6);
  EXPECT_EQ(b.qs[2], 0);
  EXPECT_EQ(b.qs[3], 0);
  EXPECT_EQ(b.qs[4], 5);
  EXPECT_EQ(b.qs[5], 15);
  EXPECT_EQ(b.qs[6], 0);
}

TEST(Mxfp4, ZeroBlockHasExponentZeroAndZeroCodes) {
  const float x[QK_MXFP4] = {};
  const block_mxfp4 b = quantize_block(x);
  EXPECT_EQ(b.e, 0);
  for (uint8_t q : b.qs) EXPECT_EQ(q, 0);
  float y[QK_MXFP4];
  quant_traits(GgmlType::MXFP4).to_float(&b, y, QK_MXFP4);
  for (float v : y) EXPECT_EQ(v, 0.f);
}

// Random rows: the exponent is floor(log2 max|x|) + 125, and every weight
// comes back as the nearest of the 16 levels times the block's scale, within
// a quarter of the block's largest magnitude.
TEST(Mxfp4, RoundTripGivesEachWeightItsNearestLevel) {
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.f, 1.f);
  const int64_t n = 32 * 64;
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) x[i] = dist(rng) * std::ldexp(1.0f, static_cast<int>(i / 32) % 40 - 20);
  std::vector<block_mxfp4> q(n / QK_MXFP4);
  quant_traits(GgmlType::MXFP4).from_float(x.data(), q.data(), n);
  quant_traits(GgmlType::MXFP4).to_float(q.data(), y.data(), n);
  double err2 = 0, sig2 = 0;
  for (int64_t b = 0; b < n / QK_MXFP4; ++b) {
    float amax = 0;
    for (int j = 0; j < QK_MXFP4; ++j) amax = std::max(amax, std::fabs(x[b * 32 + j]));
    int exp;
    std::frexp(amax, &exp);  // amax = m 2^exp, m in [0.5, 1): floor(log2 amax) = exp - 1
    ASSERT_EQ(q[b].e, exp - 1 + 125) << "block " << b;
    const float d = std::ldexp(1.0f, q[b].e - 128);
    for (int j = 0; j < QK_MXFP4; ++j) {
      const float xi = x[b * 32 + j], yi = y[b * 32 + j];
      for (int8_t level : kValuesMxfp4) ASSERT_LE(std::fabs(yi - xi), std::fabs(level * d - xi)) << b << " " << j;
      ASSERT_LE(std::fabs(yi - xi), amax / 4) << b << " " << j;
      err2 += double(yi - xi) * (yi - xi);
      sig2 += double(xi) * xi;
    }
  }
  // 4-bit floats on Gaussian blocks: about 13% RMS error relative to the signal.
  const double rel_rms = std::sqrt(err2 / sig2);
  EXPECT_LT(rel_rms, 0.16);
  EXPECT_GT(rel_rms, 0.10);
  std::printf("  MXFP4 relative RMS round-trip error: %.4f\n", rel_rms);
}

TEST(Mxfp4, DotWithQ8_0IsTheIntegerDotTimesBothScales) {
  // Weights: the 16 E2M1 values, then their negations (e = 127, d = 1/2);
  // activations j for the first 16, 1 for the rest, with scale 1 or 1/2.
  float x[QK_MXFP4];
  for (int j = 0; j < 16; ++j) {
    x[j] = kE2m1[j];
    x[16 + j] = -kE2m1[j];
  }
  const block_mxfp4 w = quantize_block(x);
  block_q8_0 a;
  for (int j = 0; j < QK_MXFP4; ++j) a.qs[j] = static_cast<int8_t>(j < 16 ? j : 1);
  const QuantTraits& t = quant_traits(GgmlType::MXFP4);
  EXPECT_EQ(t.vec_dot_type, GgmlType::Q8_0);
  // sum_j j x_j = 96 - 240 over the first half; the second half sums to 0.
  a.d = fp32_to_fp16(1.0f);
  EXPECT_EQ(t.vec_dot_ref(QK_MXFP4, &w, &a), -144.0f);
  EXPECT_EQ(t.vec_dot(QK_MXFP4, &w, &a), -144.0f);
  a.d = fp32_to_fp16(0.5f);
  EXPECT_EQ(t.vec_dot_ref(QK_MXFP4, &w, &a), -72.0f);
  EXPECT_EQ(t.vec_dot(QK_MXFP4, &w, &a), -72.0f);
}

// A non-finite weight (a hostile file's) is defined behaviour: NaN takes code
// 0, an infinite one saturates the exponent at 255.
TEST(Mxfp4, NonFiniteWeightsAreDefined) {
  float x[QK_MXFP4] = {};
  x[0] = 6;
  x[1] = NAN;
  block_mxfp4 b = quantize_block(x);
  EXPECT_EQ(b.e, 127);
  EXPECT_EQ(b.qs[1], 0);
  x[2] = INFINITY;
  b = quantize_block(x);
  EXPECT_EQ(b.e, 255);
}
