#include "format/pth_read_at.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace wasmlm {

void read_exact(const ReadAt& read_at, uint64_t offset, uint8_t* dst, size_t n, const char* what) {
  size_t got = 0;
  while (got < n) {
    size_t r = read_at(offset + got, dst + got, n - got);
    if (r == 0) fail(ErrorCode::Truncated, offset + got, std::string("file ends inside ") + what);
    got += r;
  }
}

std::vector<uint8_t> read_exact(const ReadAt& read_at, uint64_t offset, size_t n, const char* what) {
  std::vector<uint8_t> bytes(n);
  read_exact(read_at, offset, bytes.data(), n, what);
  return bytes;
}

namespace {
constexpr size_t kChunk = 64 << 10;
}

ReadAtStream::ReadAtStream(const ReadAt& read_at, uint64_t begin, uint64_t end)
    : read_at_(read_at), begin_(begin), end_(end), pos_(begin), buf_start_(begin) {}

void ReadAtStream::fill(const char* what) {
  if (pos_ >= end_) fail(ErrorCode::Truncated, pos_, std::string("data ends inside ") + what);
  size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, end_ - pos_));
  buf_.resize(n);
  try {
    read_exact(read_at_, pos_, buf_.data(), n, what);
  } catch (...) {
    buf_.clear();  // holds nothing valid: the next read fills it again
    throw;
  }
  buf_start_ = pos_;
}

void ReadAtStream::seek(uint64_t pos) {
  if (pos < begin_ || pos > end_) fail(ErrorCode::Internal, pos, "seek outside the stream");
  pos_ = pos;
}

uint8_t ReadAtStream::u8(const char* what) {
  if (pos_ < buf_start_ || pos_ >= buf_start_ + buf_.size()) fill(what);
  return buf_[pos_++ - buf_start_];
}

void ReadAtStream::read(uint8_t* dst, uint64_t n, const char* what) {
  if (n > left()) fail(ErrorCode::Truncated, pos_, std::string("data ends inside ") + what);
  while (n > 0) {
    if (pos_ < buf_start_ || pos_ >= buf_start_ + buf_.size()) fill(what);
    size_t take = static_cast<size_t>(std::min<uint64_t>(n, buf_start_ + buf_.size() - pos_));
    std::memcpy(dst, buf_.data() + (pos_ - buf_start_), take);
    dst += take;
    pos_ += take;
    n -= take;
  }
}

std::string ReadAtStream::string(uint64_t n, const char* what) {
  if (n > left()) fail(ErrorCode::Truncated, pos_, std::string("data ends inside ") + what);
  std::string s(static_cast<size_t>(n), '\0');
  read(reinterpret_cast<uint8_t*>(s.data()), n, what);
  return s;
}

}  // namespace wasmlm
