#include "format/zip_reader.h"

#include <algorithm>

#include "core/checked_math.h"
#include "core/error.h"
#include "format/limits.h"
#include "format/pth_read_at.h"

namespace wasmlm {

namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEocdSig = 0x06054b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kZip64EocdSig = 0x06064b50;
constexpr size_t kEocdSize = 22;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralSize = 46;
constexpr size_t kMaxComment = 0xffff;

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) { return le16(p) | static_cast<uint32_t>(le16(p + 2)) << 16; }
uint64_t le64(const uint8_t* p) { return le32(p) | static_cast<uint64_t>(le32(p + 4)) << 32; }

struct Eocd {
  uint64_t pos;
  uint64_t count;
  uint64_t cd_size;
  uint64_t cd_offset;
};

Eocd find_eocd(const ReadAt& read_at, uint64_t file_size) {
  if (file_size < kEocdSize)
    fail(ErrorCode::Truncated, 0, "zip archive shorter than its End Of Central Directory record (22 bytes)");
  uint64_t tail = std::min<uint64_t>(file_size, kEocdSize + kMaxComment);
  uint64_t start = file_size - tail;
  std::vector<uint8_t> buf = read_exact(read_at, start, static_cast<size_t>(tail), "zip end of central directory");
  for (size_t i = buf.size() - kEocdSize + 1; i-- > 0;) {
    const uint8_t* p = buf.data() + i;
    if (le32(p) != kEocdSig) continue;
    // The comment must run exactly to the end of the file.
    if (i + kEocdSize + le16(p + 20) != buf.size()) continue;
    if (le16(p + 4) != 0 || le16(p + 6) != 0 || le16(p + 8) != le16(p + 10))
      fail(ErrorCode::Unsupported, start + i, "multi-disk (split) zip archives are not supported");
    return {start + i, le16(p + 10), le32(p + 12), le32(p + 16)};
  }
  fail(ErrorCode::BadFormat, start, "no zip End Of Central Directory record in the last " + std::to_string(tail) + " bytes");
}

// Replaces 0xffff/0xffffffff fields of the EOCD by the zip64 record's.
void read_zip64_eocd(const ReadAt& read_at, uint64_t file_size, Eocd& eocd) {
  if (eocd.pos < 20) fail(ErrorCode::BadFormat, eocd.pos, "zip64 fields but no room for the zip64 locator");
  uint8_t loc[20];
  read_exact(read_at, eocd.pos - 20, loc, sizeof loc, "zip64 end of central directory locator");
  if (le32(loc) != kZip64LocatorSig)
    fail(ErrorCode::BadFormat, eocd.pos - 20, "EOCD has zip64 markers but no zip64 locator precedes it");
  uint64_t rec = le64(loc + 8);
  if (rec > file_size || file_size - rec < 56)
    fail(ErrorCode::BadFormat, eocd.pos - 12, "zip64 EOCD offset " + std::to_string(rec) + " is past the end of the file");
  uint8_t r[56];
  read_exact(read_at, rec, r, sizeof r, "zip64 end of central directory");
  if (le32(r) != kZip64EocdSig) fail(ErrorCode::BadFormat, rec, "expected the zip64 End Of Central Directory signature");
  if (le32(r + 16) != 0 || le32(r + 20) != 0 || le64(r + 24) != le64(r + 32))
    fail(ErrorCode::Unsupported, rec, "multi-disk (split) zip archives are not supported");
  eocd.count = le64(r + 32);
  eocd.cd_size = le64(r + 40);
  eocd.cd_offset = le64(r + 48);
}

}  // namespace

bool looks_like_zip(const uint8_t* head, size_t n) {
  return n >= 4 && (le32(head) == kLocalHeaderSig || le32(head) == kEocdSig);
}

ZipArchive::ZipArchive(uint64_t file_size, ReadAt read_at) : file_size_(file_size), read_at_(std::move(read_at)) {
  Eocd eocd = find_eocd(read_at_, file_size_);
  if (eocd.count == 0xffff || eocd.cd_size == 0xffffffff || eocd.cd_offset == 0xffffffff)
    read_zip64_eocd(read_at_, file_size_, eocd);
  if (eocd.cd_offset > file_size_ || eocd.cd_size > file_size_ - eocd.cd_offset)
    fail(ErrorCode::BadFormat, eocd.pos, "zip central directory [" + std::to_string(eocd.cd_offset) + ", +" +
                                             std::to_string(eocd.cd_size) + ") lies outside the file (" +
                                             std::to_string(file_size_) + " bytes)");
  if (eocd.count > limits::kMaxZipEntries)
    fail(ErrorCode::TooLarge, eocd.pos, "zip archive declares " + std::to_string(eocd.count) + " entries (limit " +
                                            std::to_string(limits::kMaxZipEntries) + ")");
  if (eocd.count * kCentralSize > eocd.cd_size)
    fail(ErrorCode::BadFormat, eocd.pos, std::to_string(eocd.count) + " zip entries cannot fit in a central directory of " +
                                             std::to_string(eocd.cd_size) + " bytes");
  if (eocd.cd_size > limits::kMaxUnitBytes)
    fail(ErrorCode::TooLarge, eocd.pos, "zip central directory of " + std::to_string(eocd.cd_size) + " bytes");
  read_central_directory(eocd.cd_offset, eocd.cd_size, eocd.count);
}

void ZipArchive::read_central_directory(uint64_t offset, uint64_t size, uint64_t count) {
  std::vector<uint8_t> cd = read_exact(read_at_, offset, static_cast<size_t>(size), "zip central directory");
  size_t at = 0;
  entries_.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t here = offset + at;
    if (cd.size() - at < kCentralSize) fail(ErrorCode::Truncated, here, "zip central directory ends inside an entry");
    const uint8_t* p = cd.data() + at;
    if (le32(p) != kCentralSig)
      fail(ErrorCode::BadFormat, here, "expected a zip central directory entry (PK\\1\\2), entry " + std::to_string(i));
    ZipEntry e;
    e.flags = le16(p + 8);
    e.method = le16(p + 10);
    e.compressed_size = le32(p + 20);
    e.size = le32(p + 24);
    size_t name_len = le16(p + 28), extra_len = le16(p + 30), comment_len = le16(p + 32);
    e.local_header_offset = le32(p + 42);
    e.central_offset = here;
    if (cd.size() - at - kCentralSize < name_len + extra_len + comment_len)
      fail(ErrorCode::Truncated, here, "zip central directory ends inside entry " + std::to_string(i) + "'s name/extra fields");
    e.name.assign(reinterpret_cast<const char*>(p + kCentralSize), name_len);

    // zip64 extended information: the 0xffffffff fields follow, in this order.
    const uint8_t* x = p + kCentralSize + name_len;
    for (size_t k = 0; k + 4 <= extra_len;) {
      uint16_t id = le16(x + k), n = le16(x + k + 2);
      if (k + 4 + n > extra_len) fail(ErrorCode::BadFormat, here, "zip extra field of entry '" + e.name + "' overruns");
      if (id == 0x0001) {
        const uint8_t* f = x + k + 4;
        size_t left = n;
        auto take = [&](uint64_t& field) {
          if (field != 0xffffffff) return;
          if (left < 8) fail(ErrorCode::BadFormat, here, "zip64 extra field of entry '" + e.name + "' is too short");
          field = le64(f);
          f += 8;
          left -= 8;
        };
        take(e.size);
        take(e.compressed_size);
        take(e.local_header_offset);
      }
      k += 4 + n;
    }
    at += kCentralSize + name_len + extra_len + comment_len;
    if (!by_name_.emplace(e.name, entries_.size()).second)
      fail(ErrorCode::BadFormat, here, "zip archive holds two entries named '" + e.name + "'");
    entries_.push_back(std::move(e));
  }
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

ZipSpan ZipArchive::locate(const ZipEntry& e) const {
  if (e.flags & 1) fail(ErrorCode::Unsupported, e.central_offset, "zip entry '" + e.name + "' is encrypted");
  if (e.method != 0)
    fail(ErrorCode::Unsupported, e.central_offset,
         "zip entry '" + e.name + "' is compressed (method " + std::to_string(e.method) +
             (e.method == 8 ? ", deflate" : "") + "); only stored entries can be read (save with torch.save, which stores)");
  if (e.compressed_size != e.size)
    fail(ErrorCode::BadFormat, e.central_offset, "stored zip entry '" + e.name + "' has compressed size " +
                                                     std::to_string(e.compressed_size) + " != size " + std::to_string(e.size));
  if (e.local_header_offset > file_size_ || file_size_ - e.local_header_offset < kLocalHeaderSize)
    fail(ErrorCode::BadFormat, e.central_offset, "zip entry '" + e.name + "' has its local header at " +
                                                     std::to_string(e.local_header_offset) + ", past the end of the file");
  uint8_t h[kLocalHeaderSize];
  read_exact(read_at_, e.local_header_offset, h, sizeof h, "zip local file header");
  if (le32(h) != kLocalHeaderSig)
    fail(ErrorCode::BadFormat, e.local_header_offset, "expected a zip local file header (PK\\3\\4) for entry '" + e.name + "'");
  uint64_t data = checked_add(e.local_header_offset, kLocalHeaderSize + le16(h + 26) + le16(h + 28), e.local_header_offset,
                              "zip entry '" + e.name + "' data offset");
  if (data > file_size_ || e.size > file_size_ - data)
    fail(ErrorCode::BadFormat, e.local_header_offset,
         "zip entry '" + e.name + "' data [" + std::to_string(data) + ", +" + std::to_string(e.size) +
             ") runs past the end of the file (" + std::to_string(file_size_) + " bytes)");
  return {data, e.size};
}

}  // namespace wasmlm
