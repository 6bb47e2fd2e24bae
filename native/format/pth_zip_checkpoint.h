// torch.save's zip format: <archive>/data.pkl names the tensors; each
// storage's bytes are the stored entry <archive>/data/<key>.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "format/pickle_machine.h"
#include "format/pth_checkpoint.h"
#include "format/pth_unpickler.h"
#include "format/zip_reader.h"

namespace wasmlm {

// Resumes after NeedRange (see PthCheckpointReader): the directory, the
// pickle and the storages found so far are kept.
class PthZipReader {
 public:
  PthZipReader(uint64_t file_size, const ReadAt& read_at);
  PthCheckpoint read();
  uint64_t pickle_ops() const { return machine_ ? machine_->ops() : 0; }

 private:
  void start_pickle();

  uint64_t file_size_;
  const ReadAt& read_at_;
  std::optional<ZipArchive> zip_;
  std::string prefix_;  // "<archive>/"
  ZipSpan pkl_;
  std::unique_ptr<ReadAtStream> in_;
  PickleHeap heap_;
  PthUnpickler unpickler_;
  std::unique_ptr<PickleMachine> machine_;
  std::optional<PyValue> root_;
  PthCheckpoint ck_;
};

}  // namespace wasmlm
