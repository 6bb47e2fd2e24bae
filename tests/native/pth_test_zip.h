// Writes small zip archives byte by byte for the PyTorch reader's tests:
// stored or "deflated" (method 8, bytes left as they are) entries, with or
// without zip64 records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wasmlm_test {

struct TestZipEntry {
  std::string name;
  std::string data;
  uint16_t method = 0;
};

struct TestZip {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> central_offsets;  // each entry's central directory record
  std::vector<uint64_t> local_offsets;    // each entry's local header
};

TestZip write_test_zip(const std::vector<TestZipEntry>& entries, bool zip64 = false);

// Overwrites `size` little-endian bytes at `at`.
void patch_le(std::vector<uint8_t>& bytes, uint64_t at, uint64_t value, int size);

}  // namespace wasmlm_test
