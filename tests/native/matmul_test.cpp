// matvec and matmul give, for every weight type and thread count, exactly the
// per-row vec_dot results (in SIMD builds: the int16-activation kernel's, one
// token at a time, whatever the number of tokens per call) (the rows are split across threads, never summed
// across them), and agree with a float reference within quantization error.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compute/matmul.h"
#include "core/error.h"
#include "quant/quant_traits.h"
#include "quant/wide_activations.h"

using namespace wasmlm;

namespace {

struct Fixture {
  GgmlType type;
  int64_t cols, rows;
  std::vector<uint8_t> data;
  std::vector<float> dense;  // dequantized weights
  WeightMatrix w() const { return {type, cols, rows, data.data(), *ggml_nbytes(type, cols)}; }
};

Fixture make(GgmlType type, int64_t cols, int64_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  Fixture f{type, cols, rows, {}, {}};
  std::vector<float> x(cols * rows);
  for (auto& v : x) v = dist(rng);
  const uint64_t rb = *ggml_nbytes(type, cols);
  f.data.resize(rb * rows);
  f.dense.resize(cols * rows);
  if (!quant_traits(type).from_float) {
    // No quantizer (the IQ2 types): random blocks whose fp16 d (their first
    // two bytes) is a sane 2^-6.
    const uint32_t block_bytes = ggml_type_info(type).type_size;
    for (auto& b : f.data) b = static_cast<uint8_t>(rng());
    for (size_t at = 0; at < f.data.size(); at += block_bytes) {
      if (type == GgmlType::IQ1_M) {  // d in the top nibbles of scales' uint16s (bytes 48-55)
        for (int k = 0; k < 4; ++k) f.data[at + 49 + 2 * k] = static_cast<uint8_t>((f.data[at + 49 + 2 * k] & 0x0F) | (((0x2400 >> 4 * k) & 0xF) << 4));
        continue;
      }
      f.data[at] = 0x00;
      f.data[at + 1] = 0x24;
    }
    quant_traits(type).to_float(f.data.data(), f.dense.data(), cols * rows);
    return f;
  }
  for (int64_t r = 0; r < rows; ++r) {
    quant_traits(type).from_float(x.data() + r * cols, f.data.data() + r * rb, cols);
    quant_traits(type).to_float(f.data.data() + r * rb, f.dense.data() + r * cols, cols);
  }
  return f;
}

}  // namespace

TEST(Matmul, MatvecAndMatmulMatchPerRowDotsForEveryThreadCount) {
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K,
                        GgmlType::IQ4_NL, GgmlType::Q5_1, GgmlType::TQ1_0, GgmlType::TQ2_0,
                        GgmlType::MXFP4, GgmlType::IQ3_XXS, GgmlType::IQ3_S, GgmlType::IQ1_S, GgmlType::IQ1_M, GgmlType::IQ2_XXS, GgmlType::IQ2_XS, GgmlType::IQ2_S}) {
    Fixture f = make(type, 512, 203, 7);  // 203: a last tile of 3 rows
    const int64_t n_tokens = 13;
    std::mt19937 rng(3);
    std::normal_distribution<float> dist(0.f, 1.f);
    std::vector<float> x(n_tokens * f.cols);
    for (auto& v : x) v = dist(rng);
    const QuantTraits& t = quant_traits(type);
    // Expected: vec_dot per (row, token) on singly quantized activations.
    std::vector<float> expect(n_tokens * f.rows);
    std::vector<uint8_t> qa(*ggml_nbytes(t.vec_dot_type, f.cols));
    for (int64_t tok = 0; tok < n_tokens; ++tok) {
      quant_traits(t.vec_dot_type).from_float(x.data() + tok * f.cols, qa.data(), f.cols);
      if (t.round_activations_to != GgmlType::F32) {  // F16/BF16 weights: activations rounded as ggml does
        std::vector<uint16_t> half(f.cols);
        auto* row = reinterpret_cast<float*>(qa.data());
        quant_traits(t.round_activations_to).from_float(row, half.data(), f.cols);
        quant_traits(t.round_activations_to).to_float(half.data(), row, f.cols);
      }
      std::vector<uint8_t> wide;
      if (t.vec_dot_wide) {  // SIMD builds: the product uses the int16-activation kernels
        wide.resize(wide_activation_bytes(t.wide_form, f.cols));
        widen_activations(t.wide_form, qa.data(), wide.data(), f.cols, t.level_offset);
      }
      for (int64_t r = 0; r < f.rows; ++r) {
        const uint8_t* row = f.data.data() + r * f.w().row_bytes;
        if (t.vec_dot_wide)
          t.vec_dot_wide(f.cols, row, wide.data(), 0, 1, &expect[tok * f.rows + r], 0);
        else
          expect[tok * f.rows + r] = t.vec_dot(f.cols, row, qa.data());
      }
    }
    for (int threads : {1, 2, 3})
      for (bool touch : {true, false}) {  // rows touched ahead or not: the same bits
        ThreadPool pool(threads);
        MatmulScratch scratch;
        scratch.row_touch.pin(touch);
        std::vector<float> y(n_tokens * f.rows, NAN);
        matmul(f.w(), x.data(), n_tokens, y.data(), pool, scratch);
        EXPECT_EQ(y, expect) << ggml_type_info(type).name << " threads=" << threads << " touch=" << touch;
        std::vector<float> yv(f.rows, NAN);
        matvec(f.w(), x.data() + 5 * f.cols, yv.data(), pool, scratch);
        EXPECT_TRUE(std::equal(yv.begin(), yv.end(), expect.begin() + 5 * f.rows)) << ggml_type_info(type).name;
      }
    // Against dense float math: error bounded by activation quantization.
    for (int64_t r = 0; r < f.rows; r += 37) {
      double ref = 0, mag = 0;
      for (int64_t c = 0; c < f.cols; ++c) {
        ref += double(f.dense[r * f.cols + c]) * x[c];
        mag += std::fabs(double(f.dense[r * f.cols + c]) * x[c]);
      }
      EXPECT_NEAR(expect[r], ref, 0.02 * mag) << ggml_type_info(type).name << " row " << r;
    }
  }
}

TEST(ThreadPool, RunsEveryTaskOnceAcrossThreadsAndIsReusable) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), ThreadPool::threads_supported() ? 3 : 1);  // 1: a build without threads
  for (int round = 0; round < 50; ++round) {
    std::vector<int> hits(97, 0);
    std::vector<int> by_thread(3, 0);
    std::mutex m;
    pool.parallel_for(97, [&](int task, int thread) {
      std::lock_guard<std::mutex> lock(m);
      ++hits[task];
      ++by_thread[thread];
    });
    for (int h : hits) ASSERT_EQ(h, 1);
  }
}

TEST(Matmul, RejectsTypesWithoutAKernel) {
  ThreadPool pool(1);
  MatmulScratch scratch;
  std::vector<uint8_t> data(1024);
  WeightMatrix w{GgmlType::Q8_K, 256, 1, data.data(), 292};  // activations only: no vec_dot
  std::vector<float> x(256), y(1);
  EXPECT_THROW(matvec(w, x.data(), y.data(), pool, scratch), Error);
}

// matmul_group (one quantization, one job over all rows) gives exactly the
// results of separate matmul calls, for groups of one type and width, and
// falls back to them for mixed ones.
TEST(Matmul, GroupEqualsSeparateMatmuls) {
  for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::F32}) {
    Fixture a = make(type, 256, 100, 1), b = make(type, 256, 37, 2), c = make(GgmlType::Q8_0, 256, 70, 3);
    const int64_t n_tokens = 9;
    std::mt19937 rng(5);
    std::normal_distribution<float> dist(0.f, 1.f);
    std::vector<float> x(n_tokens * 256);
    for (auto& v : x) v = dist(rng);
    for (int threads : {1, 2, 3}) {
      ThreadPool pool(threads);
      MatmulScratch scratch;
      const WeightMatrix wa = a.w(), wb = b.w(), wc = c.w();
      std::vector<float> ea(n_tokens * 100), eb(n_tokens * 37), ec(n_tokens * 70);
      matmul(wa, x.data(), n_tokens, ea.data(), pool, scratch);
      matmul(wb, x.data(), n_tokens, eb.data(), pool, scratch);
      matmul(wc, x.data(), n_tokens, ec.data(), pool, scratch);
      std::vector<float> ga(ea.size()), gb(eb.size()), gc(ec.size());
      const WeightMatrix* same[2] = {&wa, &wb};
      float* same_out[2] = {ga.data(), gb.data()};
      matmul_group(same, same_out, 2, x.data(), n_tokens, pool, scratch);
      EXPECT_EQ(ga, ea);
      EXPECT_EQ(gb, eb);
      const WeightMatrix* mixed[3] = {&wa, &wc, &wb};
      float* mixed_out[3] = {ga.data(), gc.data(), gb.data()};
      std::fill(ga.begin(), ga.end(), 0.f);
      matmul_group(mixed, mixed_out, 3, x.data(), n_tokens, pool, scratch);
      EXPECT_EQ(ga, ea);
      EXPECT_EQ(gb, eb);
      EXPECT_EQ(gc, ec);

      // Activations quantized ahead (a token at a time, out of order), for
      // the group and for the mixed one (which serves wa and wb from them and
      // quantizes again for wc); and prepared for another width: unused.
      const Fixture wider = make(type, 512, 4, 4);
      for (const WeightMatrix& for_w : {wa, wider.w()}) {
        const ActivationBatch prepared(for_w, n_tokens, scratch);
        if (for_w.cols == 256)
          for (int64_t t = n_tokens - 1; t >= 0; --t) prepared.quantize(t, &x[t * 256]);
        std::fill(ga.begin(), ga.end(), 0.f);
        std::fill(gb.begin(), gb.end(), 0.f);
        matmul_group(same, same_out, 2, x.data(), n_tokens, pool, scratch, KernelChoice::Best, &prepared);
        EXPECT_EQ(ga, ea);
        EXPECT_EQ(gb, eb);
        const ActivationBatch again(wa, n_tokens, scratch);
        for (int64_t t = 0; t < n_tokens; ++t) again.quantize(t, &x[t * 256]);
        std::fill(ga.begin(), ga.end(), 0.f);
        std::fill(gc.begin(), gc.end(), 0.f);
        matmul_group(mixed, mixed_out, 3, x.data(), n_tokens, pool, scratch, KernelChoice::Best, &again);
        EXPECT_EQ(ga, ea);
        EXPECT_EQ(gb, eb);
        EXPECT_EQ(gc, ec);
      }
    }
  }
}
