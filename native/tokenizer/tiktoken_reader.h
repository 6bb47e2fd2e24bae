// tiktoken rank files (`base64(token bytes) SPACE rank` per line, as
// LLaMA 3's tokenizer.model) as the tokenizer.ggml.* metadata of a byte-level
// BPE vocabulary: each token's bytes written as GPT-2 printable text, and the
// merges derived from the ranks as HF's tiktoken converter does. The split
// regex is LLaMA 3's (pre "llama-bpe").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/vocab_metadata.h"

namespace wasmlm {

struct SpecialToken {
  std::string text;
  int32_t id;
};

// LLaMA 3.1's 256 special tokens (<|begin_of_text|>, <|end_of_text|>,
// reserved, <|start_header_id|>..., then <|reserved_special_token_N|>), from
// `first_id` on. Meta's tokenizer puts them right after the ranks; torchtune
// always at 128000.
std::vector<SpecialToken> llama3_special_tokens(int32_t first_id);

struct TiktokenOptions {
  // Control tokens added to the ranks; ids between the last rank and a
  // special token become unused "[PAD<id>]" tokens. BOS and EOS are
  // <|begin_of_text|> and <|end_of_text|> when present.
  std::vector<SpecialToken> special_tokens;
  // With no special_tokens: llama3_special_tokens(number of ranks).
  bool llama3_specials = true;
};

// Throws Error(BadFormat) naming the line and byte offset of a malformed
// line (bad base64, missing or non-numeric rank, a rank out of order or
// repeated), Error(TooLarge) for absurd ranks or special-token ids.
VocabMetadata read_tiktoken(std::string_view text, const TiktokenOptions& options = {});

}  // namespace wasmlm
