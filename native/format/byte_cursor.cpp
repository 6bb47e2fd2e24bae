#include "format/byte_cursor.h"

#include "core/checked_math.h"
#include "format/limits.h"

namespace wasmlm {

uint64_t ByteCursor::bytes_left_in_file() const {
  if (file_size_ != 0) return pos() <= file_size_ ? file_size_ - pos() : 0;
  if (at_eof_) return size_ - cur_;
  return limits::kMaxUnitBytes;
}

void ByteCursor::require(uint64_t n, const char* what) {
  uint64_t avail = size_ - cur_;
  if (n <= avail) return;
  uint64_t end = pos() + n;
  bool past_file_end = file_size_ != 0 && (n > bytes_left_in_file());
  if (at_eof_ || past_file_end) {
    uint64_t file_end = file_size_ != 0 ? file_size_ : base_ + size_;
    fail(ErrorCode::Truncated, pos(),
         std::string("expected ") + what + " (" + std::to_string(n) + " bytes) but the file ends at byte " +
             std::to_string(file_end));
  }
  throw NeedMore{end};
}

float ByteCursor::f32(const char* what) {
  uint32_t bits = u32(what);
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

double ByteCursor::f64(const char* what) {
  uint64_t bits = u64(what);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

std::string_view ByteCursor::bytes(uint64_t n, const char* what) {
  require(n, what);
  std::string_view v(reinterpret_cast<const char*>(data_ + cur_), n);
  cur_ += n;
  return v;
}

void ByteCursor::skip(uint64_t n, const char* what) {
  require(n, what);
  cur_ += n;
}

void ByteCursor::align_to(uint64_t alignment, const char* what) {
  uint64_t rem = pos() % alignment;
  if (rem != 0) skip(alignment - rem, what);
}

void ByteCursor::values(void* out, uint64_t n, uint32_t size, const char* what) {
  const uint64_t total = checked_mul(n, size, pos(), std::string("expected ") + what + ": element count");
  require(total, what);
  if (total == 0) return;  // `out` may be null (an empty vector's data())
  auto* dst = static_cast<uint8_t*>(out);
  std::memcpy(dst, data_ + cur_, total);
  cur_ += total;
  if (!big_endian_ || size == 1) return;
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t* p = dst + i * size;
    for (uint32_t a = 0, b = size - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  }
}

bool is_valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) { ++i; continue; }
    int len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > n) return false;
    for (int k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

}  // namespace wasmlm
