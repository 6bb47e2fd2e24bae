#include "tokenizer/tiktoken_merges.h"

#include <functional>
#include <queue>

namespace wasmlm {

namespace {

// Hashes modulo the Mersenne prime 2^61 - 1.
constexpr uint64_t kMod = (uint64_t(1) << 61) - 1;
constexpr uint64_t kBase = 0x1f3d5b79a2c4e6f1ull % kMod;

uint64_t mul_mod(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  const uint64_t r = static_cast<uint64_t>(p & kMod) + static_cast<uint64_t>(p >> 61);
  return r >= kMod ? r - kMod : r;
}

uint64_t add_mod(uint64_t a, uint64_t b) {
  const uint64_t r = a + b;
  return r >= kMod ? r - kMod : r;
}

// Appends a byte to a hash (bytes count 1..256, so leading zero bytes matter).
uint64_t extend(uint64_t hash, uint8_t byte) { return add_mod(mul_mod(hash, kBase), uint64_t(byte) + 1); }

}  // namespace

bool TiktokenRanks::add(std::string_view bytes) {
  uint64_t h = 0;
  for (char c : bytes) h = extend(h, static_cast<uint8_t>(c));
  if (!ranks_.emplace(Key{h, bytes}, static_cast<int64_t>(tokens_.size())).second) return false;
  tokens_.push_back(bytes);
  while (powers_.size() <= bytes.size()) powers_.push_back(powers_.empty() ? 1 : mul_mod(powers_.back(), kBase));
  return true;
}

int64_t TiktokenRanks::rank_of(size_t begin, size_t end) const {
  // hash(t[begin, end)) = prefix[end] - prefix[begin] * base^(end - begin)
  const uint64_t h = add_mod(prefix_[end], kMod - mul_mod(prefix_[begin], powers_[end - begin]));
  auto it = ranks_.find(Key{h, current_.substr(begin, end - begin)});
  return it == ranks_.end() ? -1 : it->second;
}

std::optional<std::pair<std::string_view, std::string_view>> TiktokenRanks::merge_of(size_t rank) {
  current_ = tokens_[rank];
  const size_t n = current_.size();
  if (n < 2) return std::nullopt;
  prefix_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix_[i + 1] = extend(prefix_[i], static_cast<uint8_t>(current_[i]));

  // tiktoken's BPE, merging only pairs ranked below `rank`. Part i covers
  // [i, end[i]) and links to its neighbours; a merged-away part has end 0.
  // The heap gives the lowest rank, then the leftmost, as tiktoken's scan does.
  std::vector<size_t> end(n), next(n), prev(n);
  for (size_t i = 0; i < n; ++i) end[i] = i + 1, next[i] = i + 1, prev[i] = i - 1;
  struct Candidate {
    int64_t rank;
    size_t left, right_end;  // the pair [left, right_end) when it was found
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
  const int64_t max_rank = static_cast<int64_t>(rank);
  auto consider = [&](size_t left) {
    if (next[left] >= n) return;
    const int64_t r = rank_of(left, end[next[left]]);
    if (r >= 0 && r < max_rank) heap.push({r, left, end[next[left]]});
  };
  for (size_t i = 0; i + 1 < n; ++i) consider(i);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    const size_t right = end[c.left];  // the right part starts where the left one ends
    if (right == 0 || right >= n || end[right] != c.right_end) continue;  // stale: a part changed since
    end[c.left] = c.right_end;
    end[right] = 0;
    next[c.left] = next[right];
    if (next[right] < n) prev[next[right]] = c.left;
    if (c.left > 0) consider(prev[c.left]);
    consider(c.left);
  }
  if (end[0] == n || next[0] >= n || end[next[0]] != n) return std::nullopt;  // not exactly two parts
  return std::make_pair(current_.substr(0, end[0]), current_.substr(end[0]));
}

}  // namespace wasmlm
