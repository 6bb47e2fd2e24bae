#include <cstring>
#include <string>

#include "format/format_reader.h"

namespace wasmlm {

namespace {

uint32_t le32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }

std::string describe_magic(const uint8_t* p, size_t n) {
  if (n >= 4 && p[0] == 'P' && p[1] == 'K') return "a zip archive (a PyTorch checkpoint?)";
  if (n >= 2 && p[0] == 0x80 && p[1] <= 5) return "a pickle (a legacy PyTorch checkpoint?)";
  if (n >= 1 && p[0] == '{') return "JSON text";
  if (n >= 1 && p[0] == '<') return "HTML or XML text (an error page instead of the model?)";
  std::string hex;
  static const char* kHex = "0123456789abcdef";
  for (size_t i = 0; i < n && i < 8; ++i) {
    hex += kHex[p[i] >> 4];
    hex += kHex[p[i] & 15];
    hex += ' ';
  }
  return "bytes " + hex;
}

}  // namespace

std::unique_ptr<FormatReader> detect_format(const uint8_t* p, size_t n) {
  if (n >= 4 && std::memcmp(p, "GGUF", 4) == 0) return make_gguf_reader();
  if (n >= 8) {
    uint32_t magic = le32(p), version = le32(p + 4);
    if (magic == 0x67676d66 /* ggmf */ && (version == 100 || version == 101)) return make_rwkv_bin_reader();
    if (magic == 0x67676d66 || magic == 0x67676a74 /* ggjt */ || magic == 0x67676d6c /* ggml */)
      return make_legacy_llama_reader();
  }
  if (n < 8) fail(ErrorCode::Truncated, 0, "expected a model file of at least 8 bytes, found " + std::to_string(n));
  fail(ErrorCode::BadFormat, 0,
       "expected a GGUF, rwkv.cpp or GGML/GGJT model file (magic GGUF, ggmf, ggjt or ggml), found " +
           describe_magic(p, n));
}

}  // namespace wasmlm
