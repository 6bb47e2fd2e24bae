#include "tokenizer/rwkv_token_text.h"

#include <cstdint>

namespace wasmlm {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string rwkv_escape_token(std::string_view bytes) {
  static const char kHex[] = "0123456789abcdef";
  const bool double_quoted = bytes.find('\'') != std::string_view::npos && bytes.find('"') == std::string_view::npos;
  const char quote = double_quoted ? '"' : '\'';
  std::string out;
  out.reserve(bytes.size());
  for (char ch : bytes) {
    const uint8_t c = static_cast<uint8_t>(ch);
    if (c == '\\' || c == static_cast<uint8_t>(quote)) {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7F) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

bool rwkv_unescape_token(std::string_view escaped, std::string* bytes) {
  bytes->clear();
  bytes->reserve(escaped.size());
  for (size_t i = 0; i < escaped.size(); ++i) {
    const char c = escaped[i];
    if (c != '\\') {
      bytes->push_back(c);
      continue;
    }
    if (++i == escaped.size()) return false;
    switch (escaped[i]) {
      case 't': bytes->push_back('\t'); break;
      case 'n': bytes->push_back('\n'); break;
      case 'r': bytes->push_back('\r'); break;
      case 'x': {
        const int hi = i + 1 < escaped.size() ? hex_value(escaped[i + 1]) : -1;
        const int lo = i + 2 < escaped.size() ? hex_value(escaped[i + 2]) : -1;
        if (hi < 0 || lo < 0) return false;
        bytes->push_back(static_cast<char>(hi << 4 | lo));
        i += 2;
        break;
      }
      default: bytes->push_back(escaped[i]); break;
    }
  }
  return true;
}

}  // namespace wasmlm
