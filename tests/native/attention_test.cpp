// Attention over the KV cache (decoder_attention.cpp, attention_kernels.cpp):
// its bits depend on the positions alone. A batched prompt, token-by-token
// decoding, 1 to 8 threads (split-K decoding included) and the scalar
// reference kernels all give the same logits, for F16 and F32 caches, past
// several chunks of keys and around a sliding-window ring. The SIMD kernels
// equal the scalar ones for every row count, element type and head size.
// Built into the native and the wasm suites.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compute/attention_kernels.h"
#include "decoder_test_models.h"
#include "model/decoder_context.h"
#include "model/kv_cache.h"
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"

using namespace wasmlm;

namespace {

std::vector<int32_t> ids(int n, int seed) {
  std::vector<int32_t> out;
  for (int i = 0; i < n; ++i) out.push_back(3 + (i * 131 + seed * 17 + i * i) % 509);
  return out;
}

// Logits after the prompt's first `batched` tokens in one call, then each
// after one more token.
std::vector<std::vector<float>> run(const DecoderModel& model, int threads, KvCacheType kv, KernelChoice kernels,
                                    const std::vector<int32_t>& prompt, size_t batched) {
  ThreadPool pool(threads);
  DecoderContext ctx(model, 1024, pool, kv, kernels);
  const size_t nv = model.hparams().n_vocab;
  std::vector<std::vector<float>> out;
  const float* l = ctx.eval(prompt.data(), static_cast<int>(batched));
  out.emplace_back(l, l + nv);
  for (size_t i = batched; i < prompt.size(); ++i) {
    l = ctx.eval(&prompt[i], 1);
    out.emplace_back(l, l + nv);
  }
  return out;
}

// Equal logits, or the first step and id that differ.
::testing::AssertionResult same(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << a.size() << " against " << b.size() << " steps";
  for (size_t s = 0; s < a.size(); ++s)
    for (size_t i = 0; i < a[s].size(); ++i)
      if (!(a[s][i] == b[s][i]))
        return ::testing::AssertionFailure() << "step " << s << ", id " << i << ": " << a[s][i] << " against " << b[s][i];
  return ::testing::AssertionSuccess();
}

class AttentionBits : public ::testing::TestWithParam<const char*> {};

TEST_P(AttentionBits, DependOnPositionsNotOnBatchesThreadsOrKernels) {
  WASMLM_LOAD_DECODER_MODEL(m, std::string(GetParam()) + "-F32.gguf");
  // 560 positions: 3 chunks of keys, and gemma3's windowed layers (window 8)
  // wrap their 264-slot rings twice.
  const std::vector<int32_t> prompt = ids(560, 5);
  for (KvCacheType kv : {KvCacheType::F16, KvCacheType::F32, KvCacheType::Q8_0}) {
    SCOPED_TRACE(std::string(kv_cache_type_name(kv)) + " cache");
    // The last 4 tokens one by one (decoding at depth 556..559).
    const auto want = run(*m->model, 1, kv, KernelChoice::Best, prompt, 556);
    for (float x : want.back()) ASSERT_TRUE(std::isfinite(x));
    for (int threads : {2, 4, 8}) {
      SCOPED_TRACE(threads);
      EXPECT_TRUE(same(run(*m->model, threads, kv, KernelChoice::Best, prompt, 556), want));
    }
    // All 560 in one call: its last logits are those of the last decoding step.
    EXPECT_TRUE(same({run(*m->model, 2, kv, KernelChoice::Best, prompt, 560)[0]}, {want.back()}));
    // 500 in one call, then one by one (3 threads): the step at 556 equals the batch's.
    EXPECT_TRUE(same({run(*m->model, 3, kv, KernelChoice::Best, prompt, 500)[56]}, {want[0]}));
    EXPECT_TRUE(same(run(*m->model, 2, kv, KernelChoice::Reference, prompt, 556), want));
  }
}

INSTANTIATE_TEST_SUITE_P(Models, AttentionBits, ::testing::Values("gemma3", "qwen3", "phi3"));

// Values like a cache's: mostly moderate, some tiny (F16 subnormals) or 0.
float cache_value(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  const float x = u(rng);
  const int kind = static_cast<int>(rng() % 16);
  if (kind == 0) return 0.0f;
  if (kind == 1) return x * 3e-6f;
  return x * 4;
}

TEST(AttentionKernels, SimdEqualsScalarForEveryRowCountElementAndHeadSize) {
  std::mt19937 rng(7);
  for (int hd : {8, 12, 32, 40, 64, 80, 96, 128, 256}) {
    // 6 blocks of 8 slots (spare rows after them in both caches).
    const uint32_t n_slots = 48;
    std::vector<float> k32((n_slots + 16) * hd), v32((n_slots + 2) * (hd + 3));
    std::vector<uint16_t> k16(k32.size()), v16(v32.size());
    for (size_t i = 0; i < k32.size(); ++i) k16[i] = fp32_to_fp16(k32[i] = cache_value(rng));
    for (size_t i = 0; i < v32.size(); ++i) v16[i] = fp32_to_fp16(v32[i] = cache_value(rng));
    for (KvElement e : {KvElement::F32, KvElement::F16, KvElement::F16Raw}) {
      const float factor = e == KvElement::F16Raw ? kF16RawFactor : 1.0f;
      const void* k = e == KvElement::F32 ? static_cast<const void*>(k32.data()) : k16.data();
      const void* v = e == KvElement::F32 ? static_cast<const void*>(v32.data()) : v16.data();
      for (int rows = 1; rows <= AttentionKernels::kMaxRows; ++rows)
        for (uint32_t slot0 : {0u, 3u, 8u, 13u})
          for (uint32_t n : {1u, 5u, 8u, 17u, n_slots - slot0}) {
          SCOPED_TRACE(::testing::Message() << "hd " << hd << " element " << int(e) << " rows " << rows << " slot0 "
                                            << slot0 << " n " << n);
          std::vector<std::vector<float>> q(rows, std::vector<float>(hd)), w(rows, std::vector<float>(n));
          for (auto& r : q)
            for (float& x : r) x = fp16_to_fp32(fp32_to_fp16(cache_value(rng))) * factor;
          for (auto& r : w)
            for (float& x : r) x = fp16_to_fp32(fp32_to_fp16(std::fabs(cache_value(rng)) / 4)) * factor;
          std::vector<std::vector<float>> s[2], acc[2];
          for (int simd = 0; simd < 2; ++simd) {
            const AttentionKernels kernels{e, simd == 1, hd};
            s[simd].assign(rows, std::vector<float>(n + 16, -7.0f));
            acc[simd].assign(rows, std::vector<float>(hd, 0.5f));
            const float* qp[4];
            const float* wp[4];
            float* sp[4];
            float* ap[4];
            for (int r = 0; r < rows; ++r) qp[r] = q[r].data(), wp[r] = w[r].data(), sp[r] = s[simd][r].data(), ap[r] = acc[simd][r].data();
            kernels.scores(k, slot0, qp, rows, n, sp);
            // rows of values further apart than hd
            kernels.values(static_cast<const uint8_t*>(v) + slot0 * (hd + 3) * (e == KvElement::F32 ? 4 : 2), hd + 3, wp,
                           rows, n, ap);
          }
          EXPECT_EQ(s[1], s[0]);
          EXPECT_EQ(acc[1], acc[0]);
          for (int r = 0; r < rows; ++r) EXPECT_EQ(s[1][r][n], -7.0f) << "written past n";
          // And the scores are the products of the cache's values.
          const float want = [&] {
            float sum = 0;
            for (int i = 0; i < hd; ++i) {
              const uint64_t at = KvCache::key_index(slot0, i, hd);
              sum += q[0][i] / factor * (e == KvElement::F32 ? k32[at] : fp16_to_fp32(k16[at]));
            }
            return sum;
          }();
          EXPECT_EQ(s[1][0][0], want);
        }
    }
  }
}

TEST(AttentionKernels, Q8_0SimdEqualsScalarAndTheBlockFormula) {
  std::mt19937 rng(11);
  for (int hd : {32, 64, 128, 256}) {
    const int nb = hd / QK8_0;
    const uint32_t n_slots = 21;
    std::vector<float> kf(n_slots * hd), vf(n_slots * hd);
    for (float& x : kf) x = cache_value(rng);
    for (float& x : vf) x = cache_value(rng);
    std::vector<block_q8_0> k(n_slots * nb), v(n_slots * nb);
    quantize_row_q8_0(kf.data(), k.data(), n_slots * hd);
    quantize_row_q8_0(vf.data(), v.data(), n_slots * hd);
    for (int rows = 1; rows <= AttentionKernels::kMaxRows; ++rows)
      for (uint32_t slot0 : {0u, 5u})
        for (uint32_t n : {1u, 7u, n_slots - slot0}) {
          SCOPED_TRACE(::testing::Message() << "hd " << hd << " rows " << rows << " slot0 " << slot0 << " n " << n);
          std::vector<std::vector<block_q8_0>> q(rows, std::vector<block_q8_0>(nb));
          std::vector<std::vector<float>> w(rows, std::vector<float>(n));
          for (auto& r : q) {
            std::vector<float> x(hd);
            for (float& e : x) e = cache_value(rng);
            quantize_row_q8_0(x.data(), r.data(), hd);
          }
          for (auto& r : w)
            for (float& x : r) x = std::fabs(cache_value(rng)) / 4;
          std::vector<std::vector<float>> s[2], acc[2];
          for (int simd = 0; simd < 2; ++simd) {
            const AttentionKernels kernels{KvElement::Q8_0, simd == 1, hd};
            s[simd].assign(rows, std::vector<float>(n, 0.f));
            acc[simd].assign(rows, std::vector<float>(hd, 0.25f));
            const float* qp[4];
            const float* wp[4];
            float* sp[4];
            float* ap[4];
            for (int r = 0; r < rows; ++r) {
              qp[r] = reinterpret_cast<const float*>(q[r].data());
              wp[r] = w[r].data(), sp[r] = s[simd][r].data(), ap[r] = acc[simd][r].data();
            }
            kernels.scores(k.data(), slot0, qp, rows, n, sp);
            kernels.values(v.data() + slot0 * nb, nb * sizeof(block_q8_0), wp, rows, n, ap);
          }
          EXPECT_EQ(s[1], s[0]);
          EXPECT_EQ(acc[1], acc[0]);
          // llama.cpp's block formula: the integer dot per block, scaled by both d's, summed in order
          const int r = rows - 1, j = static_cast<int>(n) - 1;
          float want = 0;
          for (int b = 0; b < nb; ++b) {
            const block_q8_0& kb = k[(slot0 + j) * nb + b];
            int32_t dot = 0;
            for (int i = 0; i < QK8_0; ++i) dot += kb.qs[i] * q[r][b].qs[i];
            want += static_cast<float>(dot) * (fp16_to_fp32(kb.d) * fp16_to_fp32(q[r][b].d));
          }
          EXPECT_EQ(s[1][r][j], want);
          float a = 0.25f;
          for (uint32_t x = 0; x < n; ++x) a += w[r][x] * (fp16_to_fp32(v[(slot0 + x) * nb + 1 % nb].d) * v[(slot0 + x) * nb + 1 % nb].qs[0]);
          EXPECT_EQ(acc[1][r][(1 % nb) * QK8_0], a);
        }
  }
}

TEST(AttentionKernels, RoundingToF16GivesTheScalarConversionsBits) {
  std::mt19937 rng(3);
  std::vector<float> w;
  for (float x : {0.0f, 1.0f, 0.5f, 0x1.0p-24f, 0x1.0p-25f, 0x1.8p-25f, 0x1.0p-14f, 0x1.ffcp-15f, 0x1.0p-26f, 65504.0f,
                  65519.99f, 65520.0f, 1e9f, INFINITY, NAN, 0x1.0p-149f})
    w.push_back(x);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t bits = rng() % 0x3F800001u;  // [0, 1]: every exponent, ties included
    w.push_back(fp32_from_bits(bits));
    // a tie: exactly half an F16 ulp (or subnormal step) above a multiple
    const uint32_t e = 100 + rng() % 43;
    w.push_back(fp32_from_bits((e << 23) | (rng() & 0x7FE000u) | (e >= 113 ? 0x1000u : 0u)));
    w.push_back(fp32_from_bits(rng()));  // any float
  }
  const size_t n = w.size();
  for (size_t i = 0; i < n; ++i) w.push_back(-w[i]);
  const auto same = [](float a, float b) { return fp32_to_bits(a) == fp32_to_bits(b) || (a != a && b != b); };
  for (float pre : {1.0f, 0.37f})
    for (float factor : {1.0f, kF16RawFactor}) {
      std::vector<float> a(w.size()), b(w.size());
      round_to_f16(w.data(), a.data(), static_cast<uint32_t>(w.size()), pre, factor, true);
      round_to_f16(w.data(), b.data(), static_cast<uint32_t>(w.size()), pre, factor, false);
      for (size_t i = 0; i < w.size(); ++i) {
        ASSERT_TRUE(same(a[i], b[i])) << w[i] << " pre " << pre << ": " << a[i] << " against " << b[i];
        ASSERT_TRUE(same(b[i], fp16_to_fp32(fp32_to_fp16(w[i] * pre)) * factor)) << w[i];
      }
    }
}

TEST(AttentionKernels, ExponentialsAreTheScalarTwinsBitsWithinTwoUlpOfExp) {
  std::mt19937 rng(11);
  std::vector<float> s;
  for (float x : {0.0f, -1e-30f, -0.5f, -86.9f, -87.0f, -87.01f, -100.0f, -INFINITY, 90.0f, INFINITY}) s.push_back(x);
  std::uniform_real_distribution<float> wide(-90.0f, 0.0f), near(-4.0f, 0.0f);
  for (int i = 0; i < 20000; ++i) s.push_back(i % 2 ? wide(rng) : near(rng));
  for (float max : {0.0f, 3.5f, -2.0f}) {
    std::vector<float> shifted = s;
    for (float& x : shifted) x += max;
    std::vector<float> a = shifted, b = shifted;
    // a tail past the last multiple of 4: the SIMD kernel's scalar loop
    const uint32_t n = static_cast<uint32_t>(s.size()) - 1;
    const double sum_simd = exp_scores(a.data(), n, max, true), sum_scalar = exp_scores(b.data(), n, max, false);
    float e87 = 87.0f + max;
    exp_scores(&e87, 1, max, false);
    ASSERT_TRUE(std::isfinite(e87));
    ASSERT_LE(std::fabs(e87 - std::exp(87.0f)), 2 * (std::nextafter(std::exp(87.0f), INFINITY) - std::exp(87.0f)));
    ASSERT_EQ(sum_simd, sum_scalar);
    double sum = 0;
    for (uint32_t j = 0; j < n; ++j) {
      ASSERT_EQ(fp32_to_bits(a[j]), fp32_to_bits(b[j])) << shifted[j];
      sum += b[j];
      const float x = shifted[j] - max, want = std::exp(x);
      if (x < -87.0f) {
        ASSERT_EQ(b[j], 0.0f) << x;
      } else if (x > 87.0f) {  // past the maximum: only non-finite scores
        ASSERT_EQ(b[j], e87) << x;
      } else {
        ASSERT_LE(std::fabs(b[j] - want), 2 * (std::nextafter(want, INFINITY) - want)) << x;
      }
    }
    EXPECT_EQ(sum_scalar, sum);
    EXPECT_EQ(a[n], shifted[n]) << "written past n";
  }
  float nan = NAN;
  EXPECT_TRUE(std::isnan(exp_scores(&nan, 1, 0.0f, false)));
}

}  // namespace
