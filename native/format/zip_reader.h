// The directory of a zip archive (the container of PyTorch's .pt/.pth files),
// read through a random-access reader: the End Of Central Directory record at
// the end, then the central directory, with zip64 records for archives and
// entries over 4 GB. Entry data is located from its local header on demand;
// only stored (uncompressed) entries can be read.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/incremental_parser.h"

namespace wasmlm {

struct ZipEntry {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflate
  uint16_t flags = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_header_offset = 0;
  uint64_t central_offset = 0;  // where its central directory record is (for errors)
};

// Where a stored entry's bytes are in the file.
struct ZipSpan {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// True if the file starts like a zip archive (a local file header).
bool looks_like_zip(const uint8_t* head, size_t n);

class ZipArchive {
 public:
  ZipArchive(uint64_t file_size, ReadAt read_at);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const ZipEntry* find(const std::string& name) const;
  // Reads the entry's local header. Unsupported (naming the entry) unless it
  // is stored; BadFormat/Truncated if its bytes do not lie inside the file.
  ZipSpan locate(const ZipEntry& entry) const;
  const ReadAt& reader() const { return read_at_; }
  uint64_t file_size() const { return file_size_; }

 private:
  void read_central_directory(uint64_t offset, uint64_t size, uint64_t count);

  uint64_t file_size_;
  ReadAt read_at_;
  std::vector<ZipEntry> entries_;
  std::unordered_map<std::string, size_t> by_name_;
};

}  // namespace wasmlm
