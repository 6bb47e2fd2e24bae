// SentencePiece's precompiled normalization map (normalizer_spec.
// precompiled_charsmap, e.g. nmt_nfkc): a XOR-compressed compact double-array
// trie over UTF-8 bytes whose leaves point to NUL-terminated replacement
// strings. Read as llama.cpp's UGM tokenizer reads it, with every index
// bounds-checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace wasmlm {

class PrecompiledCharsmap {
 public:
  // Throws Error(BadFormat) when the blob's declared trie size does not fit.
  explicit PrecompiledCharsmap(std::vector<uint8_t> blob);

  // The longest prefix of text[offset..] the map replaces: the replacement
  // and how many input bytes it consumes (0 when none matches).
  struct Match {
    std::string_view replacement;
    size_t consumed = 0;
  };
  Match longest_prefix(std::string_view text, size_t offset) const;

 private:
  uint32_t node(size_t index) const;

  std::vector<uint8_t> blob_;
  size_t trie_begin_ = 4, trie_nodes_ = 0;  // uint32 nodes after the 4-byte size
  size_t strings_begin_ = 0;
};

}  // namespace wasmlm
