// Hugging Face tokenizer.json files as tokenizer.ggml.* metadata:
// * byte-level BPE (LLaMA 3, Qwen, GPT-2), as llama.cpp's converter writes
//   it (model "gpt2"): the vocabulary, merges, added tokens (special ->
//   control, others user-defined), and tokenizer.ggml.pre chosen from the
//   pre-tokenizer's split regex;
// * SentencePiece-style BPE with byte fallback (Gemma), as model "llama"
//   without a space prefix, scored so that SentencePiece's merge by score
//   makes what tokenizer.json's merges make; added tokens keep their text
//   (transformers matches them in the text as written).
#pragma once

#include <string_view>

#include "tokenizer/vocab_metadata.h"

namespace wasmlm {

// Throws Error(BadFormat) for invalid JSON or a missing/mistyped field (with
// the byte offset when the JSON parser knows it), Error(Unsupported) for other
// models (WordPiece, Unigram), normalizers or pre-tokenizers.
VocabMetadata read_hf_tokenizer_json(std::string_view json);

}  // namespace wasmlm
