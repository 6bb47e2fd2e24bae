// Quantize-on-load (WeightStore::quantize_on_load with quantize_on_load_picks)
// gives what llama-quantize writes: from the F32 synth-kq model, every
// tensor of llama-quantize --pure's file, type and bytes; where the rows
// cannot hold the type (stories260K: rows of 64 and 172), llama-quantize's
// fallbacks (Q4_K -> Q5_0 for 64, F16 for 172), as in its Q4_K_M file.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "model/quantize_choice.h"
#include "model/weight_store.h"
#include "testdata.h"

using namespace wasmlm;

namespace {

std::unique_ptr<wasmlm_test::LoadedModel> load_quantized(const std::string& relative, GgmlType type) {
  auto m = std::make_unique<wasmlm_test::LoadedModel>();
  m->store.quantize_on_load(type, [](const TensorInfo& t) { return quantize_on_load_picks("llama", FileFormat::Gguf, t); });
  wasmlm_test::load_into(*m, wasmlm_test::read_file(wasmlm_test::testdata_dir() + "/" + relative));
  return m;
}

// Tensors of `m`'s store whose type and bytes equal those in `reference`;
// mismatching bytes fail the test, a different type is only counted out.
int same_tensors(const wasmlm_test::LoadedModel& m, const wasmlm_test::LoadedModel& reference) {
  int same = 0;
  for (const TensorInfo& want : reference.file.tensors) {
    const WeightStore::Tensor* got = m.store.find(want.name);
    EXPECT_NE(got, nullptr) << want.name;
    if (!got || got->info.type != want.type) continue;
    EXPECT_EQ(got->info.nbytes, want.nbytes) << want.name;
    EXPECT_EQ(std::memcmp(got->data.get(), reference.bytes.data() + want.offset, want.nbytes), 0)
        << want.name << " (" << ggml_type_info(want.type).name << ")";
    ++same;
  }
  return same;
}

}  // namespace

TEST(QuantizeOnLoad, F32ModelBecomesLlamaQuantizesPureFileTensorForTensor) {
  WASMLM_REQUIRE_TESTDATA();
  for (const char* name : {"Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q4_K", "Q5_K", "IQ4_NL", "TQ1_0", "TQ2_0"}) {
    SCOPED_TRACE(name);
    auto m = load_quantized("synth-kq/synth-kq-F32.gguf", *ggml_type_from_name(name));
    auto pure = wasmlm_test::load_model(std::string("synth-kq/synth-kq-pure-") + name + ".gguf");
    EXPECT_EQ(same_tensors(*m, *pure), 21);  // 16 matrices (token_embd and output too) and 5 norms
    EXPECT_EQ(m->store.quantized().size(), 16u);
  }
}

TEST(QuantizeOnLoad, RowsThatCannotHoldTheTypeGetLlamaQuantizesFallback) {
  WASMLM_REQUIRE_TESTDATA();
  auto m = load_quantized("llama/stories260K/stories260K.gguf", GgmlType::Q4_K);
  auto lq = wasmlm_test::load_model("llama/stories260K/derived/stories260K-lq-Q4_K_M.gguf");
  // Q4_K_M's own mix differs only where it asks for more than Q4_K (output, some attn_v / ffn_down).
  EXPECT_GE(same_tensors(*m, *lq), 40);
  EXPECT_EQ(m->store.find("token_embd.weight")->info.type, GgmlType::Q5_0);   // rows of 64: Q4_K -> Q5_0
  EXPECT_EQ(m->store.find("blk.0.ffn_down.weight")->info.type, GgmlType::F16);  // rows of 172: F16
  EXPECT_EQ(m->store.find("blk.0.attn_norm.weight")->info.type, GgmlType::F32);  // not a matrix
  int f16 = 0, q5_0 = 0;
  for (const auto& q : m->store.quantized()) {
    EXPECT_EQ(q.from, GgmlType::F32) << q.name;
    f16 += q.to == GgmlType::F16;
    q5_0 += q.to == GgmlType::Q5_0;
  }
  EXPECT_EQ(f16, 5);  // the 5 ffn_down
  EXPECT_EQ(q5_0, 2 + 6 * 5);
}

TEST(QuantizeOnLoad, F16FileIsQuantizedToo) {
  WASMLM_REQUIRE_TESTDATA();
  auto f16 = wasmlm_test::load_model("llama/stories260K/derived/stories260K-lq-F16.gguf");
  auto m = load_quantized("llama/stories260K/derived/stories260K-lq-F16.gguf", GgmlType::Q8_0);
  EXPECT_LT(m->store.bytes_allocated(), f16->store.bytes_allocated() * 7 / 10);
  EXPECT_EQ(m->store.find("blk.0.ffn_gate.weight")->info.type, GgmlType::Q8_0);
  EXPECT_EQ(m->store.find("blk.0.ffn_down.weight")->info.type, GgmlType::F16);  // 172 wide: nothing smaller fits
  for (const auto& q : m->store.quantized()) EXPECT_EQ(q.from, GgmlType::F16) << q.name;
  EXPECT_EQ(m->store.quantized().size(), 2u + 6 * 5);
}

TEST(QuantizeOnLoad, RwkvFilesKeepRwkvCppsChoice) {
  TensorInfo emb;
  emb.name = "token_embd.weight";
  emb.n_dims = 2;
  emb.ne = {64, 256, 1, 1};
  EXPECT_TRUE(quantize_on_load_picks("llama", FileFormat::Gguf, emb));
  EXPECT_FALSE(quantize_on_load_picks("rwkv6", FileFormat::Gguf, emb));
  TensorInfo key = emb;
  key.name = "blocks.0.att.key.weight";
  EXPECT_TRUE(quantize_on_load_picks("", FileFormat::RwkvBin, key));
  TensorInfo norm = emb;
  norm.n_dims = 1;
  norm.ne = {64, 1, 1, 1};
  EXPECT_FALSE(quantize_on_load_picks("llama", FileFormat::Gguf, norm));
}

// The matrices repacked into row quads where the engine has quad kernels:
// a decoder's products' weights only; never token_embd (its rows are looked
// up), a vector, or anything of RWKV's.
TEST(RepackOnLoad, PicksTheDecodersProductWeightsOnly) {
  TensorInfo t;
  t.n_dims = 2;
  t.ne = {256, 512, 1, 1};
  const auto picks = [&](const std::string& name, const std::string& arch = "llama",
                         FileFormat format = FileFormat::Gguf) {
    t.name = name;
    return repack_on_load_picks(arch, format, t);
  };
  for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_qkv", "attn_output", "ffn_gate", "ffn_up", "ffn_down"})
    EXPECT_TRUE(picks(std::string("blk.11.") + m + ".weight")) << m;
  EXPECT_TRUE(picks("output.weight"));
  EXPECT_TRUE(picks("blk.0.ffn_up.weight", "qwen3"));
  EXPECT_FALSE(picks("token_embd.weight"));
  EXPECT_FALSE(picks("blk.0.ffn_up.bias"));
  EXPECT_FALSE(picks("blk.0.attn_q_norm.weight"));
  EXPECT_FALSE(picks("blk.0.ffn_up.weight.extra"));
  EXPECT_FALSE(picks("blk.0.att.key.weight", "rwkv6"));
  EXPECT_FALSE(picks("output.weight", "rwkv7"));
  EXPECT_FALSE(picks("blocks.0.att.key.weight", "", FileFormat::RwkvBin));
  t.n_dims = 1;
  EXPECT_FALSE(picks("output.weight"));
}
