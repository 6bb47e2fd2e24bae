// A Q8_0 KV cache against native llama.cpp run with one
// (--cache-type-k/v q8_0, flash attention): F32 decoder test models of head
// size 32 (full and grouped-query attention, LongRoPE, OLMo 2's norms) and
// the references of tests/reference/kv-q8_0/record-references.js. (On the
// head-size-64 test models llama.cpp's values differ from ours by about the
// quantization's own effect, already after one token, where attention
// returns the one cached value: not explained yet, so not asserted.)
//
// Pass rule: after each prompt, the next-token probabilities of the
// reference's 50 most likely tokens within 2e-4, and, feeding llama.cpp's
// greedy ids, each step's 16 largest logits within 2e-3. An F16 cache misses
// the same references by more (checked), so the test sees the Q8_0 path.
// Built into the native and the wasm suites.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "decoder_test_models.h"
#include "probabilities.h"
#include "model/decoder_context.h"

using namespace wasmlm;

namespace {

const std::string kReferences = std::string(WASMLM_REPO_ROOT) + "/tests/reference/kv-q8_0/";

struct Distance {
  double p = 0;      // max |dp| over the reference's 50 most likely tokens after the prompt
  double logit = 0;  // max |dlogit| over each step's 16 largest, llama.cpp's ids fed in
};

Distance distance(const DecoderModel& model, const nlohmann::json& run, KvCacheType kv, int threads) {
  const uint32_t n_vocab = model.hparams().n_vocab;
  ThreadPool pool(threads);
  DecoderContext ctx(model, run["n_ctx"].get<uint32_t>(), pool, kv);
  const std::vector<int32_t> prompt = run["prompt_ids"].get<std::vector<int32_t>>();
  const float* logits = ctx.eval(prompt.data(), static_cast<int>(prompt.size()));
  const std::vector<float> want = run["logits"].get<std::vector<float>>();
  Distance d;
  d.p = wasmlm_test::top_probability_diff(logits, want.data(), n_vocab, 50);
  const std::vector<int32_t> greedy = run["greedy_ids"].get<std::vector<int32_t>>();
  for (size_t s = 0; s < greedy.size(); ++s) {
    for (const auto& pair : run["step_top"][s])
      d.logit = std::max(d.logit, std::fabs(double(logits[pair[0].get<int>()]) - pair[1].get<double>()));
    if (s + 1 < greedy.size()) logits = ctx.eval(&greedy[s], 1);
  }
  return d;
}

class KvQ8Reference : public ::testing::TestWithParam<const char*> {};

TEST_P(KvQ8Reference, MatchesLlamaCppWithTheSameCacheType) {
  const std::string path = kReferences + GetParam() + "-F32.json";
  std::ifstream f(path);
  ASSERT_TRUE(f) << "missing reference " << path;
  const nlohmann::json ref = nlohmann::json::parse(f);
  WASMLM_LOAD_DECODER_MODEL(m, ref["file"].get<std::string>());
  ASSERT_EQ(wasmlm_test::fnv1a64_hex(m->bytes), ref["fnv1a64"].get<std::string>()) << "regenerate the model or re-record";
  for (const auto& run : ref["runs"]) {
    SCOPED_TRACE("prompt of " + std::to_string(run["prompt_ids"].size()));
    for (int threads : {1, 2}) {
      const Distance q8 = distance(*m->model, run, KvCacheType::Q8_0, threads);
      EXPECT_LE(q8.p, 2e-4) << threads << " thread(s)";
      EXPECT_LE(q8.logit, 2e-3) << threads << " thread(s)";
      if (threads == 1) {
        const Distance f16 = distance(*m->model, run, KvCacheType::F16, 1);
        std::printf("[ kv q8_0 ] %s, prompt %zu: max |dp| %.2e (F16 cache: %.2e), max |dlogit| %.2e (F16 cache: %.2e)\n",
                    GetParam(), run["prompt_ids"].size(), q8.p, f16.p, q8.logit, f16.logit);
        EXPECT_GT(f16.logit, 2 * q8.logit) << "the reference does not tell a Q8_0 cache from an F16 one";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, KvQ8Reference, ::testing::Values("phi3", "phi3-longrope", "olmo2"));

TEST(KvQ8, HeadSizesNotAMultipleOf32AreRefusedByName) {
  DecoderHParams h;
  h.n_layer = 1;
  h.n_head = h.n_head_kv = 2;
  h.head_dim = 48;
  h.layers.resize(1);
  try {
    KvCache cache(h, 64, KvCacheType::Q8_0);
    FAIL() << "a head size of 48 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("48"), std::string::npos) << e.what();
  }
}

}  // namespace
