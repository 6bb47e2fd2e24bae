// Byte ranges of a file handed in by a caller that reads asynchronously (JS
// with fetch Range requests or Blob slices). A reader run over reader()
// throws NeedRange for bytes it does not have; the caller fetches them,
// add()s them and runs the reader again. Readers that need a few small
// ranges (a zip's directory, a pickle) are quick to run twice.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "format/incremental_parser.h"

namespace wasmlm {

struct NeedRange {
  uint64_t offset, length;
};

class RangeCache {
 public:
  explicit RangeCache(uint64_t file_size) : size_(file_size) {}

  uint64_t size() const { return size_; }
  void add(uint64_t offset, std::vector<uint8_t> bytes) { ranges_[offset] = std::move(bytes); }
  // Reads within one added range; 0 bytes past the end of the file; else NeedRange.
  ReadAt reader() const;

 private:
  uint64_t size_;
  std::map<uint64_t, std::vector<uint8_t>> ranges_;
};

}  // namespace wasmlm
