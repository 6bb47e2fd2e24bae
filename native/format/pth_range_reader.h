// A PyTorch checkpoint whose bytes arrive in ranges the reader asks for (JS
// reading a File, a Blob or a URL with Range requests): the tensor directory
// is read once, resuming after each range instead of starting over.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "format/pth_checkpoint.h"
#include "format/range_cache.h"

namespace wasmlm {

class PthRangeReader {
 public:
  explicit PthRangeReader(uint64_t file_size) : ranges_(file_size), reader_(file_size, ranges_.reader()) {}
  PthRangeReader(const PthRangeReader&) = delete;
  PthRangeReader& operator=(const PthRangeReader&) = delete;

  uint64_t file_size() const { return ranges_.size(); }
  void add(uint64_t offset, std::vector<uint8_t> bytes) { ranges_.add(offset, std::move(bytes)); }
  // The checkpoint, or nullopt until need()'s bytes have been added.
  std::optional<PthCheckpoint> read();
  const NeedRange& need() const { return need_; }
  uint64_t pickle_ops() const { return reader_.pickle_ops(); }

 private:
  RangeCache ranges_;
  PthCheckpointReader reader_;
  NeedRange need_{0, 0};
};

}  // namespace wasmlm
