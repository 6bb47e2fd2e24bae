// torch.save's format before zip (_use_new_zipfile_serialization=False):
// five pickles in a row (magic number, protocol 1001, sys_info, the object,
// the storage keys) and then each storage as an 8-byte element count followed
// by its bytes, in the order of the keys list.
#pragma once

#include <memory>
#include <vector>

#include "format/pickle_machine.h"
#include "format/pth_checkpoint.h"
#include "format/pth_unpickler.h"

namespace wasmlm {

// True if the file starts like a pickle (the legacy format's first is the magic number).
bool looks_like_legacy_pth(const uint8_t* head, size_t n);

// Resumes after NeedRange (see PthCheckpointReader): the pickles run so far
// and the storages found so far are kept.
class PthLegacyReader {
 public:
  PthLegacyReader(uint64_t file_size, const ReadAt& read_at);
  PthCheckpoint read();
  uint64_t pickle_ops() const { return ops_done_ + (machine_ ? machine_->ops() : 0); }

 private:
  void check_pickle(size_t i) const;  // the magic number, protocol and sys_info pickles
  void read_storage(PyValue key);

  uint64_t file_size_;
  const ReadAt& read_at_;
  ReadAtStream in_;
  PickleHeap heap_;
  PthUnpickler unpickler_;
  std::unique_ptr<PickleMachine> machine_;  // of the pickle being read
  uint64_t ops_done_ = 0;                   // by the pickles read before it
  std::vector<PyValue> pickles_;            // results, in file order
  std::vector<uint64_t> starts_;            // where each pickle starts
  uint64_t pos_ = 0;                        // the next storage record
  size_t keys_done_ = 0;
  std::vector<bool> seen_;
  PthCheckpoint ck_;
};

}  // namespace wasmlm
