// What a torch checkpoint's pickle may build: the allow-list of globals and
// their meaning, without importing or running anything. Storages come from
// persistent ids ('storage', <torch.XStorage>, key, location, numel[, view]);
// tensors from torch._utils._rebuild_tensor_v2; every other global, and any
// call of something not allow-listed, is refused.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/pickle_machine.h"
#include "format/pth_dtype.h"

namespace wasmlm {

// A storage as the pickle names it; its bytes live in the archive entry
// data/<key> (zip) or after the pickles (legacy).
struct PthStorageRef {
  std::string key;
  PthDtype dtype = PthDtype::F32;
  uint64_t numel = 0;  // in elements of dtype
};

struct PthTensorRef {
  uint32_t storage = 0;  // index into PthUnpickler::storages()
  PthDtype dtype = PthDtype::F32;
  uint64_t storage_offset = 0;  // elements
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;
};

class PthUnpickler : public PickleHooks {
 public:
  PyValue global(PickleHeap& heap, const std::string& module, const std::string& name, uint64_t offset) override;
  PyValue call(PickleHeap& heap, PyValue callable, PyValue args, bool newobj, uint64_t offset) override;
  PyValue persistent_load(PickleHeap& heap, PyValue pid, uint64_t offset) override;
  void build(PickleHeap& heap, PyValue obj, PyValue state, uint64_t offset) override;

  const std::vector<PthStorageRef>& storages() const { return storages_; }
  const std::vector<PthTensorRef>& tensors() const { return tensors_; }
  // Index of the storage with this key, or -1.
  int64_t find_storage(const std::string& key) const;

 private:
  PyValue rebuild_tensor(PickleHeap& heap, const std::vector<PyValue>& args, uint64_t offset);

  struct View {
    uint32_t storage;
    uint64_t offset;  // elements into the storage (legacy views)
  };
  std::vector<PthStorageRef> storages_;
  std::unordered_map<std::string, uint32_t> storage_by_key_;
  std::unordered_map<uint32_t, uint32_t> storage_by_key_ref_;  // key string object -> storage
  std::vector<View> views_;  // what a Storage value's tag indexes
  std::unordered_map<uint32_t, PyValue> loaded_;  // persistent id object -> its Storage value
  std::vector<PthTensorRef> tensors_;
};

}  // namespace wasmlm
