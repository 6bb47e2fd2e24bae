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
// All tensor names of a file together, where they are built (PyTorch keys joined with ".").
constexpr uint64_t kMaxTensorNamesBytes = 64ull << 20;
constexpr uint32_t kMaxArrayNesting = 8;
constexpr uint32_t kMaxAlignment = 1u << 20;
constexpr uint64_t kMaxVocab = 1u << 24;

// PyTorch checkpoints: data.pkl is the unpickled directory, never tensor data
// (a 70B model's is well under 1 MB), so these are generous.
constexpr uint64_t kMaxPickleBytes = 64ull << 20;
constexpr uint64_t kMaxPickleStack = 1u << 20;     // values on the stack
constexpr uint64_t kMaxPickleMarks = 4096;         // open MARKs
constexpr uint64_t kMaxPickleMemo = 1u << 22;      // memo entries, and the largest memo index
constexpr uint64_t kMaxPickleObjects = 1u << 22;   // strings, containers, globals, storages, tensors
constexpr uint64_t kMaxPickleItems = 1u << 23;     // items held by all containers together
constexpr uint32_t kMaxPickleNesting = 64;         // containers inside containers, when walked
constexpr uint64_t kMaxPickleWalk = 1u << 22;      // values visited when collecting tensors
constexpr uint64_t kMaxZipEntries = 1u << 20;
constexpr uint32_t kMaxTensorDims = 16;

}  // namespace wasmlm::limits
