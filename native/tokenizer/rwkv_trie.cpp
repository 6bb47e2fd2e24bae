#include "tokenizer/rwkv_trie.h"

#include <algorithm>

namespace wasmlm {

RwkvTrie::RwkvTrie(std::vector<std::pair<std::string, int32_t>> tokens) {
  tokens.erase(std::remove_if(tokens.begin(), tokens.end(), [](const auto& t) { return t.first.empty(); }),
               tokens.end());
  // Sorted, the tokens under any prefix form one contiguous range, which is
  // built breadth first so that each node's children are contiguous.
  std::stable_sort(tokens.begin(), tokens.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  struct Pending {
    uint32_t node;
    size_t begin, end, depth;  // tokens[begin, end) all start with the node's prefix of `depth` bytes
  };
  nodes_.emplace_back();
  std::vector<Pending> queue{{0, 0, tokens.size(), 0}};
  for (size_t q = 0; q < queue.size(); ++q) {
    const Pending p = queue[q];
    size_t i = p.begin;
    // Tokens that end here sort first; the last of equal ones wins.
    while (i < p.end && tokens[i].first.size() == p.depth) nodes_[p.node].id = tokens[i++].second;
    nodes_[p.node].first_child = static_cast<uint32_t>(nodes_.size());
    while (i < p.end) {
      const uint8_t byte = static_cast<uint8_t>(tokens[i].first[p.depth]);
      size_t j = i;
      while (j < p.end && static_cast<uint8_t>(tokens[j].first[p.depth]) == byte) ++j;
      Node n;
      n.byte = byte;
      queue.push_back({static_cast<uint32_t>(nodes_.size()), i, j, p.depth + 1});
      nodes_.push_back(n);
      ++nodes_[p.node].child_count;
      i = j;
    }
  }
}

const RwkvTrie::Node* RwkvTrie::child(const Node& node, uint8_t byte) const {
  const Node* begin = nodes_.data() + node.first_child;
  const Node* end = begin + node.child_count;
  const Node* it = std::lower_bound(begin, end, byte, [](const Node& n, uint8_t b) { return n.byte < b; });
  return it != end && it->byte == byte ? it : nullptr;
}

RwkvTrie::Match RwkvTrie::longest_prefix(std::string_view text, size_t pos) const {
  Match best;
  const Node* node = nodes_.data();
  for (size_t i = pos; i < text.size(); ++i) {
    node = child(*node, static_cast<uint8_t>(text[i]));
    if (!node) break;
    if (node->id >= 0) best = {node->id, i + 1 - pos};
  }
  return best;
}

void RwkvTrie::encode(std::string_view text, int32_t unknown, std::vector<int32_t>* out) const {
  for (size_t pos = 0; pos < text.size();) {
    const Match m = longest_prefix(text, pos);
    if (m.id < 0) {
      if (unknown >= 0) out->push_back(unknown);
      ++pos;
      continue;
    }
    out->push_back(m.id);
    pos += m.length;
  }
}

}  // namespace wasmlm
