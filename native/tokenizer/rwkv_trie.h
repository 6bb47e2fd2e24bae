// A byte trie over token strings and RWKV's tokenization with it: at each
// position the longest token that is a prefix of the remaining bytes
// (ChatRWKV's TRIE_TOKENIZER, llama.cpp's llm_tokenizer_rwkv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wasmlm {

class RwkvTrie {
 public:
  struct Match {
    int32_t id = -1;  // -1: no token starts here
    size_t length = 0;
  };

  // (bytes, id) pairs; of equal byte strings the one given last wins.
  // Empty strings are ignored.
  explicit RwkvTrie(std::vector<std::pair<std::string, int32_t>> tokens);

  Match longest_prefix(std::string_view text, size_t pos) const;

  // Greedy longest match left to right. A byte no token starts with becomes
  // `unknown`, or is dropped when that is negative.
  void encode(std::string_view text, int32_t unknown, std::vector<int32_t>* out) const;

  size_t node_count() const { return nodes_.size(); }

 private:
  // Children of a node are contiguous in nodes_, sorted by byte.
  struct Node {
    uint32_t first_child = 0;
    uint16_t child_count = 0;
    uint8_t byte = 0;
    int32_t id = -1;
  };
  const Node* child(const Node& node, uint8_t byte) const;

  std::vector<Node> nodes_;  // nodes_[0] is the root
};

}  // namespace wasmlm
