// What llama.cpp's llama-vocab.cpp decides about special tokens when it
// loads a vocabulary, beyond the file's token types.
//
// Tokens it recognizes by their text: end of turn (<|im_end|>, <end_of_turn>, <|end|>, ...),
// end of message, fill-in-the-middle markers. Each becomes a control token
// whatever type the file gives it (so it is matched in text only when
// special tokens are parsed, and not shown when decoded), and the
// end-of-generation set is assembled from them, EOS, and the ids the file
// names (tokenizer.ggml.eot_token_id, ...).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "format/metadata.h"

namespace wasmlm {

enum class TokenType : int32_t;

struct SpecialTokenRolesInput {
  const Metadata* metadata = nullptr;
  std::function<int32_t(std::string_view)> find_token;  // -1 if absent
  std::vector<TokenType>* types = nullptr;              // by id; changed in place
  int32_t eos = -1;
  // Leave the types alone: only tokens already control tokens are taken
  // from the lists (transformers' view of a tokenizer.json).
  bool keep_types = false;
};

// Marks the recognized tokens as control tokens and returns the
// end-of-generation ids: EOS first, then the others in increasing order.
std::vector<int32_t> assign_special_token_roles(const SpecialTokenRolesInput& in);

// Whitespace that llama.cpp drops beside a special token matched in the text:
// before it (lstrip) or after it (rstrip). It decides by the file's
// general.name / architecture / tokenizer.ggml.pre: Phi-3 (a name holding
// "phi-3" or "phi3") strips after every special token but <unk>, <s> and
// <|endoftext|>; a few BERT-like vocabularies strip before their mask token.
struct SpecialTokenStrip {
  std::vector<int32_t> lstrip, rstrip;  // token ids
};
SpecialTokenStrip special_token_strip(const Metadata& metadata, const std::function<int32_t(std::string_view)>& find_token,
                                      const std::vector<int32_t>& special_tokens);

}  // namespace wasmlm
