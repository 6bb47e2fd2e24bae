// libFuzzer target: the pickle machine with the PyTorch allow-list
// (PthUnpickler) on arbitrary bytes, as torch's data.pkl or the legacy
// format's pickles one after another; then the tensors named in the last
// result, as the checkpoint readers collect them.
#include <cstddef>
#include <cstdint>

#include "format/pickle_machine.h"
#include "format/pth_read_at.h"
#include "format/pth_tensor_names.h"
#include "format/pth_unpickler.h"
#include "support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const wasmlm::ReadAt read_at = wasmlm::read_from_memory(data, size);
  wasmlm::ReadAtStream in(read_at, 0, size);
  wasmlm::PickleHeap heap;
  wasmlm::PthUnpickler unpickler;
  // The legacy format is five pickles in a row.
  for (int i = 0; i < 5 && in.left() > 0; ++i) {
    const uint64_t start = in.pos();
    wasmlm::PyValue root;
    if (!wasmlm_fuzz::succeeds([&] { root = wasmlm::run_pickle(in, heap, unpickler, "pickle"); })) break;
    FUZZ_CHECK(in.pos() > start && in.pos() <= size);
    wasmlm_fuzz::succeeds([&] {
      for (const wasmlm::PthTensor& t : wasmlm::collect_pth_tensors(heap, root, unpickler, start)) {
        FUZZ_CHECK(t.storage < unpickler.storages().size() && t.shape.size() == t.stride.size());
        FUZZ_CHECK(t.dtype == unpickler.storages()[t.storage].dtype);
      }
    });
    (void)wasmlm::pickle_protocol_at(read_at, start);
  }
  return 0;
}
