// libFuzzer target: a PyTorch checkpoint's tensor values as floats
// (read_pth_tensor_as_float: every dtype, strides, storage offsets, views)
// for every tensor of a checkpoint read from arbitrary bytes.
#include <cstddef>
#include <cstdint>

#include "format/pth_checkpoint.h"
#include "format/pth_tensor_values.h"
#include "support.h"

namespace {
// Larger tensors convert the same way; skipping them keeps runs fast (a
// zero-stride view of 10^8 elements is legitimately 400 MB of floats).
constexpr uint64_t kMaxElements = 1u << 22;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wasmlm_fuzz::succeeds([&] {
    const wasmlm::PthCheckpoint ck = wasmlm::read_pth_checkpoint(data, size);
    const wasmlm::ReadAt read_at = wasmlm::read_from_memory(data, size);
    for (const wasmlm::PthTensor& t : ck.tensors) {
      if (t.numel() > kMaxElements) continue;
      wasmlm_fuzz::succeeds([&] {
        FUZZ_CHECK(wasmlm::read_pth_tensor_as_float(ck, t, read_at).size() == t.numel());
      });
    }
  });
  return 0;
}
