// Row quads in the weight store (WeightStore::repack_on_load): a picked
// matrix is repacked once its bytes have all arrived, where this engine has
// a quad kernel for its type (Chromium with the dot-add as one instruction:
// Q4_K, Q5_K; nowhere in Node 20), and its view says so; the model fingerprint of
// saved states reads the bytes as the file has them, so a state saved by an
// engine with quads loads in one without.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "model/quantize_choice.h"
#include "model/state_envelope.h"
#include "model/weight_store.h"
#include "model/weight_views.h"
#include "quant/quant_traits.h"

using namespace wasmlm;

TEST(RowQuads, TheStoreRepacksPickedMatricesAndFingerprintsTheFilesBytes) {
  const int64_t rows = 8, cols = 512;
  const uint64_t row_bytes = *ggml_nbytes(GgmlType::Q4_K, cols);
  std::vector<float> x(rows * cols);
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (auto& v : x) v = dist(rng);
  std::vector<uint8_t> bytes(rows * row_bytes);
  quant_traits(GgmlType::Q4_K).from_float(x.data(), bytes.data(), rows * cols);

  ModelFile file;
  for (const char* name : {"blk.0.attn_q.weight", "token_embd.weight"}) {
    TensorInfo t;
    t.name = name;
    t.type = GgmlType::Q4_K;
    t.n_dims = 2;
    t.ne = {uint64_t(cols), uint64_t(rows), 1, 1};
    t.nbytes = bytes.size();
    file.tensors.push_back(t);
  }
  WeightStore plain, repacking;
  repacking.repack_on_load([](const TensorInfo& t) { return repack_on_load_picks("llama", FileFormat::Gguf, t); });
  for (size_t i = 0; i < file.tensors.size(); ++i)
    for (WeightStore* store : {&plain, &repacking}) {  // in two pieces: repacked only when whole
      store->tensor_bytes(i, file.tensors[i], 0, bytes.data(), 100);
      store->tensor_bytes(i, file.tensors[i], 100, bytes.data() + 100, bytes.size() - 100);
    }

  const bool quads = quant_traits(GgmlType::Q4_K).vec_dot_quads != nullptr;
  const WeightStore::Tensor& q = *repacking.find("blk.0.attn_q.weight");
  EXPECT_EQ(q.quads, quads);
  EXPECT_EQ(std::memcmp(q.data.get(), bytes.data(), bytes.size()) != 0, quads);
  EXPECT_EQ(repacking.tensors_in_quads(), quads ? 1u : 0u);
  EXPECT_FALSE(repacking.find("token_embd.weight")->quads);
  EXPECT_EQ(std::memcmp(repacking.find("token_embd.weight")->data.get(), bytes.data(), bytes.size()), 0);
  EXPECT_FALSE(plain.find("blk.0.attn_q.weight")->quads);
  EXPECT_EQ(matrix(repacking, "blk.0.attn_q.weight", rows, cols).quads, quads);
  EXPECT_EQ(model_fingerprint(file, repacking, 32), model_fingerprint(file, plain, 32));
}
