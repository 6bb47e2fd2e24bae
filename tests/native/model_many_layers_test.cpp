// A model of very many small layers loads in time linear in its tensors. The
// decoder looks up each layer's tensors by name; when every lookup scanned
// the directory, a 34 MB file of 40000 layers took minutes to refuse or load
// (found next to tests/fuzz/fuzz_model_build.cpp, whose inputs are too small
// to reach it).
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/incremental_parser.h"
#include "gguf_writer.h"
#include "model/decoder_model.h"
#include "model/weight_store.h"

namespace wasmlm_test {
namespace {

// LLaMA of width 2 and FFN width 1: nine tiny tensors per layer.
std::vector<uint8_t> many_layers(uint32_t n_layer) {
  GgufSpec s;
  s.kv = {{"general.architecture", GValue::string("llama")}, {"llama.embedding_length", GValue::u32(2)},
          {"llama.block_count", GValue::u32(n_layer)}, {"llama.attention.head_count", GValue::u32(1)},
          {"llama.feed_forward_length", GValue::u32(1)}};
  const auto f32 = [](std::string name, std::vector<uint64_t> dims) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    return GTensor{std::move(name), std::move(dims), /* F32 */ 0, std::vector<uint8_t>(4 * n), {}};
  };
  s.tensors = {f32("token_embd.weight", {2, 4}), f32("output_norm.weight", {2})};
  for (uint32_t l = 0; l < n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (const char* n : {"attn_norm.weight", "ffn_norm.weight"}) s.tensors.push_back(f32(p + n, {2}));
    for (const char* n : {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight"})
      s.tensors.push_back(f32(p + n, {2, 2}));
    for (const char* n : {"ffn_gate.weight", "ffn_up.weight"}) s.tensors.push_back(f32(p + n, {2, 1}));
    s.tensors.push_back(f32(p + "ffn_down.weight", {1, 2}));
  }
  return write_gguf(s).bytes;
}

TEST(ModelManyLayers, FortyThousandLayersAreCheckedAndBuiltInSeconds) {
  const std::vector<uint8_t> bytes = many_layers(40000);
  wasmlm::WeightStore store;
  const wasmlm::ModelFile file =
      wasmlm::load_weights(bytes.size(), wasmlm::read_from_memory(bytes.data(), bytes.size()), store);
  const auto start = std::chrono::steady_clock::now();
  wasmlm::DecoderModel::check_directory(file);
  const wasmlm::DecoderModel model(file, store);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(model.layers().size(), 40000u);
  // Linear: about a second under ASan. A scan per lookup: many minutes.
  EXPECT_LT(seconds, 30.0);
}

}  // namespace
}  // namespace wasmlm_test
