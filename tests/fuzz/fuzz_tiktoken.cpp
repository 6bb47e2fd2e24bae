// libFuzzer target: tiktoken rank files on arbitrary bytes, with the special
// tokens the wasm bindings can ask for (the first byte picks: LLaMA 3's after
// the ranks, none, or LLaMA 3's from an id in the next 4 bytes, within the
// range the bindings accept); what reads becomes a tokenizer that encodes
// and decodes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "support.h"
#include "tokenizer/tiktoken_reader.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  wasmlm::TiktokenOptions options;
  if (data[0] % 3 == 1) options.llama3_specials = false;
  if (data[0] % 3 == 2) {
    uint32_t first;
    std::memcpy(&first, data + 1, 4);
    options.special_tokens = wasmlm::llama3_special_tokens(static_cast<int32_t>(first % (INT32_MAX - 256u)));
  }
  wasmlm_fuzz::succeeds([&] {
    const wasmlm::VocabMetadata v =
        wasmlm::read_tiktoken(std::string_view(reinterpret_cast<const char*>(data + 5), size - 5), options);
    wasmlm_fuzz::exercise_tokenizer(wasmlm::Tokenizer::from_metadata(v.to_metadata()));
  });
  return 0;
}
