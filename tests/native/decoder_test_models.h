// The random-weight decoder test models (tests/models/decoder-models.js),
// generated into tests/.tmp/decoder-models by scripts/test.sh, loaded for
// the native and the wasm test suites alike.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "format/model_file.h"
#include "model/decoder_model.h"
#include "model/weight_store.h"

namespace wasmlm_test {

struct DecoderTestModel {
  std::vector<uint8_t> bytes;
  wasmlm::WeightStore store;
  std::unique_ptr<wasmlm::ModelFile> file;
  std::unique_ptr<wasmlm::DecoderModel> model;
};

// WASMLM_REPO_ROOT "/tests/.tmp/decoder-models/" + file.
std::string decoder_test_model_path(const std::string& file);
// The model in `file` (e.g. "gemma3-F32.gguf"), or nullptr if it has not
// been generated (the caller skips, or fails under CI=true).
std::unique_ptr<DecoderTestModel> load_decoder_test_model(const std::string& file);
// FNV-1a 64 of bytes as 16 hex digits (the references record it per file).
std::string fnv1a64_hex(const std::vector<uint8_t>& bytes);

}  // namespace wasmlm_test

// In a test body: m (a unique_ptr<DecoderTestModel>) loaded, or the test
// skipped (failed in CI) saying how to generate the file.
#define WASMLM_LOAD_DECODER_MODEL(m, file)                                                          \
  auto m = ::wasmlm_test::load_decoder_test_model(file);                                          \
  do {                                                                                              \
    if (!m) {                                                                                       \
      const char* ci_ = std::getenv("CI");                                                          \
      const std::string why_ = ::wasmlm_test::decoder_test_model_path(file) +                       \
                               " missing: scripts/test.sh generates it (node tests/models/decoder-models.js)"; \
      if (ci_ && std::string(ci_) == "true") FAIL() << why_;                                        \
      GTEST_SKIP() << why_;                                                                         \
    }                                                                                               \
  } while (0)
