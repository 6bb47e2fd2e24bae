// A PyTorch checkpoint (.pt/.pth from torch.save) as a tensor directory, read
// without executing anything: the zip format (torch >= 1.6) and the legacy
// pickle format before it. The old tar format (torch < 0.4) is refused.
//
// Nested dicts are flattened with "." ("model.layers.0.weight"); list items
// are named by their index; values that are not tensors are ignored.
#pragma once

#include <cstdint>
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
  bool contiguous() const;  // row-major with no gaps
};

struct PthCheckpoint {
  PthFormat format = PthFormat::Zip;
  int pickle_protocol = 0;  // of data.pkl (zip) or the object pickle (legacy)
  std::vector<PthStorage> storages;
  std::vector<PthTensor> tensors;  // in the order the pickle lists them

  const PthTensor* find(const std::string& name) const;
};

PthCheckpoint read_pth_checkpoint(uint64_t file_size, const ReadAt& read_at);
PthCheckpoint read_pth_checkpoint(const uint8_t* data, size_t size);

}  // namespace wasmlm
