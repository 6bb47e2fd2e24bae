// Each type's vec_dot equals the dot product of the dequantized weights with
// the dequantized (quantized) activations, for real llama.cpp-quantized rows
// and for random data.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <vector>

#include "format/incremental_parser.h"
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_traits.h"
#include "testdata.h"

using namespace wasmlm;
namespace fs = std::filesystem;

namespace {

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Checks vec_dot on one row `w` (n elements of `type`) against activations a.
void expect_dot_matches_dequantized(GgmlType type, const uint8_t* w, int64_t n, const std::vector<float>& a) {
  const QuantTraits& t = quant_traits(type);
  ASSERT_NE(t.vec_dot, nullptr) << ggml_type_info(type).name;
  const QuantTraits& at = quant_traits(t.vec_dot_type);
  std::vector<uint64_t> qa((*ggml_nbytes(t.vec_dot_type, n) + 7) / 8);
  at.from_float(a.data(), qa.data(), n);
  std::vector<float> wf(n), af(n);
  t.to_float(w, wf.data(), n);
  at.to_float(qa.data(), af.data(), n);
  double ref = 0, mag = 0;
  for (int64_t i = 0; i < n; ++i) {
    ref += double(wf[i]) * af[i];
    mag += std::fabs(double(wf[i]) * af[i]);
  }
  if (t.vec_dot_type == GgmlType::Q8_1) {
    // Q8_1 stores s = fp16(d * sum(q)) and ggml's dot uses it for the weights'
    // min term (m * s), so the exact reference uses the stored s as well.
    const auto* yb = reinterpret_cast<const block_q8_1*>(qa.data());
    const uint32_t wsize = ggml_type_info(type).type_size;
    for (int64_t b = 0; b < n / QK8_1; ++b) {
      int sq = 0;
      for (int j = 0; j < QK8_1; ++j) sq += yb[b].qs[j];
      uint16_t m_bits;  // Q4_1 and Q5_1 blocks start with {d, m}
      std::memcpy(&m_bits, w + b * wsize + 2, 2);
      const double m = fp16_to_fp32(m_bits);
      ref += m * (double(fp16_to_fp32(yb[b].s)) - double(fp16_to_fp32(yb[b].d)) * sq);
    }
  }
  float got = t.vec_dot(n, w, qa.data());
  EXPECT_NEAR(got, ref, 1e-5 * mag + 1e-6) << ggml_type_info(type).name << " n=" << n;
}

fs::path testdata() { return fs::path(wasmlm_test::testdata_dir()); }

}  // namespace

TEST(VecDot, RandomRowsOfEveryQuantizableTypeMatchDequantizedDot) {
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16, GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q5_0,
                        GgmlType::Q5_1, GgmlType::Q8_0, GgmlType::IQ4_NL, GgmlType::Q4_K, GgmlType::Q5_K,
                        GgmlType::Q6_K}) {
    for (int64_t n : {256, 4096}) {
      std::vector<float> x = random_floats(n, 1 + static_cast<uint32_t>(type));
      std::vector<uint64_t> w((*ggml_nbytes(type, n) + 7) / 8);
      quant_traits(type).from_float(x.data(), w.data(), n);
      expect_dot_matches_dequantized(type, reinterpret_cast<const uint8_t*>(w.data()), n, random_floats(n, 99));
    }
  }
}

// Types without a quantizer: random blocks (every grid index, sign pattern
// and scale) with a sane fp16 d in their first two bytes.
TEST(VecDot, RandomBlocksOfTheIq2TypesMatchDequantizedDot) {
  for (GgmlType type : {GgmlType::IQ2_XXS, GgmlType::IQ2_XS, GgmlType::IQ2_S}) {
    std::mt19937 rng(17 + static_cast<uint32_t>(type));
    for (int64_t n : {256, 4096}) {
      const uint64_t bytes = *ggml_nbytes(type, n);
      std::vector<uint64_t> w((bytes + 7) / 8);
      auto* p = reinterpret_cast<uint8_t*>(w.data());
      for (uint64_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(rng());
      for (uint64_t at = 0; at < bytes; at += ggml_type_info(type).type_size) {
        const uint16_t d = fp32_to_fp16(0.01f + 0.001f * static_cast<float>(rng() % 16));
        std::memcpy(p + at, &d, 2);
      }
      expect_dot_matches_dequantized(type, p, n, random_floats(n, 5));
    }
  }
}

// The same for the IQ3 and IQ1 types; IQ1_M keeps its fp16 d in the top
// nibbles of the four uint16 of its scales (bytes 48-55).
TEST(VecDot, RandomBlocksOfTheIq3AndIq1TypesMatchDequantizedDot) {
  for (GgmlType type : {GgmlType::IQ3_XXS, GgmlType::IQ3_S, GgmlType::IQ1_S, GgmlType::IQ1_M}) {
    std::mt19937 rng(23 + static_cast<uint32_t>(type));
    for (int64_t n : {256, 4096}) {
      const uint64_t bytes = *ggml_nbytes(type, n);
      std::vector<uint64_t> w((bytes + 7) / 8);
      auto* p = reinterpret_cast<uint8_t*>(w.data());
      for (uint64_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(rng());
      for (uint64_t at = 0; at < bytes; at += ggml_type_info(type).type_size) {
        const uint16_t d = fp32_to_fp16(0.01f + 0.001f * static_cast<float>(rng() % 16));
        if (type != GgmlType::IQ1_M) {
          std::memcpy(p + at, &d, 2);
          continue;
        }
        for (int k = 0; k < 4; ++k) p[at + 49 + 2 * k] = static_cast<uint8_t>((p[at + 49 + 2 * k] & 0x0F) | (((d >> 4 * k) & 0xF) << 4));
      }
      expect_dot_matches_dequantized(type, p, n, random_floats(n, 5));
    }
  }
}

TEST(VecDot, RealLlamaCppRowsOfEveryWeightTypeMatchDequantizedDot) {
  WASMLM_REQUIRE_TESTDATA();
  std::set<std::string> covered;
  for (const auto& entry : fs::directory_iterator(testdata() / "synth-kq")) {
    if (entry.path().extension() != ".gguf") continue;
    std::vector<uint8_t> bytes = wasmlm_test::read_file(entry.path().string());
    ModelFile dir = read_model_directory(bytes.data(), bytes.size());
    for (const TensorInfo& t : dir.tensors) {
      if (!quant_traits(t.type).vec_dot || t.n_dims != 2) continue;
      const int64_t n = static_cast<int64_t>(t.ne[0]);
      const uint64_t row_bytes = t.nbytes / t.ne[1];
      std::vector<uint64_t> row((row_bytes + 7) / 8);
      for (uint64_t r : {uint64_t(0), t.ne[1] / 2, t.ne[1] - 1}) {
        std::memcpy(row.data(), bytes.data() + t.offset + r * row_bytes, row_bytes);
        expect_dot_matches_dequantized(t.type, reinterpret_cast<const uint8_t*>(row.data()), n,
                                       random_floats(n, static_cast<uint32_t>(r)));
      }
      covered.insert(ggml_type_info(t.type).name);
    }
  }
  for (const char* type : {"F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
                           "Q6_K", "IQ4_NL", "IQ4_XS", "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M", "TQ1_0", "TQ2_0", "IQ2_XXS", "IQ2_XS", "IQ2_S"})
    EXPECT_TRUE(covered.count(type)) << type;
}
