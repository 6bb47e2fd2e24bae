// RWKV World vocabulary files (rwkv_vocab_v20230424.txt): one token per line,
// `id repr len`, where repr is a Python str ('...' or "...", UTF-8 encoded)
// or bytes (b'...') literal and len its byte count. Ids run 1, 2, 3...; id 0
// is <|endoftext|>, which the file leaves out.
//
// The result is the tokenizer.ggml.* metadata of model "rwkv", each token
// written as llama.cpp's converter writes it (see rwkv_token_text.h).
#pragma once

#include <string_view>

#include "tokenizer/vocab_metadata.h"

namespace wasmlm {

// Cheap check on the first bytes: "digits SPACE [b]quote".
bool looks_like_rwkv_vocab(std::string_view head);

// Throws Error(BadFormat) naming the line and the byte offset of a malformed
// line (missing fields, a bad literal or escape, a length that does not
// match, an id out of order, a token that repeats an earlier one), and
// Error(TooLarge) for a file, token or token count beyond sane limits.
VocabMetadata read_rwkv_vocab(std::string_view text);

}  // namespace wasmlm
