// libFuzzer target: a model built from metadata and a tensor directory
// (hyperparameters -> shapes -> allocations). The input is a GGUF header (a
// real file's first kilobytes, or a generated one); its tensors are filled in
// a WeightStore from the bytes after it, repeated (zeros if there are none),
// within a budget: a real file brings its tensors' bytes itself, so what the
// budget skips costs file size, not a finding. The first byte after the
// header picks the KV cache type and a type to quantize the matrices to on
// load. Then the model of any architecture is opened with a context of 320
// positions and evaluates two tokens; nothing it allocates may grow past
// libFuzzer's limits, and weights of any bits (NaN, infinities) may give
// useless numbers but no undefined behaviour.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/incremental_parser.h"
#include "model/weight_store.h"
#include "support.h"
#include "tiny_models.h"

namespace {

constexpr uint64_t kWeightBudget = 4u << 20;

// Every architecture's row is reached from the test data's LLaMA files and
// the decoder test models; RWKV v6/v7 GGUF files are not in the test data.
std::vector<std::vector<uint8_t>> seeds() {
  std::vector<std::vector<uint8_t>> out;
  for (int version : {4, 6, 7}) out.push_back(wasmlm_test::write_gguf(wasmlm_fuzz::tiny_rwkv_spec(version)).bytes);
  out.push_back(wasmlm_test::write_gguf(wasmlm_fuzz::tiny_decoder_spec()).bytes);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  wasmlm_fuzz::write_seeds_if_asked("fuzz_model_build", seeds);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4 || data[0] != 'G' || data[1] != 'G' || data[2] != 'U' || data[3] != 'F') return 0;
  wasmlm::IncrementalParser parser;  // size unknown: only the header is read
  if (!wasmlm_fuzz::succeeds([&] { parser.push(data, size); }) || !parser.directory_complete()) return 0;
  const wasmlm::ModelFile& file = parser.file();
  uint64_t total = 0;
  for (const wasmlm::TensorInfo& t : file.tensors)
    if (__builtin_add_overflow(total, t.nbytes, &total) || total > kWeightBudget) return 0;

  const size_t after = static_cast<size_t>(std::min<uint64_t>(file.data_offset, size));
  const uint8_t options = after < size ? data[after] : 0;
  static const wasmlm::GgmlType kQuantizeTo[] = {wasmlm::GgmlType::Q4_0, wasmlm::GgmlType::Q4_1, wasmlm::GgmlType::Q5_0,
                                                 wasmlm::GgmlType::Q5_1, wasmlm::GgmlType::Q8_0, wasmlm::GgmlType::Q4_K,
                                                 wasmlm::GgmlType::Q6_K};
  wasmlm::WeightStore store;
  if (options >> 1 & 7)
    store.quantize_on_load(kQuantizeTo[(options >> 1 & 7) - 1], [](const wasmlm::TensorInfo& t) { return t.n_dims == 2; });
  // The weight bytes: what follows the options byte, over and over.
  std::vector<uint8_t> chunk(static_cast<size_t>(std::min<uint64_t>(total, 1 << 20)));
  const size_t n_fill = after + 1 < size ? size - after - 1 : 0;
  for (size_t i = 0; n_fill && i < chunk.size(); ++i) chunk[i] = data[after + 1 + i % n_fill];
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const wasmlm::TensorInfo& t = file.tensors[i];
    for (uint64_t at = 0; at < t.nbytes; at += chunk.size())
      store.tensor_bytes(i, t, at, chunk.data(), static_cast<size_t>(std::min<uint64_t>(chunk.size(), t.nbytes - at)));
  }
  wasmlm_fuzz::run_model(file, store, !(options & 1));
  return 0;
}
