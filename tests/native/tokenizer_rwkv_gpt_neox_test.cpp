// GPT-NeoX-20B's tokenizer (20B_tokenizer.json, the tokenizer of RWKV v4
// Pile models) read by the tokenizer.json reader, against llama.cpp's
// test-tokenizer-0 vectors for its gpt-neox vocabulary and against
// llama.cpp's own GGUF conversion of it (real files in ../shared/testdata).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/incremental_parser.h"
#include "testdata.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_file.h"

using wasmlm::Tokenizer;
using wasmlm_test::read_text;
using wasmlm_test::read_vocab_cases;
using wasmlm_test::read_vocab_ids;
using wasmlm_test::testdata_dir;

namespace {

std::string vocab_dir() { return testdata_dir() + "/tokenizers/llamacpp-vocab"; }


Tokenizer neox_json_tokenizer() {
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(testdata_dir() + "/tokenizers/gpt-neox-20b/20B_tokenizer.json");
  return wasmlm::tokenizer_from_file(bytes.data(), bytes.size());
}



std::string join(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

bool ci() {
  const char* v = std::getenv("CI");
  return v && std::string(v) == "true";
}

}  // namespace

// MPT-7B ships GPT-NeoX-20B's tokenizer; llama.cpp's converter recognized it
// (by hashing its output on a probe text) as pre-tokenizer "mpt", GPT-2's
// split regex. On llama.cpp's test-tokenizer-0 strings (the same for every
// vocabulary) the tokenizer read from 20B_tokenizer.json gives the ids of the
// one read from ggml-vocab-mpt.gguf, and decodes back to the text.
//
// ggml-vocab-gpt-neox.gguf is not the reference: it has no
// tokenizer.ggml.pre, so llama.cpp splits its text with the "default"
// regexes (digits in threes, "\n " kept together), unlike Hugging Face.
TEST(TokenizerNeoX, JsonTokenizerMatchesLlamaCppMptGgufOnVocabTestCases) {
  WASMLM_REQUIRE_TESTDATA();
  const std::vector<uint8_t> gguf_bytes = wasmlm_test::read_file(vocab_dir() + "/ggml-vocab-mpt.gguf");
  const Tokenizer gguf = Tokenizer::from_model_file(wasmlm::read_model_directory(gguf_bytes.data(), gguf_bytes.size()));
  EXPECT_EQ(gguf.pre(), "mpt");
  const Tokenizer tok = neox_json_tokenizer();
  EXPECT_EQ(tok.model(), wasmlm::TokenizerModel::Bpe);
  EXPECT_EQ(tok.pre(), "gpt-2");
  ASSERT_LE(tok.n_vocab(), gguf.n_vocab());
  for (size_t i = 0; i < tok.n_vocab(); ++i) {
    const int32_t id = static_cast<int32_t>(i);
    ASSERT_EQ(tok.token_text(id), gguf.token_text(id)) << id;
  }
  const auto cases = read_vocab_cases(vocab_dir() + "/ggml-vocab-mpt.gguf.inp");
  ASSERT_GT(cases.size(), 10u);
  size_t match = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::vector<int32_t> got = tok.encode(cases[i]);
    const std::vector<int32_t> want = gguf.encode(cases[i]);
    if (got == want) ++match;
    else ADD_FAILURE() << "case " << i << " [" << cases[i] << "]\n  GGUF: " << join(want) << "\n  json: " << join(got);
    EXPECT_EQ(tok.decode(got), cases[i]) << "case " << i;
  }
  std::cout << "[ vectors  ] 20B_tokenizer.json: " << match << " / " << cases.size()
            << " cases match ggml-vocab-mpt.gguf\n";
}
