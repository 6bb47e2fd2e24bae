// LLaMA inference in wasm on a model with one key/value head per query head
// (no GQA; none of the test-data models is like that): decoding then reads
// the F16 cache in place (attend_f16_direct), which must give the same logits
// to the bit as the scalar reference and as a batched prompt (which converts
// the cache first). Q4_K weights, whose SIMD kernels are integer-exact.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../native/gguf_writer.h"
#include "model/decoder_context.h"
#include "quant/quant_traits.h"

using namespace wasmlm;
using namespace wasmlm_test;

namespace {

constexpr uint32_t kDim = 256, kHeads = 4, kLayers = 2, kFf = 512, kVocab = 300;

// Deterministic values in [-scale, scale).
std::vector<float> values(uint64_t n, uint32_t seed, float scale) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(s >> 8) / 8388608.f - 1.f);
  }
  return v;
}

GTensor matrix(const std::string& name, uint64_t rows, uint64_t cols, uint32_t seed) {
  const std::vector<float> w = values(rows * cols, seed, 1.7f / std::sqrt(static_cast<float>(cols)));
  GTensor t{name, {cols, rows}, static_cast<uint32_t>(GgmlType::Q4_K), {}, {}};
  t.data.resize(rows * cols / 256 * 144);
  quant_traits(GgmlType::Q4_K).from_float(w.data(), t.data.data(), static_cast<int64_t>(rows * cols));
  return t;
}

GTensor norm(const std::string& name, uint32_t seed) {
  std::vector<float> w = values(kDim, seed, 0.3f);
  for (auto& x : w) x += 1.f;
  GTensor t{name, {kDim}, static_cast<uint32_t>(GgmlType::F32), {}, {}};
  t.data.resize(kDim * 4);
  std::memcpy(t.data.data(), w.data(), t.data.size());
  return t;
}

struct Mha {
  std::vector<uint8_t> bytes;
  WeightStore store;
  std::unique_ptr<ModelFile> file;
  std::unique_ptr<DecoderModel> model;
};

std::unique_ptr<Mha> make_model() {
  GgufSpec spec;
  spec.kv = {{"general.architecture", GValue::string("llama")},
             {"llama.embedding_length", GValue::u32(kDim)},
             {"llama.block_count", GValue::u32(kLayers)},
             {"llama.feed_forward_length", GValue::u32(kFf)},
             {"llama.attention.head_count", GValue::u32(kHeads)},
             {"llama.attention.head_count_kv", GValue::u32(kHeads)},
             {"llama.context_length", GValue::u32(128)}};
  uint32_t seed = 1;
  spec.tensors.push_back(matrix("token_embd.weight", kVocab, kDim, seed++));
  for (uint32_t l = 0; l < kLayers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    spec.tensors.push_back(norm(p + "attn_norm.weight", seed++));
    for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output"})
      spec.tensors.push_back(matrix(p + m + ".weight", kDim, kDim, seed++));
    spec.tensors.push_back(norm(p + "ffn_norm.weight", seed++));
    spec.tensors.push_back(matrix(p + "ffn_gate.weight", kFf, kDim, seed++));
    spec.tensors.push_back(matrix(p + "ffn_up.weight", kFf, kDim, seed++));
    spec.tensors.push_back(matrix(p + "ffn_down.weight", kDim, kFf, seed++));
  }
  spec.tensors.push_back(norm("output_norm.weight", seed++));
  spec.tensors.push_back(matrix("output.weight", kVocab, kDim, seed++));
  auto m = std::make_unique<Mha>();
  m->bytes = write_gguf(spec).bytes;
  m->file = std::make_unique<ModelFile>(load_weights(m->bytes.size(), read_from_memory(m->bytes.data(), m->bytes.size()), m->store));
  m->model = std::make_unique<DecoderModel>(*m->file, m->store);
  return m;
}

std::vector<int32_t> prompt(int n) {
  std::vector<int32_t> p;
  for (int i = 0; i < n; ++i) p.push_back((i * 37 + 11) % kVocab);
  return p;
}

}  // namespace

TEST(LlamaMha, DecodingReadsTheF16CacheInPlaceWithTheReferenceResult) {
  auto m = make_model();
  ASSERT_EQ(m->model->hparams().head_dim, 64u);
  ThreadPool pool(1);
  DecoderContext best(*m->model, 128, pool, KvCacheType::F16, KernelChoice::Best),
      ref(*m->model, 128, pool, KvCacheType::F16, KernelChoice::Reference);
  const std::vector<int32_t> p = prompt(37);
  best.eval(p.data(), static_cast<int>(p.size()));
  ref.eval(p.data(), static_cast<int>(p.size()));
  // Decoding across 16- and 8-position blocks of the scores (positions 37..60).
  for (int i = 0; i < 24; ++i) {
    const int32_t next = (i * 53 + 5) % kVocab;
    const float* a = best.eval(&next, 1);
    std::vector<float> got(a, a + kVocab);
    const float* b = ref.eval(&next, 1);
    ASSERT_TRUE(std::equal(got.begin(), got.end(), b)) << "position " << 37 + i;
    float spread = 0;
    for (uint32_t v = 0; v < kVocab; ++v) spread = std::max(spread, std::fabs(got[v] - got[0]));
    ASSERT_GT(spread, 0.1f);  // not a degenerate model
  }
}

TEST(LlamaMha, DecodingGivesTheSameLogitsAsABatchedPrompt) {
  auto m = make_model();
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    const std::vector<int32_t> p = prompt(DecoderContext::kMaxBatch + 9);
    const uint32_t n_ctx = static_cast<uint32_t>(p.size());
    DecoderContext batched(*m->model, n_ctx, pool), single(*m->model, n_ctx, pool);
    const float* a = batched.eval(p.data(), static_cast<int>(p.size()));
    std::vector<float> la(a, a + kVocab);
    const float* b = nullptr;
    for (int32_t id : p) b = single.eval(&id, 1);
    EXPECT_TRUE(std::equal(la.begin(), la.end(), b)) << threads << " threads";
  }
}
