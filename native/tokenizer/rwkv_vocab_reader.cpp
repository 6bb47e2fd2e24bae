#include "tokenizer/rwkv_vocab_reader.h"

#include <string>
#include <unordered_map>

#include "core/error.h"
#include "tokenizer/rwkv_token_text.h"
#include "tokenizer/text_lines.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace wasmlm {

namespace {

// The World vocabulary has 65529 tokens of at most 128 bytes in 1.1 MB.
constexpr size_t kMaxFileBytes = 64u << 20;
constexpr size_t kMaxTokens = 1u << 20;
constexpr size_t kMaxTokenBytes = 1024;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A run of 1..9 decimal digits; -1 otherwise.
int64_t parse_count(std::string_view s) {
  if (s.empty() || s.size() > 9) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

struct LiteralError {
  size_t at;  // offset in the literal
  std::string why;
};

// A Python str or bytes literal, all of `lit`, as bytes (str: UTF-8). The
// line is already known to be valid UTF-8. Escapes Python does not know are
// refused rather than kept (Python keeps them with a warning).
bool parse_python_literal(std::string_view lit, std::string* out, LiteralError* err) {
  out->clear();
  size_t i = 0;
  bool bytes = false;
  if (i < lit.size() && (lit[i] == 'b' || lit[i] == 'B')) {
    bytes = true;
    ++i;
  } else if (i < lit.size() && (lit[i] == 'u' || lit[i] == 'U')) {
    ++i;
  }
  if (i >= lit.size() || (lit[i] != '\'' && lit[i] != '"')) {
    *err = {i, "expected a quoted Python string or bytes literal"};
    return false;
  }
  const char quote = lit[i++];
  auto append_cpt = [&](uint32_t cpt, size_t at) {
    if (bytes) {
      if (cpt > 0xFF) {
        *err = {at, "escape value above 0xFF in a bytes literal"};
        return false;
      }
      out->push_back(static_cast<char>(cpt));
    } else {
      if (cpt > 0x10FFFF || (cpt >= 0xD800 && cpt <= 0xDFFF)) {
        *err = {at, "escape is not a codepoint UTF-8 can encode"};
        return false;
      }
      append_utf8(cpt, out);
    }
    return true;
  };
  auto hex_escape = [&](size_t at, size_t digits, uint32_t* cpt) {
    *cpt = 0;
    for (size_t k = 0; k < digits; ++k) {
      const int v = at + k < lit.size() ? hex_value(lit[at + k]) : -1;
      if (v < 0) return false;
      *cpt = *cpt << 4 | static_cast<uint32_t>(v);
    }
    return true;
  };
  while (i < lit.size()) {
    const char c = lit[i];
    if (c == quote) {
      if (i + 1 != lit.size()) {
        *err = {i + 1, "text after the closing quote"};
        return false;
      }
      return true;
    }
    if (c != '\\') {
      if (bytes && static_cast<uint8_t>(c) >= 0x80) {
        *err = {i, "non-ASCII character in a bytes literal"};
        return false;
      }
      out->push_back(c);
      ++i;
      continue;
    }
    const size_t at = i;
    if (++i >= lit.size()) break;
    const char e = lit[i++];
    uint32_t cpt = 0;
    switch (e) {
      case '\\': case '\'': case '"': out->push_back(e); break;
      case 'a': out->push_back('\a'); break;
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'v': out->push_back('\v'); break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        cpt = static_cast<uint32_t>(e - '0');
        for (int k = 0; k < 2 && i < lit.size() && lit[i] >= '0' && lit[i] <= '7'; ++k)
          cpt = cpt * 8 + static_cast<uint32_t>(lit[i++] - '0');
        if (!append_cpt(cpt, at)) return false;
        break;
      }
      case 'x': case 'u': case 'U': {
        const size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (e != 'x' && bytes) {
          *err = {at, std::string("\\") + e + " escape in a bytes literal"};
          return false;
        }
        if (!hex_escape(i, digits, &cpt)) {
          *err = {at, std::string("\\") + e + " escape without " + std::to_string(digits) + " hex digits"};
          return false;
        }
        i += digits;
        if (!append_cpt(cpt, at)) return false;
        break;
      }
      default:
        *err = {at, std::string("unsupported escape \\") + e};
        return false;
    }
  }
  *err = {lit.size(), "literal has no closing quote"};
  return false;
}

}  // namespace

bool looks_like_rwkv_vocab(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0 || i >= s.size() || s[i] != ' ') return false;
  ++i;
  if (i < s.size() && s[i] == 'b') ++i;
  return i < s.size() && (s[i] == '\'' || s[i] == '"');
}

VocabMetadata read_rwkv_vocab(std::string_view text) {
  if (text.size() > kMaxFileBytes)
    fail(ErrorCode::TooLarge, kMaxFileBytes,
         "RWKV vocabulary file larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB");
  VocabMetadata v;
  v.model = "rwkv";
  v.set_token(0, "<|endoftext|>", static_cast<int32_t>(TokenType::Control));
  std::unordered_map<std::string, size_t> seen;  // token bytes -> id
  std::string bytes;
  for_each_line(text, [&](std::string_view line, size_t start, size_t line_no) {
    const auto bad = [&](size_t column, const std::string& why) {
      fail(ErrorCode::BadFormat, start + column, "RWKV vocabulary line " + std::to_string(line_no) + ": " + why);
    };
    if (line.size() > kMaxTokenBytes * 4 + 64)
      fail(ErrorCode::TooLarge, start, "RWKV vocabulary line " + std::to_string(line_no) + " is too long");
    size_t invalid_at;
    if (utf8_valid_prefix(line, &invalid_at) != line.size()) bad(invalid_at, "not valid UTF-8");

    const size_t first_space = line.find(' ');
    const size_t last_space = line.rfind(' ');
    if (first_space == std::string_view::npos || last_space <= first_space + 1)
      bad(0, "expected 'id literal length'");
    const int64_t id = parse_count(line.substr(0, first_space));
    if (id < 0) bad(0, "invalid token id");
    const int64_t expected_id = static_cast<int64_t>(v.tokens.size());
    if (id != expected_id)
      bad(0, "token id " + std::to_string(id) + " where " + std::to_string(expected_id) + " was expected");
    if (v.tokens.size() > kMaxTokens)
      fail(ErrorCode::TooLarge, start, "RWKV vocabulary has more than " + std::to_string(kMaxTokens) + " tokens");
    const int64_t length = parse_count(line.substr(last_space + 1));
    if (length < 0) bad(last_space + 1, "invalid token length");

    const std::string_view literal = line.substr(first_space + 1, last_space - first_space - 1);
    LiteralError err;
    if (!parse_python_literal(literal, &bytes, &err)) bad(first_space + 1 + err.at, err.why);
    if (bytes.empty()) bad(first_space + 1, "empty token");
    if (static_cast<int64_t>(bytes.size()) != length)
      bad(last_space + 1, "token is " + std::to_string(bytes.size()) + " bytes, the line says " + std::to_string(length));
    const auto [it, inserted] = seen.emplace(bytes, static_cast<size_t>(id));
    if (!inserted) bad(first_space + 1, "token repeats id " + std::to_string(it->second));
    v.set_token(static_cast<size_t>(id), rwkv_escape_token(bytes), static_cast<int32_t>(TokenType::Normal));
  });
  if (v.tokens.size() < 2) fail(ErrorCode::BadFormat, 0, "RWKV vocabulary file has no tokens");
  v.eos = 0;
  v.add_bos = false;
  v.add_eos = false;
  return v;
}

}  // namespace wasmlm
