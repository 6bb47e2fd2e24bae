// Where the real model files live, and how tests find and load them.
//
// The files are in ../shared/testdata beside the repository (never copied
// into it). Without them a test is skipped with a visible message, except in
// CI (env CI=true), where their absence fails the test.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/model_file.h"
#include "model/weight_store.h"

namespace wasmlm_test {

// WASMLM_REPO_ROOT "/../shared/testdata".
std::string testdata_dir();
bool testdata_present();

// Every model file the parser must read, as paths relative to testdata_dir()
// in sorted order: *.gguf under llama/, synth-kq/ and tokenizers/llamacpp-vocab/,
// rwkv/tiny-rwkv-*.bin, legacy/*.bin. When
// the directory is missing: one entry, kMissingTestdata, so that
// parameterized suites still instantiate and report the absence.
extern const char* const kMissingTestdata;
std::vector<std::string> real_model_files();

// The top folders of real_model_files() ("legacy", "llama", "rwkv",
// "synth-kq", "tokenizers"): tests run once per folder, looping over its
// files (one process per file would cost more than the test in an ASan build).
// {kMissingTestdata} when the directory is missing.
std::vector<std::string> testdata_groups();
std::vector<std::string> files_in_group(const std::string& group);

// A name usable as a GoogleTest parameter name ("llama/x-y.gguf" -> "llama_x_y_gguf").
std::string param_name(const std::string& path);

std::vector<uint8_t> read_file(const std::string& path);
std::string read_text(const std::string& path);

// llama.cpp's test-tokenizer-0 vectors: the cases of an .inp file (each
// followed by "\n__ggml_vocab_test__\n"), and the ids of its .out file, one
// line of space-separated ids per case.
std::vector<std::string> read_vocab_cases(const std::string& inp_path);
std::vector<std::vector<int32_t>> read_vocab_ids(const std::string& out_path);

// A model file's bytes, its directory and its weights in a store.
struct LoadedModel {
  std::vector<uint8_t> bytes;
  wasmlm::WeightStore store;
  wasmlm::ModelFile file;
};
// Streams `bytes` into m.store (set up m.store first, e.g. quantize_on_load).
void load_into(LoadedModel& m, std::vector<uint8_t> bytes);
// The model file at testdata_dir() + "/" + relative.
std::unique_ptr<LoadedModel> load_model(const std::string& relative);

}  // namespace wasmlm_test

// In a test body: stops the test when the test data is missing (fails in CI,
// skips otherwise).
#define WASMLM_REQUIRE_TESTDATA()                                                             \
  do {                                                                                        \
    if (!::wasmlm_test::testdata_present()) {                                                 \
      const char* ci_ = std::getenv("CI");                                                    \
      if (ci_ && std::string(ci_) == "true")                                                  \
        FAIL() << "../shared/testdata missing: expected it at " << ::wasmlm_test::testdata_dir(); \
      GTEST_SKIP() << "../shared/testdata missing (expected at " << ::wasmlm_test::testdata_dir() \
                   << "); skipping tests on real model files";                                \
    }                                                                                         \
  } while (0)
