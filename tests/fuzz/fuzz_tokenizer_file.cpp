// libFuzzer target: tokenizer files (SentencePiece .model, tokenizer.json,
// tiktoken) on arbitrary bytes. The first byte picks the reader, so each is
// reached whatever the detection would say; what loads then encodes and
// decodes a fixed text. wasmlm::Error is the only acceptable failure.
//
// Build: CXX=clang++ cmake -S . -B build-fuzz -DWASMLM_FUZZ=ON -DWASMLM_TESTS=OFF
// Run:   build-fuzz/fuzz_tokenizer_file corpus/ -max_len=65536
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "tokenizer/hf_tokenizer_json_reader.h"
#include "tokenizer/sentencepiece_model_reader.h"
#include "tokenizer/tiktoken_reader.h"
#include "tokenizer/tokenizer_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    wasmlm::VocabMetadata v;
    switch (data[0] % 4) {
      case 0: v = wasmlm::read_sentencepiece_model(bytes); break;
      case 1: v = wasmlm::read_hf_tokenizer_json(bytes); break;
      case 2: v = wasmlm::read_tiktoken(bytes); break;
      default: {
        const wasmlm::Tokenizer t = wasmlm::tokenizer_from_file(data + 1, size - 1);
        (void)t.decode(t.encode("Hello  world! <s> \xE6\x97\xA5\xE6\x9C\xAC", {true, true, true}));
        return 0;
      }
    }
    const wasmlm::Tokenizer t = wasmlm::Tokenizer::from_metadata(v.to_metadata());
    (void)t.decode(t.encode("Hello  world! <s> \xE6\x97\xA5\xE6\x9C\xAC", {true, true, true}));
  } catch (const wasmlm::Error&) {
  }
  return 0;
}
