// A PyTorch checkpoint (.pt/.pth from torch.save) as a tensor directory, read
// without executing anything: the zip format (torch >= 1.6) and the legacy
// pickle format before it. The old tar format (torch < 0.4) is refused.
//
// Nested dicts are flattened with "." ("model.layers.0.weight"); list items
// are named by their index; values that are not tensors are ignored.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/incremental_parser.h"
#include "format/pth_dtype.h"

namespace wasmlm {

enum class PthFormat { Zip, Legacy };
const char* pth_format_name(PthFormat format);

// One storage's bytes in the file; several tensors may share one.
struct PthStorage {
  std::string key;  // zip: the entry <archive>/data/<key>
  PthDtype dtype = PthDtype::F32;
  uint64_t numel = 0;
  uint64_t offset = 0;  // absolute file offset of element 0
  uint64_t nbytes = 0;  // numel * element size
};

struct PthTensor {
  std::string name;
  PthDtype dtype = PthDtype::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;    // in elements, as torch has it
  uint64_t storage_offset = 0;    // elements into the storage
  uint32_t storage = 0;           // index into PthCheckpoint::storages

  uint64_t numel() const;
  uint64_t nbytes() const;  // numel() elements of dtype (a zero-stride tensor's storage holds fewer)
  bool contiguous() const;  // row-major with no gaps; an empty tensor is
};

struct PthCheckpoint {
  PthFormat format = PthFormat::Zip;
  int pickle_protocol = 0;  // of data.pkl (zip) or the object pickle (legacy)
  std::vector<PthStorage> storages;
  std::vector<PthTensor> tensors;  // in the order the pickle lists them

  const PthTensor* find(const std::string& name) const;
  // Where the tensor's first element is in the file.
  uint64_t data_offset(const PthTensor& t) const;
};

// The reader guarantees: every tensor's nbytes() fits in an int64, and a
// non-empty tensor lies inside its storage, which lies inside the file.
PthCheckpoint read_pth_checkpoint(uint64_t file_size, const ReadAt& read_at);
PthCheckpoint read_pth_checkpoint(const uint8_t* data, size_t size);

class PthZipReader;
class PthLegacyReader;

// Reads a checkpoint through a ReadAt that may throw NeedRange (bytes a
// caller hands in on demand: a RangeCache). read() again once they are there
// goes on where it stopped: the zip directory, each pickle opcode and each
// storage header is read once, however many ranges the file comes in.
class PthCheckpointReader {
 public:
  PthCheckpointReader(uint64_t file_size, ReadAt read_at);
  ~PthCheckpointReader();
  PthCheckpointReader(const PthCheckpointReader&) = delete;
  PthCheckpointReader& operator=(const PthCheckpointReader&) = delete;

  PthCheckpoint read();
  uint64_t pickle_ops() const;  // opcodes the pickle machine has run

 private:
  uint64_t file_size_;
  ReadAt read_at_;
  std::unique_ptr<PthZipReader> zip_;
  std::unique_ptr<PthLegacyReader> legacy_;
};

}  // namespace wasmlm
