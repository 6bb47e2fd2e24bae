// libFuzzer target: rwkv.cpp model files (.bin, magic ggmf) on arbitrary
// bytes, loaded as the runtime loads them: streamed into a WeightStore, the
// model built from the directory (its version told by which tensors exist),
// and two tokens evaluated.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "format/incremental_parser.h"
#include "model/weight_store.h"
#include "support.h"
#include "tiny_models.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  wasmlm_fuzz::write_seeds_if_asked("fuzz_rwkv_bin", [] {
    return std::vector<std::vector<uint8_t>>{wasmlm_fuzz::write_rwkv_bin(wasmlm_fuzz::tiny_rwkv_spec(4))};
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4 || std::memcmp(data, "fmgg", 4) != 0) return 0;  // 0x67676d66 little-endian
  wasmlm::WeightStore store;
  wasmlm::ModelFile file;
  if (!wasmlm_fuzz::succeeds([&] { file = wasmlm::load_weights(size, wasmlm::read_from_memory(data, size), store); }))
    return 0;
  // The weights are the file's bytes (plus each allocation's padding).
  FUZZ_CHECK(store.bytes_allocated() <= size + 64 * store.size());
  wasmlm_fuzz::run_model(file, store);
  return 0;
}
