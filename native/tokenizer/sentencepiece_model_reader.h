// SentencePiece tokenizer.model files (a ModelProto protobuf) as the
// tokenizer.ggml.* metadata llama.cpp's converter writes for them (model
// "llama" for BPE models, "t5" for unigram ones): pieces with their scores
// and types, the unk/bos/eos/pad ids of the trainer spec, add_dummy_prefix and
// remove_extra_whitespaces of the normalizer spec. The normalizer's
// precompiled charsmap (NFKC etc.) is not carried over.
#pragma once

#include <cstdint>
#include <string_view>

#include "tokenizer/vocab_metadata.h"

namespace wasmlm {

// Throws Error(Truncated/BadFormat) for a damaged protobuf, Error(Unsupported)
// for model types other than unigram and BPE.
VocabMetadata read_sentencepiece_model(std::string_view bytes);

}  // namespace wasmlm
