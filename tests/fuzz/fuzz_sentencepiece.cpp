// libFuzzer target: SentencePiece tokenizer.model files (a ModelProto
// protobuf) on arbitrary bytes; what reads becomes a tokenizer that encodes
// and decodes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "support.h"
#include "tokenizer/sentencepiece_model_reader.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wasmlm_fuzz::succeeds([&] {
    const wasmlm::VocabMetadata v =
        wasmlm::read_sentencepiece_model(std::string_view(reinterpret_cast<const char*>(data), size));
    wasmlm_fuzz::exercise_tokenizer(wasmlm::Tokenizer::from_metadata(v.to_metadata()));
  });
  return 0;
}
