// libFuzzer target: Hugging Face tokenizer.json files on arbitrary bytes;
// what reads becomes a tokenizer (as transformers behaves) that encodes and
// decodes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "support.h"
#include "tokenizer/hf_tokenizer_json_reader.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wasmlm_fuzz::succeeds([&] {
    const wasmlm::VocabMetadata v =
        wasmlm::read_hf_tokenizer_json(std::string_view(reinterpret_cast<const char*>(data), size));
    wasmlm_fuzz::exercise_tokenizer(
        wasmlm::Tokenizer::from_metadata(v.to_metadata(), wasmlm::TokenizerFlavor::Transformers));
  });
  return 0;
}
