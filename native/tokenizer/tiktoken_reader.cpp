#include "tokenizer/tiktoken_reader.h"

#include <limits>
#include <string_view>

#include "core/error.h"
#include "tokenizer/text_lines.h"
#include "tokenizer/tiktoken_merges.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace wasmlm {

namespace {

// Special-token ids may not run further than this past the ranks.
constexpr int64_t kMaxSpecialGap = 1 << 20;
// Real tokens are at most a few hundred bytes; absurd lengths are refused
// (a lookup that finds a token compares up to its length).
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

std::string gpt2_text(std::string_view bytes) {
  std::string s;
  for (char c : bytes) append_utf8(gpt2_byte_to_cpt(static_cast<uint8_t>(c)), &s);
  return s;
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
  // Raw token bytes, by rank, in one buffer that `ranks` views (never
  // reallocated: decoded bytes are fewer than the text's).
  std::string arena;
  arena.reserve(text.size());
  TiktokenRanks ranks;
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
    if (rank != static_cast<int64_t>(ranks.size()))
      bad("rank " + std::to_string(rank) + " where " + std::to_string(ranks.size()) + " was expected");
    const std::string_view token(arena.data() + arena.size(), bytes.size());
    arena += bytes;
    if (!ranks.add(token)) bad("token repeats an earlier one");
  });
  if (ranks.size() == 0) fail(ErrorCode::BadFormat, 0, "tiktoken file has no ranks");

  VocabMetadata v;
  v.model = "gpt2";
  v.pre = "llama-bpe";
  v.tokens.reserve(ranks.size() + 256);
  v.types.reserve(ranks.size() + 256);
  for (size_t i = 0; i < ranks.size(); ++i) v.set_token(i, gpt2_text(ranks.token(i)), static_cast<int32_t>(TokenType::Normal));

  // Pass 2: the merge making each multi-byte token, in rank order.
  for (size_t rank = 0; rank < ranks.size(); ++rank)
    if (const auto merge = ranks.merge_of(rank)) v.merges.push_back(gpt2_text(merge->first) + " " + gpt2_text(merge->second));

  const std::vector<SpecialToken> specials =
      options.special_tokens.empty() && options.llama3_specials
          ? llama3_special_tokens(static_cast<int32_t>(ranks.size()))
          : options.special_tokens;
  for (const SpecialToken& s : specials) {
    if (s.id < static_cast<int64_t>(ranks.size()) || s.id > static_cast<int64_t>(ranks.size()) + kMaxSpecialGap)
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
