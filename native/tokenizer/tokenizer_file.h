// A Tokenizer from the bytes of a tokenizer file of any format we read,
// recognized by its content: GGUF (the vocabulary in its metadata), a
// SentencePiece tokenizer.model, a Hugging Face tokenizer.json, a tiktoken
// rank file, or an RWKV World vocabulary (rwkv_vocab_*.txt).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tokenizer/tiktoken_reader.h"
#include "tokenizer/tokenizer.h"

namespace wasmlm {

enum class TokenizerFileFormat { Unknown, Gguf, SentencePiece, HfJson, Tiktoken, RwkvVocab };

const char* tokenizer_file_format_name(TokenizerFileFormat format);

// From the first bytes (a few hundred suffice).
TokenizerFileFormat detect_tokenizer_file(const uint8_t* data, size_t size);

struct TokenizerFileOptions {
  TiktokenOptions tiktoken;
};

// Throws Error(BadFormat) for bytes of no known format, and the readers'
// typed errors for damaged files.
Tokenizer tokenizer_from_file(const uint8_t* data, size_t size, const TokenizerFileOptions& options = {});

}  // namespace wasmlm
