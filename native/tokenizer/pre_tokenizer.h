// The pre-tokenizer regexes of byte-level BPE vocabularies, chosen by the
// GGUF key tokenizer.ggml.pre, as llama.cpp's llm_tokenizer_bpe defines them.
#pragma once

#include <string>
#include <vector>

namespace wasmlm {

struct PreTokenizerSpec {
  std::vector<std::string> regexes;  // applied in turn (see regex_split.h)
  bool ignore_merges = false;        // a word that is itself a token is kept whole
  bool known = true;                 // false: `pre` is not one we know
};

PreTokenizerSpec pre_tokenizer_spec(const std::string& pre);

}  // namespace wasmlm
