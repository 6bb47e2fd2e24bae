// The tokenizer.ggml.* metadata that llama.cpp's converter writes into a GGUF
// file, assembled by the readers of other tokenizer files so that
// Tokenizer::from_metadata does the tokenizing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/metadata.h"

namespace wasmlm {

struct VocabMetadata {
  std::string model;                // "llama" (SentencePiece), "gpt2" (byte-level BPE), "t5", "rwkv"
  std::string pre;                  // gpt2: the pre-tokenizer name
  std::vector<std::string> tokens;
  std::vector<float> scores;        // empty: not written
  std::vector<int32_t> types;       // TokenType values, one per token
  std::vector<std::string> merges;  // gpt2: "left right", best first
  int32_t bos = -1, eos = -1, unk = -1, pad = -1;  // -1: not written
  std::optional<bool> add_bos, add_eos, add_space_prefix, remove_extra_whitespaces;
  std::vector<uint8_t> precompiled_charsmap;  // t5: SentencePiece's normalization map

  // Sets token `id`, growing the vocabulary with "[PAD<i>]" unused tokens
  // for ids never set (as the converter fills holes).
  void set_token(size_t id, std::string text, int32_t type);

  Metadata to_metadata() const;
};

}  // namespace wasmlm
