#include "pth_test_zip.h"

namespace wasmlm_test {

namespace {

void put(std::vector<uint8_t>& b, uint64_t v, int size) {
  for (int i = 0; i < size; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

void patch_le(std::vector<uint8_t>& bytes, uint64_t at, uint64_t value, int size) {
  for (int i = 0; i < size; ++i) bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

TestZip write_test_zip(const std::vector<TestZipEntry>& entries, bool zip64) {
  TestZip z;
  std::vector<uint8_t>& b = z.bytes;
  for (const TestZipEntry& e : entries) {
    z.local_offsets.push_back(b.size());
    put(b, 0x04034b50, 4);
    put(b, 20, 2);  // version needed
    put(b, 0, 2);   // flags
    put(b, e.method, 2);
    put(b, 0, 4);   // time, date
    put(b, 0, 4);   // crc (not checked)
    put(b, e.data.size(), 4);
    put(b, e.data.size(), 4);
    put(b, e.name.size(), 2);
    put(b, 4, 2);  // extra length: an empty "FB" padding field, as torch writes
    b.insert(b.end(), e.name.begin(), e.name.end());
    b.insert(b.end(), {'F', 'B', 0, 0});
    b.insert(b.end(), e.data.begin(), e.data.end());
  }
  uint64_t cd_start = b.size();
  for (size_t i = 0; i < entries.size(); ++i) {
    const TestZipEntry& e = entries[i];
    z.central_offsets.push_back(b.size());
    put(b, 0x02014b50, 4);
    put(b, 45, 2);
    put(b, 45, 2);
    put(b, 0, 2);
    put(b, e.method, 2);
    put(b, 0, 4);
    put(b, 0, 4);
    uint64_t marker = zip64 ? 0xffffffff : e.data.size();
    put(b, marker, 4);
    put(b, marker, 4);
    put(b, e.name.size(), 2);
    put(b, zip64 ? 4 + 24 : 0, 2);
    put(b, 0, 2);  // comment
    put(b, 0, 2);  // disk
    put(b, 0, 2);  // internal attrs
    put(b, 0, 4);  // external attrs
    put(b, zip64 ? 0xffffffff : z.local_offsets[i], 4);
    b.insert(b.end(), e.name.begin(), e.name.end());
    if (zip64) {
      put(b, 0x0001, 2);
      put(b, 24, 2);
      put(b, e.data.size(), 8);
      put(b, e.data.size(), 8);
      put(b, z.local_offsets[i], 8);
    }
  }
  uint64_t cd_size = b.size() - cd_start;
  if (zip64) {
    uint64_t rec = b.size();
    put(b, 0x06064b50, 4);
    put(b, 44, 8);
    put(b, 45, 2);
    put(b, 45, 2);
    put(b, 0, 4);
    put(b, 0, 4);
    put(b, entries.size(), 8);
    put(b, entries.size(), 8);
    put(b, cd_size, 8);
    put(b, cd_start, 8);
    put(b, 0x07064b50, 4);
    put(b, 0, 4);
    put(b, rec, 8);
    put(b, 1, 4);
  }
  put(b, 0x06054b50, 4);
  put(b, 0, 2);
  put(b, 0, 2);
  put(b, zip64 ? 0xffff : entries.size(), 2);
  put(b, zip64 ? 0xffff : entries.size(), 2);
  put(b, zip64 ? 0xffffffff : cd_size, 4);
  put(b, zip64 ? 0xffffffff : cd_start, 4);
  put(b, 0, 2);
  return z;
}

}  // namespace wasmlm_test
