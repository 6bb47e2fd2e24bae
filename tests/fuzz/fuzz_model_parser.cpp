// libFuzzer target: the model-file parser on arbitrary bytes.
//
// Runs the random-access path (read_model_directory) and the streaming path
// (IncrementalParser fed in chunks whose sizes come from the input, with the
// file size known or not, with a sink), and checks that the two agree.
// wasmlm::Error is the only acceptable failure; anything else (another
// exception, a crash, a sanitizer report) is a finding.
//
// Run: scripts/fuzz.sh fuzz_model_parser [SECONDS]
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "core/error.h"
#include "format/incremental_parser.h"

namespace {

class CheckingSink final : public wasmlm::TensorSink {
 public:
  explicit CheckingSink(const wasmlm::IncrementalParser& parser) : parser_(parser) {}
  void tensor_bytes(size_t index, const wasmlm::TensorInfo&, uint64_t offset_in_tensor, const uint8_t* data,
                    size_t n) override {
    const auto& tensors = parser_.file().tensors;
    if (index >= tensors.size() || offset_in_tensor + n > tensors[index].nbytes) std::abort();
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < n; ++i) sink ^= data[i];  // touch every byte (ASan checks the range)
    (void)sink;
  }

 private:
  const wasmlm::IncrementalParser& parser_;
};

struct Result {
  bool ok = false;
  size_t n_tensors = 0;
};

Result stream(const uint8_t* data, size_t size, bool size_known, uint8_t seed) {
  Result r;
  wasmlm::IncrementalParser parser(size_known ? size : 0);
  CheckingSink sink(parser);
  if (seed & 1) parser.set_sink(&sink);
  // Chunk sizes from the input's own bytes: 1..256, or up to 64 KB.
  uint32_t state = seed * 2654435761u + static_cast<uint32_t>(size);
  size_t pos = 0;
  try {
    while (pos < size) {
      state = state * 1103515245u + 12345u;
      size_t n = (state >> 16) & 0xFF;
      n = n + 1 + (seed & 2 ? data[pos] : 0) * ((seed & 4) ? 256 : 1);
      n = std::min(n, size - pos);
      parser.push(data + pos, n);
      pos += n;
    }
    if (!size_known) parser.finish();
    if (!parser.done()) std::abort();
    r.ok = true;
    r.n_tensors = parser.file().tensors.size();
  } catch (const wasmlm::Error&) {
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result random_access;
  try {
    wasmlm::ModelFile m = wasmlm::read_model_directory(data, size);
    random_access.ok = true;
    random_access.n_tensors = m.tensors.size();
    for (const auto& t : m.tensors)
      if (t.offset > size || t.nbytes > size - t.offset) std::abort();  // a directory must stay inside the file
  } catch (const wasmlm::Error&) {
  }
  if (size == 0) return 0;
  uint8_t seed = data[size - 1];
  // Same file size known: the same outcome as random access.
  Result known = stream(data, size, true, seed);
  if (known.ok != random_access.ok || known.n_tensors != random_access.n_tensors) std::abort();
  // Unknown size (a stream without a length): must not crash.
  stream(data, size, false, seed);
  return 0;
}
