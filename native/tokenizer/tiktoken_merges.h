// The BPE merges a tiktoken rank list implies, as HF's tiktoken converter
// derives them: tiktoken's own BPE over a token's bytes, with only lower
// ranks allowed, leaves the two parts whose merge makes it (a token left in
// more parts is unreachable by merging and has none).
//
// Byte ranges are looked up by polynomial hashes of a token's prefixes (O(1)
// each, the bytes compared only when a hash matches) and candidate merges
// wait in a heap, so the work grows with the tokens' total length (times a
// log), not with the square or cube of each token's length.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wasmlm {

class TiktokenRanks {
 public:
  // Ranks `bytes` next (0, 1, 2...); false if it is ranked already. The
  // bytes must outlive this table.
  bool add(std::string_view bytes);
  size_t size() const { return tokens_.size(); }
  std::string_view token(size_t rank) const { return tokens_[rank]; }

  // The merge that makes the token of this rank, or nullopt (single bytes,
  // unreachable tokens).
  std::optional<std::pair<std::string_view, std::string_view>> merge_of(size_t rank);

 private:
  struct Key {
    uint64_t hash;
    std::string_view bytes;
    bool operator==(const Key& o) const { return hash == o.hash && bytes == o.bytes; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return static_cast<size_t>(k.hash); }
  };

  int64_t rank_of(size_t begin, size_t end) const;  // of the current token's bytes [begin, end); -1 if none

  std::vector<std::string_view> tokens_;
  std::unordered_map<Key, int64_t, KeyHash> ranks_;
  std::vector<uint64_t> powers_;  // base^i
  std::vector<uint64_t> prefix_;  // of the token merge_of() works on: hash of its first i bytes
  std::string_view current_;
};

}  // namespace wasmlm
