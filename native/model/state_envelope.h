// A saved sequence state as the bindings hand it out: the model's own state
// bytes wrapped with what makes loading it safe. It names the model it came
// from (a fingerprint of the weights' directory and a sample of their
// bytes), carries the token ids it holds, and ends with a checksum, so a
// state of another model, an altered or cut blob, or a token list that
// disagrees with it is refused before the context is touched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/model_file.h"
#include "model/weight_store.h"

namespace wasmlm {

// FNV-1a over the tensor directory (names, types, shapes), the vocabulary
// size and the first bytes of every tensor's data.
uint64_t model_fingerprint(const ModelFile& file, const WeightStore& store, uint32_t n_vocab);

std::vector<uint8_t> wrap_state(const std::vector<uint8_t>& payload, uint64_t fingerprint,
                                const std::vector<int32_t>& tokens);

struct StatePayload {
  const uint8_t* data;
  size_t size;
};

// The model state inside an envelope, after checking it: throws BadFormat
// (another model, altered bytes, other tokens) or Truncated.
StatePayload unwrap_state(const uint8_t* data, size_t size, uint64_t fingerprint, const std::vector<int32_t>& tokens);

}  // namespace wasmlm
