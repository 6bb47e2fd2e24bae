// Reads little- or big-endian values from a window of a file's bytes.
//
// The window may be a prefix of what the file holds: reading past its end
// throws NeedMore (the caller fetches more bytes and retries the unit), unless
// the window reaches the end of the file, which is a Truncated error.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/error.h"

namespace wasmlm {

// Thrown when the window is too short; `until` is the file offset (exclusive)
// the current unit needs bytes up to, at least.
struct NeedMore {
  uint64_t until;
};

class ByteCursor {
 public:
  // `data` holds the file's bytes [base, base + size). `file_size` 0 = unknown.
  // `at_eof`: no bytes exist after the window (the stream ended).
  ByteCursor(const uint8_t* data, size_t size, uint64_t base, uint64_t file_size, bool at_eof)
      : data_(data), size_(size), base_(base), file_size_(file_size), at_eof_(at_eof) {}

  void set_big_endian(bool big) { big_endian_ = big; }
  bool big_endian() const { return big_endian_; }

  uint64_t pos() const { return base_ + cur_; }
  // Bytes from here to the end of the file, if the file size is known;
  // otherwise a bound no larger than what limits allow.
  uint64_t bytes_left_in_file() const;
  bool size_known() const { return file_size_ != 0 || at_eof_; }

  // Ensures `n` bytes can be read at the current position.
  void require(uint64_t n, const char* what);

  uint8_t u8(const char* what) { return read<uint8_t>(what); }
  uint16_t u16(const char* what) { return read<uint16_t>(what); }
  uint32_t u32(const char* what) { return read<uint32_t>(what); }
  uint64_t u64(const char* what) { return read<uint64_t>(what); }
  int32_t i32(const char* what) { return static_cast<int32_t>(read<uint32_t>(what)); }
  float f32(const char* what);
  double f64(const char* what);

  // Raw bytes, no byte swapping; valid until the window changes.
  std::string_view bytes(uint64_t n, const char* what);
  void skip(uint64_t n, const char* what);
  void align_to(uint64_t alignment, const char* what);

  // Copies `n` values of `size` bytes each into `out`, swapping to host order.
  void values(void* out, uint64_t n, uint32_t size, const char* what);

 private:
  template <typename T>
  T read(const char* what) {
    require(sizeof(T), what);
    T v;
    std::memcpy(&v, data_ + cur_, sizeof v);
    cur_ += sizeof v;
    if (big_endian_) v = swap(v);
    return v;
  }
  static uint8_t swap(uint8_t v) { return v; }
  static uint16_t swap(uint16_t v) { return __builtin_bswap16(v); }
  static uint32_t swap(uint32_t v) { return __builtin_bswap32(v); }
  static uint64_t swap(uint64_t v) { return __builtin_bswap64(v); }

  const uint8_t* data_;
  size_t size_;
  uint64_t base_;
  uint64_t file_size_;
  bool at_eof_;
  bool big_endian_ = false;
  size_t cur_ = 0;
};

// True if `s` is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF).
bool is_valid_utf8(std::string_view s);

}  // namespace wasmlm
