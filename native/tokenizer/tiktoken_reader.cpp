#include "tokenizer/tiktoken_reader.h"

#include <limits>
#include <unordered_map>

#include "core/error.h"
#include "tokenizer/text_lines.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace wasmlm {

namespace {

// Special-token ids may not run further than this past the ranks.
constexpr int64_t kMaxSpecialGap = 1 << 20;
// Real tokens are at most a few hundred bytes; deriving a merge costs
// O(length^2) lookups, so absurd lengths are refused.
constexpr size_t kMaxTokenBytes = 1024;

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Standard base64 with padding; false when malformed.
bool decode_base64(std::string_view s, std::string* out) {
  out->clear();
  if (s.empty() || s.size() % 4 != 0) return false;
  size_t pad = 0;
  while (pad < 2 && s[s.size() - 1 - pad] == '=') ++pad;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < s.size() - pad; ++i) {
    const int v = base64_value(s[i]);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return !out->empty();
}

std::string gpt2_text(const std::string& bytes) {
  std::string s;
  for (char c : bytes) append_utf8(gpt2_byte_to_cpt(static_cast<uint8_t>(c)), &s);
  return s;
}

// tiktoken's BPE over the bytes of `token`, merging only pairs whose rank is
// below `max_rank`: what is left is the pair whose merge makes the token.
std::vector<std::string> bpe_parts(const std::unordered_map<std::string, int64_t>& ranks, const std::string& token,
                                   int64_t max_rank) {
  std::vector<std::string> parts;
  for (char c : token) parts.emplace_back(1, c);
  for (;;) {
    size_t best = 0;
    int64_t best_rank = -1;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      auto it = ranks.find(parts[i] + parts[i + 1]);
      if (it != ranks.end() && (best_rank < 0 || it->second < best_rank)) {
        best = i;
        best_rank = it->second;
      }
    }
    if (best_rank < 0 || best_rank >= max_rank) return parts;
    parts[best] += parts[best + 1];
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

}  // namespace

std::vector<SpecialToken> llama3_special_tokens(int32_t first_id) {
  static const char* const kNamed[] = {
      "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
      "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
      "<|eot_id|>", "<|python_tag|>"};
  constexpr int kCount = 256;
  std::vector<SpecialToken> out;
  out.reserve(kCount);
  for (const char* name : kNamed) out.push_back({name, first_id + static_cast<int32_t>(out.size())});
  for (int i = 2; out.size() < kCount; ++i)
    out.push_back({"<|reserved_special_token_" + std::to_string(i) + "|>", first_id + static_cast<int32_t>(out.size())});
  return out;
}

VocabMetadata read_tiktoken(std::string_view text, const TiktokenOptions& options) {
  // Pass 1: the ranks, which must be 0, 1, 2... in order (every rank file
  // tiktoken ships is; the ranks are then the token ids).
  std::vector<std::string> tokens;  // raw bytes, by rank
  std::unordered_map<std::string, int64_t> ranks;
  std::string bytes;
  for_each_line(text, [&](std::string_view line, size_t start, size_t line_no) {
    const auto bad = [&](const std::string& why) {
      fail(ErrorCode::BadFormat, start, "tiktoken line " + std::to_string(line_no) + ": " + why);
    };
    const size_t sp = line.find(' ');
    if (sp == std::string_view::npos) bad("expected 'base64 rank'");
    if (sp > (kMaxTokenBytes / 3 + 1) * 4) bad("token longer than " + std::to_string(kMaxTokenBytes) + " bytes");
    if (!decode_base64(line.substr(0, sp), &bytes)) bad("invalid base64 token");
    const std::string_view rank_text = line.substr(sp + 1);
    if (rank_text.empty() || rank_text.size() > 9) bad("invalid rank");
    int64_t rank = 0;
    for (char c : rank_text) {
      if (c < '0' || c > '9') bad("invalid rank");
      rank = rank * 10 + (c - '0');
    }
    if (rank != static_cast<int64_t>(tokens.size()))
      bad("rank " + std::to_string(rank) + " where " + std::to_string(tokens.size()) + " was expected");
    if (!ranks.emplace(bytes, rank).second) bad("token repeats an earlier one");
    tokens.push_back(bytes);
  });
  if (tokens.empty()) fail(ErrorCode::BadFormat, 0, "tiktoken file has no ranks");

  VocabMetadata v;
  v.model = "gpt2";
  v.pre = "llama-bpe";
  v.tokens.reserve(tokens.size() + 256);
  v.types.reserve(tokens.size() + 256);
  for (size_t i = 0; i < tokens.size(); ++i) v.set_token(i, gpt2_text(tokens[i]), static_cast<int32_t>(TokenType::Normal));

  // Pass 2: the merge making each multi-byte token, in rank order.
  for (size_t rank = 0; rank < tokens.size(); ++rank) {
    if (tokens[rank].size() < 2) continue;
    const std::vector<std::string> parts = bpe_parts(ranks, tokens[rank], static_cast<int64_t>(rank));
    if (parts.size() != 2) continue;  // unreachable by merging: tiktoken never produces it either
    v.merges.push_back(gpt2_text(parts[0]) + " " + gpt2_text(parts[1]));
  }

  const std::vector<SpecialToken> specials =
      options.special_tokens.empty() && options.llama3_specials
          ? llama3_special_tokens(static_cast<int32_t>(tokens.size()))
          : options.special_tokens;
  for (const SpecialToken& s : specials) {
    if (s.id < static_cast<int64_t>(tokens.size()) || s.id > static_cast<int64_t>(tokens.size()) + kMaxSpecialGap)
      fail(ErrorCode::TooLarge, kNoOffset,
           "special token " + s.text + " id " + std::to_string(s.id) + " is not just after the ranks");
    v.set_token(static_cast<size_t>(s.id), s.text, static_cast<int32_t>(TokenType::Control));
    if (s.text == "<|begin_of_text|>") v.bos = s.id;
    if (s.text == "<|end_of_text|>") v.eos = s.id;
  }
  v.add_bos = v.bos >= 0;  // as LLaMA 3's GGUF files say
  return v;
}

}  // namespace wasmlm
