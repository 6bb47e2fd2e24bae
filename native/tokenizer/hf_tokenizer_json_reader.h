// Hugging Face tokenizer.json files with a byte-level BPE model, as the
// tokenizer.ggml.* metadata llama.cpp's converter writes for them (model
// "gpt2"): the vocabulary, merges, added tokens (special -> control, others
// user-defined), and tokenizer.ggml.pre chosen from the pre-tokenizer's split
// regex.
#pragma once

#include <string_view>

#include "tokenizer/vocab_metadata.h"

namespace wasmlm {

// Throws Error(BadFormat) for invalid JSON or a missing/mistyped field (with
// the byte offset when the JSON parser knows it), Error(Unsupported) for other
// models (WordPiece, Unigram, SentencePiece-style BPE), normalizers or
// pre-tokenizers llama.cpp has no equivalent for.
VocabMetadata read_hf_tokenizer_json(std::string_view json);

}  // namespace wasmlm
