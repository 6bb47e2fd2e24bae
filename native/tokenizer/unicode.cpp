#include "tokenizer/unicode.h"

#include <algorithm>

#include "tokenizer/unicode_tables.h"

namespace wasmlm {

CptFlags cpt_flags(uint32_t cpt) {
  CptFlags f;
  if (cpt > 0x10FFFF) return f;
  const CptRange* end = kCptRanges + kCptRangeCount;
  const CptRange* it = std::upper_bound(kCptRanges, end, cpt,
                                        [](uint32_t c, const CptRange& r) { return c < r.first; });
  const uint8_t bits = (it - 1)->flags;
  f.category = static_cast<CptCategory>(bits & 7);
  f.whitespace = (bits & 0x10) != 0;
  return f;
}

size_t utf8_len_from_lead(uint8_t lead) {
  static const uint8_t lookup[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return lookup[lead >> 4];
}

uint32_t utf8_next(std::string_view s, size_t* pos) {
  const size_t i = *pos;
  const uint8_t b0 = static_cast<uint8_t>(s[i]);
  auto cont = [&](size_t k) { return i + k < s.size() && (static_cast<uint8_t>(s[i + k]) & 0xC0) == 0x80; };
  auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(s[i + k]) & 0x3F); };
  if (b0 < 0x80) {
    *pos = i + 1;
    return b0;
  }
  if ((b0 & 0xE0) == 0xC0 && cont(1)) {
    *pos = i + 2;
    return ((b0 & 0x1Fu) << 6) | byte(1);
  }
  if ((b0 & 0xF0) == 0xE0 && cont(1) && cont(2)) {
    *pos = i + 3;
    return ((b0 & 0x0Fu) << 12) | (byte(1) << 6) | byte(2);
  }
  if ((b0 & 0xF8) == 0xF0 && cont(1) && cont(2) && cont(3)) {
    *pos = i + 4;
    return ((b0 & 0x07u) << 18) | (byte(1) << 12) | (byte(2) << 6) | byte(3);
  }
  *pos = i + 1;
  return kReplacementChar;
}

std::vector<uint32_t> utf8_to_cpts(std::string_view text) {
  std::vector<uint32_t> out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) out.push_back(utf8_next(text, &pos));
  return out;
}

void append_utf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string cpts_to_utf8(const std::vector<uint32_t>& cpts, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) append_utf8(cpts[i], &out);
  return out;
}

// GPT-2's bytes_to_unicode(): bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF keep
// their value; the other 68 bytes get U+0100, U+0101, ... in byte order.
namespace {
struct Gpt2ByteMap {
  uint32_t to_cpt[256];
  Gpt2ByteMap() {
    uint32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool keep = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      to_cpt[b] = keep ? static_cast<uint32_t>(b) : next++;
    }
  }
};
const Gpt2ByteMap& gpt2_map() {
  static const Gpt2ByteMap map;
  return map;
}
}  // namespace

uint32_t gpt2_byte_to_cpt(uint8_t byte) { return gpt2_map().to_cpt[byte]; }

int gpt2_cpt_to_byte(uint32_t cpt) {
  if (cpt < 0x100) {
    const bool keep = (cpt >= 0x21 && cpt <= 0x7E) || (cpt >= 0xA1 && cpt <= 0xAC) || (cpt >= 0xAE);
    return keep ? static_cast<int>(cpt) : -1;
  }
  if (cpt < 0x100 + 68) {
    const auto& m = gpt2_map();
    for (int b = 0; b < 256; ++b)
      if (m.to_cpt[b] == cpt) return b;
  }
  return -1;
}

size_t utf8_valid_prefix(std::string_view s, size_t* invalid_at) {
  size_t i = 0;
  *invalid_at = s.size();
  while (i < s.size()) {
    const uint8_t b0 = static_cast<uint8_t>(s[i]);
    size_t n;
    uint32_t min;
    if (b0 < 0x80) { ++i; continue; }
    if ((b0 & 0xE0) == 0xC0) { n = 2; min = 0x80; }
    else if ((b0 & 0xF0) == 0xE0) { n = 3; min = 0x800; }
    else if ((b0 & 0xF8) == 0xF0) { n = 4; min = 0x10000; }
    else { *invalid_at = i; return i; }
    uint32_t c = b0 & (0x7F >> n);
    size_t k = 1;
    for (; k < n && i + k < s.size(); ++k) {
      const uint8_t b = static_cast<uint8_t>(s[i + k]);
      if ((b & 0xC0) != 0x80) { *invalid_at = i; return i; }
      c = (c << 6) | (b & 0x3F);
    }
    if (k < n) return i;  // incomplete at the end: hold it
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) { *invalid_at = i; return i; }
    i += n;
  }
  return i;
}

}  // namespace wasmlm
