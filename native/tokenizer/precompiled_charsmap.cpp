#include "tokenizer/precompiled_charsmap.h"

#include <cstring>

#include "core/error.h"

namespace wasmlm {

namespace {

uint32_t load_u32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }

// A node packs: base (bits 10.., shifted by 8 when bit 9 is set), leaf flag
// (bit 8), label check (bits 0-7 and 31); a leaf's child holds the value.
uint32_t node_base(uint32_t n) { return (n >> 10) << ((n & (1u << 9)) >> 6); }
uint32_t node_check(uint32_t n) { return n & ((1u << 31) | 0xFF); }
bool node_is_leaf(uint32_t n) { return (n >> 8) & 1; }
uint32_t node_value(uint32_t n) { return n & ((1u << 31) - 1); }

}  // namespace

PrecompiledCharsmap::PrecompiledCharsmap(std::vector<uint8_t> blob) : blob_(std::move(blob)) {
  if (blob_.size() < 4) fail(ErrorCode::BadFormat, kNoOffset, "precompiled charsmap shorter than its header");
  const uint32_t trie_bytes = load_u32(blob_.data());
  if (trie_bytes % 4 != 0 || trie_bytes > blob_.size() - 4)
    fail(ErrorCode::BadFormat, kNoOffset, "precompiled charsmap: trie size exceeds the map");
  trie_nodes_ = trie_bytes / 4;
  strings_begin_ = 4 + trie_bytes;
}

uint32_t PrecompiledCharsmap::node(size_t index) const {
  if (index >= trie_nodes_) fail(ErrorCode::BadFormat, kNoOffset, "precompiled charsmap: trie index out of range");
  return load_u32(blob_.data() + trie_begin_ + index * 4);
}

PrecompiledCharsmap::Match PrecompiledCharsmap::longest_prefix(std::string_view text, size_t offset) const {
  Match match;
  if (trie_nodes_ == 0) return match;
  size_t value = 0;
  size_t index = node_base(node(0));
  for (size_t at = offset; at < text.size(); ++at) {
    const uint8_t c = static_cast<uint8_t>(text[at]);
    if (c == 0) break;
    index ^= c;
    if (index >= trie_nodes_) break;
    const uint32_t n = node(index);
    if (node_check(n) != c) break;
    index ^= node_base(n);
    if (node_is_leaf(n)) {
      match.consumed = at - offset + 1;
      value = node_value(node(index));
    }
  }
  if (match.consumed == 0) return match;
  const size_t strings = blob_.size() - strings_begin_;
  if (value >= strings) fail(ErrorCode::BadFormat, kNoOffset, "precompiled charsmap: replacement out of range");
  const char* s = reinterpret_cast<const char*>(blob_.data() + strings_begin_ + value);
  const void* nul = std::memchr(s, 0, strings - value);
  match.replacement = std::string_view(s, nul ? static_cast<const char*>(nul) - s : strings - value);
  return match;
}

}  // namespace wasmlm
