// Greedy generation against llama.cpp for every reference model it lists:
// our tokenizer gives its prompt ids, and our greedy tokens equal its for the
// first 16 steps (stories260K), or, for the random synth-kq models whose top
// two logits are often close, up to the first step whose reference margin
// between them is below 0.1.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/decoder_context.h"
#include "testdata.h"
#include "tokenizer/tokenizer.h"

using namespace wasmlm;

namespace {

struct Result {
  std::vector<int32_t> prompt_ids, greedy;
};

Result run_greedy(const std::string& path, const std::string& prompt, int steps, KvCacheType kv) {
  std::vector<uint8_t> bytes = wasmlm_test::read_file(path);
  WeightStore store;
  ModelFile file = load_weights(bytes.size(), read_from_memory(bytes.data(), bytes.size()), store);
  Result r;
  Tokenizer tokenizer = Tokenizer::from_model_file(file);
  EncodeOptions options;
  options.add_bos = tokenizer.add_bos_default();
  r.prompt_ids = tokenizer.encode(prompt, options);
  // Every weight type llama.cpp writes has kernels: none may be refused.
  auto model = std::make_unique<DecoderModel>(file, store);
  ThreadPool pool(1);
  DecoderContext ctx(*model, static_cast<uint32_t>(r.prompt_ids.size() + steps), pool, kv);
  const float* logits = ctx.eval(r.prompt_ids.data(), static_cast<int>(r.prompt_ids.size()));
  const uint32_t n_vocab = model->hparams().n_vocab;
  for (int s = 0; s < steps; ++s) {
    int32_t best = 0;
    for (uint32_t i = 1; i < n_vocab; ++i)
      if (logits[i] > logits[best]) best = static_cast<int32_t>(i);
    r.greedy.push_back(best);
    if (s + 1 < steps) logits = ctx.eval(&best, 1);
  }
  return r;
}

}  // namespace

TEST(LlamaGreedy, EveryReferenceModelGeneratesLlamaCppsTokens) {
  WASMLM_REQUIRE_TESTDATA();
  int checked = 0;
  for (const std::string dir : {"llama/stories260K", "synth-kq"}) {
    const bool close_calls = dir == "synth-kq";
    nlohmann::json refs = nlohmann::json::parse(
        wasmlm_test::read_file(wasmlm_test::testdata_dir() + "/" + dir + "/reference/reference-outputs.json"));
    for (const auto& entry : refs) {
      const std::string file = entry["file"];
      const auto& r = entry["result"];
      SCOPED_TRACE(dir + "/" + file);
      const std::vector<int32_t> want = r["greedy_ids"].get<std::vector<int32_t>>();
      int steps = 16;
      if (close_calls) {
        const std::vector<double> margins = r["greedy_margins"].get<std::vector<double>>();
        steps = 0;
        while (steps < static_cast<int>(margins.size()) && steps < 16 && margins[steps] >= 0.1) ++steps;
      }
      const KvCacheType kv = r.value("kv_cache", "f16") == "f32" ? KvCacheType::F32 : KvCacheType::F16;
      Result got = run_greedy(wasmlm_test::testdata_dir() + "/" + dir + "/" + file, r["prompt"], steps, kv);
      EXPECT_EQ(got.prompt_ids, r["prompt_ids"].get<std::vector<int32_t>>());
      EXPECT_EQ(got.greedy, std::vector<int32_t>(want.begin(), want.begin() + steps)) << steps << " steps";
      ++checked;
    }
  }
  std::printf("greedy tokens checked for %d reference runs\n", checked);
  EXPECT_EQ(checked, 37);  // every file of both reference lists
}
