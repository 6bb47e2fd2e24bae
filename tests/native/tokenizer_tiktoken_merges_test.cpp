// The merges read_tiktoken derives are tiktoken's own BPE results (lowest
// rank first, leftmost on ties), and deriving them takes time linear in the
// file, however long its tokens are.
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tokenizer/tiktoken_reader.h"
#include "tokenizer/unicode.h"

namespace wasmlm_test {
namespace {

std::string base64(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

// A rank file: the 256 single bytes, then `tokens` in order.
std::string rank_file(const std::vector<std::string>& tokens) {
  std::string text;
  int rank = 0;
  for (int b = 0; b < 256; ++b) text += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(rank++) + "\n";
  for (const std::string& t : tokens) text += base64(t) + " " + std::to_string(rank++) + "\n";
  return text;
}

std::string gpt2(const std::string& bytes) {
  std::string s;
  for (char c : bytes) wasmlm::append_utf8(wasmlm::gpt2_byte_to_cpt(static_cast<uint8_t>(c)), &s);
  return s;
}

wasmlm::VocabMetadata read(const std::string& text) {
  wasmlm::TiktokenOptions options;
  options.llama3_specials = false;
  return wasmlm::read_tiktoken(text, options);
}

TEST(TiktokenMerges, TiesGoToTheLeftmostPairAndOnlyLowerRanksMerge) {
  // "aaa": (a,a) at 0 and at 1 tie: the leftmost merges, and "aaa" itself
  // (rank 257) may not: aa + a. "aaaa": aa, a, a -> the (a, a) on the right
  // (rank 256) beats (aa, a) (257): aa + aa. "xyz" has no ranked pair: no merge.
  const wasmlm::VocabMetadata v = read(rank_file({"aa", "aaa", "aaaa", "xyz", "yz"}));
  EXPECT_EQ(v.merges, (std::vector<std::string>{"a a", "aa a", "aa aa", "y z"}));
  EXPECT_EQ(v.tokens.size(), 261u);
}

TEST(TiktokenMerges, EachPrefixOfAChainIsTheLastPrefixPlusOneByte) {
  std::string s;
  for (int i = 0; i < 200; ++i) s += static_cast<char>(40 + i);  // 200 distinct bytes
  std::vector<std::string> chain;
  std::vector<std::string> expected;
  for (size_t k = 2; k <= s.size(); ++k) {
    chain.push_back(s.substr(0, k));
    expected.push_back(gpt2(s.substr(0, k - 1)) + " " + gpt2(s.substr(k - 1, 1)));
  }
  EXPECT_EQ(read(rank_file(chain)).merges, expected);
}

TEST(TiktokenMerges, AFileOfLongTokensIsReadInLinearTime) {
  // Every prefix (2 to 1024 bytes) of three 1024-byte strings: 2.1 MB of
  // ranks. Rescanning every pair after each merge took 7 to 20 s here.
  std::vector<std::string> tokens;
  for (int c = 0; c < 3; ++c) {
    std::string s;
    uint32_t x = 12345 + c;
    for (int i = 0; i < 1024; ++i) {
      x = x * 1103515245 + 12345;
      s += static_cast<char>(x >> 24);
    }
    for (size_t k = 2; k <= s.size(); ++k) tokens.push_back(s.substr(0, k));
  }
  const std::string text = rank_file(tokens);
  ASSERT_GT(text.size(), 2000000u);
  const auto t0 = std::chrono::steady_clock::now();
  const wasmlm::VocabMetadata v = read(text);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 3.0);
  // Each 2-byte prefix, and each longer prefix whose BPE ends in two parts,
  // has a merge; they join back into their token.
  ASSERT_GE(v.merges.size(), 2u);
  EXPECT_LE(v.merges.size(), tokens.size());
  EXPECT_EQ(v.merges[0], gpt2(tokens[0].substr(0, 1)) + " " + gpt2(tokens[0].substr(1)));
}

}  // namespace
}  // namespace wasmlm_test
