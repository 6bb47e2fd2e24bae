// Sane limits applied before anything is allocated from a declared size.
//
// A declared count is also always checked against the bytes left in the
// file, so these only bite when the file is huge or its size is unknown.
#pragma once

#include <cstdint>

namespace wasmlm::limits {

// Largest single header unit (one metadata value, one vocabulary) we buffer.
// LLaMA-3's merges array is ~5 MB; Gemma's vocabulary ~10 MB.
constexpr uint64_t kMaxUnitBytes = 512ull << 20;
constexpr uint64_t kMaxTensors = 1u << 20;
constexpr uint64_t kMaxMetadataEntries = 1u << 20;
constexpr uint64_t kMaxStringBytes = 64ull << 20;
constexpr uint64_t kMaxTensorNameBytes = 4096;
constexpr uint32_t kMaxArrayNesting = 8;
constexpr uint32_t kMaxAlignment = 1u << 20;
constexpr uint64_t kMaxVocab = 1u << 24;

}  // namespace wasmlm::limits
