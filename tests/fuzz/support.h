// Helpers shared by the fuzz targets (tests/fuzz/fuzz_*.cpp). Each target is
// built twice: as a libFuzzer binary (clang, -DWASMLM_FUZZ=ON; run by
// scripts/fuzz.sh) and as a replay executable that runs its committed
// findings, tests/fuzz/regressions/<target>/, as a ctest (replay_main.cpp).
//
// A target's contract: bad input fails with a wasmlm::Error, nothing else;
// a crash, a sanitizer report, another exception, a broken FUZZ_CHECK, a hang
// or a blow-up of memory is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace wasmlm {
class Tokenizer;
class WeightStore;
struct ModelFile;
}  // namespace wasmlm

namespace wasmlm_fuzz {

// Ends the run naming the invariant that does not hold (libFuzzer keeps the input).
[[noreturn]] void invariant_failed(const char* condition, const char* file, int line);
#define FUZZ_CHECK(cond) ((cond) ? (void)0 : ::wasmlm_fuzz::invariant_failed(#cond, __FILE__, __LINE__))

// Runs f; true if it returned, false if it failed with a wasmlm::Error (the
// one way bad input may fail; any other exception propagates). An Internal
// error is a bug in wasmlm, not in the input: a finding.
template <typename F>
bool succeeds(F&& f) {
  try {
    f();
    return true;
  } catch (const wasmlm::Error& e) {
    if (e.code() == wasmlm::ErrorCode::Internal) invariant_failed(e.what(), __FILE__, __LINE__);
    return false;
  }
}

// An input made of several files (params.json and its shards, the shards of
// a split GGUF): the parts between separators, at most max_parts (the last
// part keeps any further separators). scripts/fuzz.sh joins seed files so.
constexpr std::string_view kPartSeparator = "--wasmlm-part--";
std::vector<std::string_view> split_parts(const uint8_t* data, size_t size, size_t max_parts);

// Encodes texts of many scripts and special-token spellings with every
// option, and decodes the ids and the first and last tokens of the vocabulary.
void exercise_tokenizer(const wasmlm::Tokenizer& tokenizer);

// Opens the model `file` describes over `store` (a context of 320 positions,
// more than a 4-position window's ring), evaluates two tokens, and checks the
// logits are there, and that check_model_directory (which loaders call before
// allocating the weights) refuses no model that runs. False if the model
// refused with a wasmlm::Error.
bool run_model(const wasmlm::ModelFile& file, const wasmlm::WeightStore& store, bool kv_f16 = true);

// For a target whose seeds are generated (no file of the test data fits):
// with WASMLM_FUZZ_WRITE_SEEDS=DIR in the environment, writes make()'s seeds
// to DIR and exits. Call from LLVMFuzzerInitialize.
void write_seeds_if_asked(const char* target, const std::function<std::vector<std::vector<uint8_t>>()>& make);

}  // namespace wasmlm_fuzz
