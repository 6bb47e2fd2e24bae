// Every decoder architecture against native llama.cpp: the random-weight
// test models of tests/models/decoder-models.js (generated into
// tests/.tmp/decoder-models by scripts/test.sh) and llama.cpp's outputs on
// them, recorded by tests/reference/decoder/record-references.js.
//
// Pass rule: after the prompt, the next-token probabilities of the
// reference's 50 most likely tokens within 1e-4 (F32 files) / 1e-2 (Q8_0);
// greedy ids equal up to the first step whose top-2 margin is below 0.1 /
// 0.25; and, feeding llama.cpp's greedy ids, each step's 16 largest logits
// within a tolerance, so every decoding step is checked whatever the margins.
// With 1 and 2 threads. Built into the native and the wasm suites alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "decoder_test_models.h"
#include "probabilities.h"
#include "model/decoder_context.h"

using namespace wasmlm;

namespace {

const std::string kReferences = std::string(WASMLM_REPO_ROOT) + "/tests/reference/decoder/";

// The reference files, named <model>-<type>.json.
const char* const kReferenceNames[] = {
    "qwen2-F32", "qwen2-Q8_0", "qwen3-F32", "qwen3-Q8_0", "gemma2-F32", "gemma2-Q8_0",
    "gemma3-F32", "gemma3-Q8_0", "gemma3-pattern-F32", "gemma3-pattern-Q8_0", "phi3-F32", "phi3-Q8_0",
    "phi3-longrope-F32", "phi3-longrope-Q8_0", "smollm3-F32", "smollm3-Q8_0", "olmo2-F32", "olmo2-Q8_0",
    "granite-F32", "granite-Q8_0",
};

int argmax(const float* x, size_t n) { return static_cast<int>(std::max_element(x, x + n) - x); }

class DecoderReference : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const std::string path = kReferences + GetParam() + ".json";
    std::ifstream f(path);
    ASSERT_TRUE(f) << "missing reference " << path;
    ref_ = nlohmann::json::parse(f);
    const std::string file = ref_["file"].get<std::string>();
    WASMLM_LOAD_DECODER_MODEL(loaded, file);
    ASSERT_EQ(wasmlm_test::fnv1a64_hex(loaded->bytes), ref_["fnv1a64"].get<std::string>())
        << file << " is not the file the reference was recorded on: regenerate it, or re-record";
    m_ = std::move(loaded);
    quantized_ = std::string(GetParam()).find("Q8_0") != std::string::npos;
  }

  nlohmann::json ref_;
  std::unique_ptr<wasmlm_test::DecoderTestModel> m_;
  bool quantized_ = false;
};

TEST_P(DecoderReference, ProbabilitiesAndGreedyIdsMatchLlamaCpp) {
  const uint32_t n_vocab = m_->model->hparams().n_vocab;
  const double p_tol = quantized_ ? 1e-2 : 1e-4, margin_min = quantized_ ? 0.25 : 0.1;
  for (int threads : {1, 2}) {
    for (const auto& run : ref_["runs"]) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", n_ctx " + std::to_string(run["n_ctx"].get<int>()) +
                   ", prompt of " + std::to_string(run["prompt_ids"].size()));
      ThreadPool pool(threads);
      DecoderContext ctx(*m_->model, run["n_ctx"].get<uint32_t>(), pool, KvCacheType::F32);
      const std::vector<int32_t> prompt = run["prompt_ids"].get<std::vector<int32_t>>();
      const float* logits = ctx.eval(prompt.data(), static_cast<int>(prompt.size()));
      const std::vector<float> want = run["logits"].get<std::vector<float>>();
      ASSERT_EQ(want.size(), n_vocab);
      EXPECT_LE(wasmlm_test::top_probability_diff(logits, want.data(), n_vocab, 50), p_tol);
      // Greedy, each step from our own previous token.
      const std::vector<int> greedy = run["greedy_ids"].get<std::vector<int>>();
      const std::vector<double> margins = run["margins"].get<std::vector<double>>();
      for (size_t s = 0; s < greedy.size() && margins[s] >= margin_min; ++s) {
        const int32_t next = argmax(logits, n_vocab);
        ASSERT_EQ(next, greedy[s]) << "greedy step " << s << " (margin " << margins[s] << ")";
        logits = ctx.eval(&next, 1);
      }
    }
  }
}

TEST_P(DecoderReference, EveryDecodingStepsLargestLogitsMatchLlamaCpp) {
  const uint32_t n_vocab = m_->model->hparams().n_vocab;
  const double tol = quantized_ ? 0.25 : 5e-3;
  for (const auto& run : ref_["runs"]) {
    SCOPED_TRACE("n_ctx " + std::to_string(run["n_ctx"].get<int>()));
    ThreadPool pool(2);
    DecoderContext ctx(*m_->model, run["n_ctx"].get<uint32_t>(), pool, KvCacheType::F32);
    const std::vector<int32_t> prompt = run["prompt_ids"].get<std::vector<int32_t>>();
    const float* logits = ctx.eval(prompt.data(), static_cast<int>(prompt.size()));
    const std::vector<int32_t> greedy = run["greedy_ids"].get<std::vector<int32_t>>();
    double worst = 0;
    for (size_t s = 0; s < greedy.size(); ++s) {
      for (const auto& pair : run["step_top"][s]) {
        const int id = pair[0].get<int>();
        worst = std::max(worst, std::fabs(double(logits[id]) - pair[1].get<double>()));
      }
      if (s + 1 < greedy.size()) logits = ctx.eval(&greedy[s], 1);
    }
    EXPECT_LE(worst, tol);
    (void)n_vocab;
  }
}

TEST_P(DecoderReference, BatchedPromptGivesTheBitsOfTokenByToken) {
  const uint32_t n_vocab = m_->model->hparams().n_vocab;
  const auto& run = ref_["runs"].back();  // the longest prompt: past the window and the ring's slack where there is one
  const std::vector<int32_t> prompt = run["prompt_ids"].get<std::vector<int32_t>>();
  for (KvCacheType kv : {KvCacheType::F16, KvCacheType::F32}) {
    ThreadPool pool(2);
    DecoderContext batched(*m_->model, run["n_ctx"].get<uint32_t>(), pool, kv);
    DecoderContext single(*m_->model, run["n_ctx"].get<uint32_t>(), pool, kv);
    const float* a = batched.eval(prompt.data(), static_cast<int>(prompt.size()));
    const std::vector<float> la(a, a + n_vocab);
    const float* b = nullptr;
    for (int32_t id : prompt) b = single.eval(&id, 1);
    EXPECT_TRUE(std::equal(la.begin(), la.end(), b)) << (kv == KvCacheType::F16 ? "F16" : "F32") << " cache";
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, DecoderReference, ::testing::ValuesIn(kReferenceNames),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
