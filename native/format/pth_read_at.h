// Exact and sequential reads through a random-access reader (ReadAt), for
// formats whose parts are found by offsets (zip archives, pickles).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/incremental_parser.h"

namespace wasmlm {

// Fills dst with the n bytes at `offset`, or throws Truncated naming `what`.
void read_exact(const ReadAt& read_at, uint64_t offset, uint8_t* dst, size_t n, const char* what);
std::vector<uint8_t> read_exact(const ReadAt& read_at, uint64_t offset, size_t n, const char* what);

// Reads the bytes [begin, end) of a file in order, through a small buffer.
class ReadAtStream {
 public:
  ReadAtStream(const ReadAt& read_at, uint64_t begin, uint64_t end);

  uint64_t pos() const { return pos_; }
  uint64_t begin() const { return begin_; }
  uint64_t end() const { return end_; }
  uint64_t left() const { return end_ - pos_; }

  // Back to an earlier position (a reader resuming after NeedRange).
  void seek(uint64_t pos);

  uint8_t u8(const char* what);
  // n bytes; Truncated (naming `what`) if fewer are left before end().
  void read(uint8_t* dst, uint64_t n, const char* what);
  std::string string(uint64_t n, const char* what);

 private:
  void fill(const char* what);

  const ReadAt& read_at_;
  uint64_t begin_, end_, pos_;
  std::vector<uint8_t> buf_;
  uint64_t buf_start_ = 0;  // file offset of buf_[0]
};

}  // namespace wasmlm
