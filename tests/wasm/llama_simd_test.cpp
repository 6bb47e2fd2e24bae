// LLaMA inference in wasm: the SIMD code (activation quantizers, attention
// over the transposed, F16->f32 converted KV cache) against the scalar
// reference path, on models whose SIMD matrix kernels are integer-exact
// (Q4_K / Q6_K, TQ1_0, TQ2_0, IQ1_*-IQ3_*): the same logits to the bit. And a batched
// prompt gives the same logits as token by token, with 1 and 2 threads (when
// built with them).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "model/decoder_context.h"

using namespace wasmlm;

namespace {

struct Loaded {
  std::vector<uint8_t> bytes;
  WeightStore store;
  std::unique_ptr<ModelFile> file;
};

std::unique_ptr<Loaded> load(const std::string& rel) {
  const std::string path = std::string(WASMLM_REPO_ROOT) + "/../shared/testdata/" + rel;
  std::ifstream f(path, std::ios::binary);
  if (!f) return nullptr;
  auto m = std::make_unique<Loaded>();
  m->bytes.assign(std::istreambuf_iterator<char>(f), {});
  m->file = std::make_unique<ModelFile>(load_weights(m->bytes.size(), read_from_memory(m->bytes.data(), m->bytes.size()), m->store));
  return m;
}

std::vector<int32_t> prompt(int n) {
  std::vector<int32_t> p{1};
  for (int i = 1; i < n; ++i) p.push_back((i * 37 + 11) % 500);
  return p;
}

}  // namespace

TEST(LlamaSimd, SameLogitsAsScalarReference) {
  for (const char* file : {"synth-kq/synth-kq-pure-Q4_K.gguf", "synth-kq/synth-kq-pure-TQ1_0.gguf",
                           "synth-kq/synth-kq-pure-TQ2_0.gguf", "synth-kq/synth-kq-imat-pure-IQ2_XXS.gguf",
                           "synth-kq/synth-kq-imat-pure-IQ2_XS.gguf", "synth-kq/synth-kq-imat-pure-IQ2_S.gguf",
                           "synth-kq/synth-kq-pure-IQ3_XXS.gguf", "synth-kq/synth-kq-pure-IQ3_S.gguf",
                           "synth-kq/synth-kq-IQ3_XS.gguf", "synth-kq/synth-kq-IQ3_M.gguf",
                           "synth-kq/synth-kq-imat-pure-IQ1_S.gguf", "synth-kq/synth-kq-imat-pure-IQ1_M.gguf"}) {
    SCOPED_TRACE(file);
    auto m = load(file);
    if (!m) GTEST_SKIP() << "../shared/testdata missing";
    DecoderModel model(*m->file, m->store);
    const uint32_t n_vocab = model.hparams().n_vocab;
    for (KvCacheType kv : {KvCacheType::F16, KvCacheType::F32}) {
      ThreadPool pool(1);
      DecoderContext best(model, 128, pool, kv, KernelChoice::Best), ref(model, 128, pool, kv, KernelChoice::Reference);
      const std::vector<int32_t> p = prompt(45);  // batched, then single tokens at odd positions
      const float* la = best.eval(p.data(), static_cast<int>(p.size()));
      std::vector<float> got(la, la + n_vocab);
      const float* lb = ref.eval(p.data(), static_cast<int>(p.size()));
      EXPECT_TRUE(std::equal(got.begin(), got.end(), lb)) << (kv == KvCacheType::F16 ? "f16" : "f32");
      for (int32_t next : {42, 7, 300}) {
        la = best.eval(&next, 1);
        got.assign(la, la + n_vocab);
        lb = ref.eval(&next, 1);
        EXPECT_TRUE(std::equal(got.begin(), got.end(), lb)) << "next " << next;
      }
    }
  }
}

TEST(LlamaSimd, BatchedPromptGivesTheSameLogitsAsTokenByToken) {
  for (const char* file : {"synth-kq/synth-kq-pure-Q4_0.gguf", "synth-kq/synth-kq-pure-TQ1_0.gguf",
                           "synth-kq/synth-kq-pure-TQ2_0.gguf", "synth-kq/synth-kq-imat-pure-IQ2_XS.gguf",
                           "synth-kq/synth-kq-IQ3_XS.gguf", "synth-kq/synth-kq-imat-pure-IQ1_S.gguf",
                           "synth-kq/synth-kq-imat-pure-IQ1_M.gguf", "llama/stories260K/stories260K.gguf"}) {
    SCOPED_TRACE(file);
    auto m = load(file);
    if (!m) GTEST_SKIP() << "../shared/testdata missing";
    DecoderModel model(*m->file, m->store);
    const uint32_t n_vocab = model.hparams().n_vocab;
    const std::vector<int32_t> p = prompt(2 * DecoderContext::kMaxBatch + 7);
    ThreadPool pool(2);
    const uint32_t n_ctx = static_cast<uint32_t>(p.size());
    DecoderContext batched(model, n_ctx, pool), single(model, n_ctx, pool);
    const float* a = batched.eval(p.data(), static_cast<int>(p.size()));
    std::vector<float> la(a, a + n_vocab);
    const float* b = nullptr;
    for (int32_t id : p) b = single.eval(&id, 1);
    EXPECT_TRUE(std::equal(la.begin(), la.end(), b));
  }
}
