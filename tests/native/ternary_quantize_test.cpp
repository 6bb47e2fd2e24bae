// The ternary quantizers (TQ1_0, TQ2_0) scale by the block's largest
// magnitude and round halves away from zero, as ggml's lroundf does: a value
// at half the largest magnitude becomes +-1, not 0. (Their bytes against
// llama-quantize's are checked in quantize_matches_llama_quantize_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "quant/blocks.h"
#include "quant/quant_traits.h"

using namespace wasmlm;

TEST(TernaryQuantize, HalvesRoundAwayFromZeroAndTheScaleIsTheLargestMagnitude) {
  for (GgmlType type : {GgmlType::TQ1_0, GgmlType::TQ2_0}) {
    SCOPED_TRACE(ggml_type_info(type).name);
    const QuantTraits& t = quant_traits(type);
    ASSERT_NE(t.from_float, nullptr);
    // Two blocks: -2, -1, 0, 1, 2 repeating (x / d = -1, -0.5, 0, 0.5, 1),
    // then the same times -3 with two values just inside the halves.
    std::vector<float> x(2 * QK_K), want(2 * QK_K), y(2 * QK_K);
    for (int j = 0; j < QK_K; ++j) {
      x[j] = static_cast<float>(j % 5 - 2);
      want[j] = 2.0f * static_cast<float>(j % 5 == 2 ? 0 : j % 5 < 2 ? -1 : 1);
      x[QK_K + j] = -3 * x[j];
      want[QK_K + j] = -3 * want[j];
    }
    x[QK_K + 1] = 2.99f;  // 2.99 / 6 < 0.5: 0
    want[QK_K + 1] = 0;
    x[QK_K + 3] = -3.01f;  // -3.01 / 6 < -0.5: -1
    want[QK_K + 3] = -6;
    std::vector<uint8_t> q(*ggml_nbytes(type, 2 * QK_K));
    t.from_float(x.data(), q.data(), 2 * QK_K);
    t.to_float(q.data(), y.data(), 2 * QK_K);
    for (int j = 0; j < 2 * QK_K; ++j) ASSERT_EQ(y[j], want[j]) << "weight " << j << " x " << x[j];
  }
}

TEST(TernaryQuantize, ZeroBlockStaysZero) {
  for (GgmlType type : {GgmlType::TQ1_0, GgmlType::TQ2_0}) {
    std::vector<float> x(QK_K, 0.f), y(QK_K, 1.f);
    std::vector<uint8_t> q(*ggml_nbytes(type, QK_K));
    quant_traits(type).from_float(x.data(), q.data(), QK_K);
    quant_traits(type).to_float(q.data(), y.data(), QK_K);
    for (float v : y) EXPECT_EQ(v, 0.f) << ggml_type_info(type).name;
  }
}

// A non-finite weight (a hostile file's) is defined behaviour: NaN becomes 0
// and the rest of the block keeps its scale.
TEST(TernaryQuantize, NanWeightBecomesZero) {
  for (GgmlType type : {GgmlType::TQ1_0, GgmlType::TQ2_0}) {
    std::vector<float> x(QK_K, 1.f), y(QK_K);
    x[7] = NAN;
    x[8] = -4.f;
    std::vector<uint8_t> q(*ggml_nbytes(type, QK_K));
    quant_traits(type).from_float(x.data(), q.data(), QK_K);
    quant_traits(type).to_float(q.data(), y.data(), QK_K);
    EXPECT_EQ(y[7], 0.f) << ggml_type_info(type).name;
    EXPECT_EQ(y[8], -4.f) << ggml_type_info(type).name;
    EXPECT_EQ(y[0], 0.f) << ggml_type_info(type).name;  // 1 / 4 rounds to 0
  }
}
