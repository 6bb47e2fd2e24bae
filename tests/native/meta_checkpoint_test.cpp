// stories260K as Meta checkpoint directories written by torch (f32, bf16, two
// model-parallel shards of each, the legacy pickle format): loaded through
// the PyTorch reader into the LLaMA engine, they give llama.cpp's greedy
// tokens for the GGUF F32 model (BF16: the first 8) and its logits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/decoder_context.h"
#include "format/pth_checkpoint.h"
#include "model/meta_checkpoint.h"
#include "model/quantize_choice.h"
#include "testdata.h"

using namespace wasmlm;
using namespace wasmlm_test;

namespace {

struct Loaded {
  std::vector<std::vector<uint8_t>> bytes;
  WeightStore store;
  ModelFile file;
};

std::unique_ptr<Loaded> load_dir(const std::string& dir, int n_shards, GgmlType quantize = GgmlType::F32) {
  auto m = std::make_unique<Loaded>();
  std::vector<MetaShard> shards;
  for (int k = 0; k < n_shards; ++k) {
    m->bytes.push_back(read_file(dir + "/consolidated.0" + std::to_string(k) + ".pth"));
    shards.push_back({m->bytes.back().size(), read_from_memory(m->bytes.back().data(), m->bytes.back().size())});
  }
  const std::vector<uint8_t> params = read_file(dir + "/params.json");
  if (quantize != GgmlType::F32)
    m->store.quantize_on_load(quantize, meta_checkpoint_quantizes);
  m->file = load_meta_checkpoint(std::string(params.begin(), params.end()), shards, m->store);
  return m;
}

std::vector<float> read_floats(const std::string& path) {
  const std::vector<uint8_t> b = read_file(path);
  std::vector<float> out(b.size() / 4);
  std::memcpy(out.data(), b.data(), out.size() * 4);
  return out;
}

const std::vector<int32_t> kPrompt = {1, 403, 407, 261, 378};  // <s> Once upon a time

}  // namespace

TEST(MetaCheckpoint, StoriesGivesLlamaCppGreedyTokensAndLogits) {
  WASMLM_REQUIRE_TESTDATA();
  const std::string base = testdata_dir() + "/pytorch/meta-stories260K/";
  const nlohmann::json ref = nlohmann::json::parse(read_file(base + "ref/reference-outputs.json"));
  std::vector<int32_t> greedy;
  for (const auto& r : ref)
    if (r["file"] == "stories260K.gguf") greedy = r["result"]["greedy_ids"].get<std::vector<int32_t>>();
  ASSERT_EQ(greedy.size(), 32u);
  const std::vector<float> ref_logits = read_floats(base + "ref/stories260K-F32.logits.f32");
  const auto [lo, hi] = std::minmax_element(ref_logits.begin(), ref_logits.end());
  struct Case {
    const char* dir;
    int shards;
    size_t same_tokens;
    double logits_fraction;  // of the reference's range
  };
  for (const Case& c : {Case{"f32", 1, 32, 1e-3}, Case{"mp2-f32", 2, 32, 1e-3}, Case{"legacy-f32", 1, 32, 1e-3},
                        Case{"bf16", 1, 8, 0.05}, Case{"mp2-bf16", 2, 8, 0.05}}) {
    SCOPED_TRACE(c.dir);
    auto m = load_dir(base + c.dir, c.shards);
    DecoderModel model(m->file, m->store);
    ASSERT_EQ(model.hparams().n_ff, 172u);
    ThreadPool pool(1);
    DecoderContext ctx(model, 64, pool);
    const float* logits = ctx.eval(kPrompt.data(), static_cast<int>(kPrompt.size()));
    double max_diff = 0;
    for (size_t i = 0; i < ref_logits.size(); ++i) max_diff = std::max(max_diff, std::fabs(double(logits[i]) - ref_logits[i]));
    EXPECT_LE(max_diff, c.logits_fraction * (*hi - *lo));
    std::vector<int32_t> got;
    for (int i = 0; i < 32; ++i) {
      const int32_t next = static_cast<int32_t>(std::max_element(logits, logits + 512) - logits);
      got.push_back(next);
      logits = ctx.eval(&next, 1);
    }
    EXPECT_TRUE(std::equal(greedy.begin(), greedy.begin() + c.same_tokens, got.begin()));
  }
}

// Quantized on load, the checkpoint's matrices become what the same model's
// GGUF quantized on load becomes (llama-quantize's bytes: quantize_on_load_test),
// ffn_down's 172-wide rows F16 as llama-quantize makes them: the same logits.
TEST(MetaCheckpoint, QuantizedOnLoadToQ8_0IsTheGgufQuantizedOnLoad) {
  WASMLM_REQUIRE_TESTDATA();
  const std::string base = testdata_dir() + "/pytorch/meta-stories260K/";
  auto m = load_dir(base + "f32", 1, GgmlType::Q8_0);
  EXPECT_EQ(m->store.find("blk.0.attn_q.weight")->info.type, GgmlType::Q8_0);
  EXPECT_EQ(m->store.find("blk.0.ffn_down.weight")->info.type, GgmlType::F16);  // rows of 172: no whole Q8_0 blocks
  DecoderModel model(m->file, m->store);
  ThreadPool pool(1);
  DecoderContext ctx(model, 64, pool);
  const float* logits = ctx.eval(kPrompt.data(), static_cast<int>(kPrompt.size()));
  const std::vector<float> ours(logits, logits + 512);

  wasmlm_test::LoadedModel g;
  g.store.quantize_on_load(GgmlType::Q8_0, [](const TensorInfo& t) { return quantize_on_load_picks("llama", FileFormat::Gguf, t); });
  wasmlm_test::load_into(g, read_file(testdata_dir() + "/llama/stories260K/stories260K.gguf"));
  DecoderModel gguf_model(g.file, g.store);
  DecoderContext gguf_ctx(gguf_model, 64, pool);
  const float* want = gguf_ctx.eval(kPrompt.data(), static_cast<int>(kPrompt.size()));
  double max_diff = 0;
  for (size_t i = 0; i < 512; ++i) max_diff = std::max(max_diff, std::fabs(double(ours[i]) - want[i]));
  // The checkpoint's F32 weights are the GGUF's (the F32 test above: 1e-3 of
  // llama.cpp's range); quantized the same way they give the same logits.
  const std::vector<float> f32 = read_floats(base + "ref/stories260K-F32.logits.f32");
  const auto [lo, hi] = std::minmax_element(f32.begin(), f32.end());
  EXPECT_LE(max_diff, 1e-4 * (*hi - *lo));
  double from_f32 = 0;
  for (size_t i = 0; i < f32.size(); ++i) from_f32 = std::max(from_f32, std::fabs(double(ours[i]) - f32[i]));
  EXPECT_GT(from_f32, 10 * max_diff);  // quantized: nearer the GGUF's Q8_0 than llama.cpp's F32 logits
  printf("[ NOTE     ] Q8_0 on load: max |diff| %.2e vs the GGUF quantized on load, %.2e vs F32 (range %.2f)\n", max_diff,
         from_f32, *hi - *lo);
}

TEST(MetaCheckpoint, BadParamsAndMissingTensorsAreTypedErrors) {
  WASMLM_REQUIRE_TESTDATA();
  const std::string dir = testdata_dir() + "/pytorch/meta-stories260K/f32";
  std::vector<uint8_t> bytes = read_file(dir + "/consolidated.00.pth");
  std::vector<MetaShard> shards = {{bytes.size(), read_from_memory(bytes.data(), bytes.size())}};
  WeightStore store;
  EXPECT_THROW(load_meta_checkpoint("{not json", shards, store), Error);
  EXPECT_THROW(load_meta_checkpoint("{\"dim\": 64}", shards, store), Error);
  try {
    load_meta_checkpoint("{\"dim\": 64, \"n_layers\": 6, \"n_heads\": 8}", shards, store);  // one layer too many
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layers.5."), std::string::npos) << e.what();
  }
}

// The JS loader's path: directories read first, then the plan's reads pushed
// in pieces of any size (here 997 bytes, crossing read and tensor ends). The
// store must hold what the one-call loader gives, column-split tensors too.
TEST(MetaCheckpoint, FeedTakesThePlansBytesInPiecesOfAnySize) {
  WASMLM_REQUIRE_TESTDATA();
  const std::string dir = testdata_dir() + "/pytorch/meta-stories260K/mp2-f32";
  auto whole = load_dir(dir, 2);
  std::vector<std::vector<uint8_t>> bytes = {read_file(dir + "/consolidated.00.pth"), read_file(dir + "/consolidated.01.pth")};
  std::vector<PthCheckpoint> parts;
  std::vector<uint64_t> sizes;
  for (const auto& b : bytes) {
    parts.push_back(read_pth_checkpoint(b.data(), b.size()));
    sizes.push_back(b.size());
  }
  const std::vector<uint8_t> params = read_file(dir + "/params.json");
  const MetaCheckpointPlan plan = plan_meta_checkpoint(std::string(params.begin(), params.end()), parts, sizes);
  std::vector<uint8_t> stream;
  for (const MetaRead& r : plan.reads) stream.insert(stream.end(), bytes[r.shard].begin() + r.offset, bytes[r.shard].begin() + r.offset + r.length);
  WeightStore store;
  MetaCheckpointFeed feed(plan, store);
  for (size_t at = 0; at < stream.size(); at += 997) {
    EXPECT_FALSE(feed.done());
    feed.push(stream.data() + at, std::min<size_t>(997, stream.size() - at));
  }
  EXPECT_TRUE(feed.done());
  EXPECT_THROW(feed.push(stream.data(), 1), Error);
  ASSERT_EQ(plan.file.tensors.size(), whole->file.tensors.size());
  size_t column_split = 0;
  for (const TensorInfo& t : plan.file.tensors) {
    SCOPED_TRACE(t.name);
    const WeightStore::Tensor* a = store.find(t.name);
    const WeightStore::Tensor* b = whole->store.find(t.name);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(0, std::memcmp(a->data.get(), b->data.get(), t.nbytes));
    column_split += t.name.find("attn_output") != std::string::npos;
  }
  EXPECT_EQ(column_split, 5u);
  // wo is split along torch dim 1: two reads of half rows each.
  const auto wo = std::find_if(plan.reads.begin(), plan.reads.end(), [&](const MetaRead& r) {
    return plan.file.tensors[r.tensor].name == "blk.0.attn_output.weight";
  });
  ASSERT_NE(wo, plan.reads.end());
  EXPECT_EQ(wo->row_bytes * 2, plan.file.tensors[wo->tensor].nbytes / plan.file.tensors[wo->tensor].ne[1]);
  EXPECT_EQ((wo + 1)->column_byte, wo->row_bytes);
}

// LLaMA 3.1's rope scaling: head_dim 128 and theta 500000 (LLaMA 3.1 8B) give
// 29 unscaled frequencies, 6 smoothed ones rising from 1 to 8, then 29 at 8;
// a value worked by hand for theta 10000, head_dim 8 (wavelength 2000π).
TEST(MetaCheckpoint, Llama31RopeFactorsFollowMetasScaling) {
  const std::vector<float> f = llama3_rope_factors(128, 500000);
  ASSERT_EQ(f.size(), 64u);
  EXPECT_EQ(std::count(f.begin(), f.end(), 1.0f), 29);
  EXPECT_EQ(std::count(f.begin(), f.end(), 8.0f), 29);
  EXPECT_TRUE(std::is_sorted(f.begin(), f.end()));
  const std::vector<float> small = llama3_rope_factors(8, 10000);
  const double smooth = (8192 / (2000 * M_PI) - 1) / 3;
  EXPECT_EQ(small[0], 1.0f);
  EXPECT_EQ(small[2], 1.0f);
  EXPECT_NEAR(small[3], 1 / ((1 - smooth) / 8 + smooth), 1e-6);
  EXPECT_NEAR(small[3], 4.6815, 1e-4);
  EXPECT_EQ(llama3_rope_factors(8, 10000, 32)[3] > small[3], true);  // a larger scale factor scales more
}

// params.json with "use_scaled_rope": the plan carries rope_freqs.weight, made
// rather than read, and the model runs with it (the logits move: stories260K
// was not trained with it).
TEST(MetaCheckpoint, UseScaledRopeAddsRopeFreqs) {
  WASMLM_REQUIRE_TESTDATA();
  const std::string dir = testdata_dir() + "/pytorch/meta-stories260K/f32";
  std::vector<uint8_t> bytes = read_file(dir + "/consolidated.00.pth");
  std::vector<MetaShard> shards = {{bytes.size(), read_from_memory(bytes.data(), bytes.size())}};
  const std::string params = R"({"dim": 64, "n_layers": 5, "n_heads": 8, "n_kv_heads": 4, "norm_eps": 1e-5,
                                 "rope_theta": 10000, "use_scaled_rope": true, "rope_scaling_factor": 8})";
  WeightStore store;
  ModelFile file = load_meta_checkpoint(params, shards, store);
  const WeightStore::Tensor* freqs = store.find("rope_freqs.weight");
  ASSERT_NE(freqs, nullptr);
  const std::vector<float> want = llama3_rope_factors(8, 10000);
  EXPECT_EQ(0, std::memcmp(freqs->data.get(), want.data(), want.size() * 4));
  DecoderModel model(file, store);
  ThreadPool pool(1);
  DecoderContext scaled(model, 64, pool);
  const float* a = scaled.eval(kPrompt.data(), static_cast<int>(kPrompt.size()));
  auto plain = load_dir(dir, 1);
  DecoderModel plain_model(plain->file, plain->store);
  DecoderContext unscaled(plain_model, 64, pool);
  const float* b = unscaled.eval(kPrompt.data(), static_cast<int>(kPrompt.size()));
  double diff = 0;
  for (int i = 0; i < 512; ++i) diff = std::max(diff, std::fabs(double(a[i]) - b[i]));
  EXPECT_GT(diff, 1e-3);
}
