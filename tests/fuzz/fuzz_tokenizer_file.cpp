// libFuzzer target: a tokenizer from a file of any format, as
// tokenizerFromFile gets it (tokenizer_from_file: the format recognized from
// the bytes, then the vocabulary of a GGUF file, SentencePiece, tokenizer.json,
// tiktoken or an RWKV World vocabulary), on arbitrary bytes; what loads
// encodes and decodes.
#include <cstddef>
#include <cstdint>

#include "support.h"
#include "tokenizer/tokenizer_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wasmlm_fuzz::succeeds([&] { wasmlm_fuzz::exercise_tokenizer(wasmlm::tokenizer_from_file(data, size)); });
  return 0;
}
