// libFuzzer target: PyTorch checkpoints (torch.save's zip format, the legacy
// pickle format, the refused tar format) on arbitrary bytes, read directly
// and as the wasm bindings read them: through a PthRangeReader that asks for
// byte ranges and resumes where it stopped, given exactly the bytes it asks
// for. Both ways must agree, down to the pickle opcodes run (a resumed read
// runs each once); every tensor must lie inside its storage, and every
// storage inside the file.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "format/pth_checkpoint.h"
#include "format/pth_range_reader.h"
#include "support.h"

namespace {

void check(const wasmlm::PthCheckpoint& ck, size_t size) {
  for (const wasmlm::PthStorage& s : ck.storages)
    FUZZ_CHECK(s.offset <= size && s.nbytes <= size - s.offset && s.nbytes == s.numel * wasmlm::pth_dtype_size(s.dtype));
  for (const wasmlm::PthTensor& t : ck.tensors) {
    FUZZ_CHECK(t.storage < ck.storages.size() && t.shape.size() == t.stride.size());
    if (t.numel() == 0) continue;
    unsigned __int128 last = t.storage_offset;
    for (size_t i = 0; i < t.shape.size(); ++i) last += static_cast<unsigned __int128>(t.shape[i] - 1) * t.stride[i];
    FUZZ_CHECK(last < ck.storages[t.storage].numel);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wasmlm::PthCheckpointReader direct_reader(size, wasmlm::read_from_memory(data, size));
  std::optional<wasmlm::PthCheckpoint> direct;
  wasmlm_fuzz::succeeds([&] { direct = direct_reader.read(); });
  if (direct) check(*direct, size);

  wasmlm::PthRangeReader ranged_reader(size);
  std::optional<wasmlm::PthCheckpoint> ranged;
  const bool ranged_ok = wasmlm_fuzz::succeeds([&] {
    while (!(ranged = ranged_reader.read())) {
      const wasmlm::NeedRange need = ranged_reader.need();
      FUZZ_CHECK(need.offset < size && need.length <= size - need.offset);
      ranged_reader.add(need.offset, std::vector<uint8_t>(data + need.offset, data + need.offset + need.length));
    }
  });
  FUZZ_CHECK(direct.has_value() == ranged_ok);
  if (direct) {
    FUZZ_CHECK(direct->tensors.size() == ranged->tensors.size() && direct->storages.size() == ranged->storages.size());
    for (size_t i = 0; i < direct->tensors.size(); ++i) FUZZ_CHECK(direct->tensors[i].name == ranged->tensors[i].name);
    FUZZ_CHECK(direct_reader.pickle_ops() == ranged_reader.pickle_ops());
  }
  return 0;
}
