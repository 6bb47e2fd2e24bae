// Tokenizers against vectors from outside llama.cpp: llama.cpp's llama-bpe
// .out through the LLaMA-3 tokenizer.json (same vocabulary; its GGUF is not
// in the test data), transformers.js and ollama test strings.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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


std::string vectors_file(const std::string& name) {
  return read_text(testdata_dir() + "/tokenizers/test-vectors/" + name);
}

// LLaMA 3 from its HF tokenizer.json, through the reader that converts it
// as llama.cpp's converter does.
const Tokenizer& llama3() {
  static const Tokenizer tok = [] {
    const std::vector<uint8_t> bytes = wasmlm_test::read_file(testdata_dir() + "/tokenizers/llama3/tokenizer.json");
    return wasmlm::tokenizer_from_file(bytes.data(), bytes.size());
  }();
  return tok;
}

Tokenizer load_gguf(const std::string& name) {
  const std::vector<uint8_t> bytes =
      wasmlm_test::read_file(testdata_dir() + "/tokenizers/llamacpp-vocab/ggml-vocab-" + name + ".gguf");
  return Tokenizer::from_model_file(wasmlm::read_model_directory(bytes.data(), bytes.size()));
}

std::string join(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

}  // namespace

TEST(TokenizerBpe, Llama3TokenizerJsonMatchesLlamaBpeVectors) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer& tok = llama3();
  EXPECT_TRUE(tok.ignore_merges());
  const std::string base = testdata_dir() + "/tokenizers/llamacpp-vocab/ggml-vocab-llama-bpe.gguf";
  const std::vector<std::string> cases = read_vocab_cases(base + ".inp");
  const std::vector<std::vector<int32_t>> lines = read_vocab_ids(base + ".out");
  ASSERT_EQ(cases.size(), lines.size());
  int pass = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::vector<int32_t> ids = tok.encode(cases[i]);
    if (ids == lines[i]) ++pass;
    else
      ADD_FAILURE() << "case " << i << " [" << cases[i] << "]\n  expected: " << join(lines[i]) << "\n  got:      "
                    << join(ids);
    EXPECT_EQ(tok.decode(ids), cases[i]);
  }
  std::cout << "[ vectors  ] llama-bpe (llama3/tokenizer.json): " << pass << " / " << cases.size()
            << " cases match llama.cpp\n";
  EXPECT_EQ(pass, static_cast<int>(cases.size()));
}

TEST(TokenizerBpe, Llama3MatchesOllamaVectors) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer& tok = llama3();
  const auto j = nlohmann::json::parse(vectors_file("llama3-ollama-vectors.json"));
  wasmlm::EncodeOptions special;
  special.parse_special = true;  // ollama parses special tokens
  int n = 0;
  for (const auto& c : j["cases"]) {
    const std::string text = c["text"];
    EXPECT_EQ(tok.encode(text, special), c["ids"].get<std::vector<int32_t>>()) << "[" << text << "]";
    ++n;
  }
  EXPECT_GT(n, 0);
}

// transformers.js test strings (HF tokenizers, with their default BOS) for
// the vocabularies we have.
TEST(TokenizerVectors, MatchTransformersJsVectors) {
  WASMLM_REQUIRE_TESTDATA();
  const auto j = nlohmann::json::parse(vectors_file("transformers.js-vectors.json"));
  struct Source {
    const char* family;
    const char* name;
    const Tokenizer* tok;
    bool bos;
  };
  const Tokenizer spm = load_gguf("llama-spm");
  const Tokenizer gpt2 = load_gguf("gpt-2");
  const Tokenizer dsc = load_gguf("deepseek-coder");
  const Source sources[] = {
      {"llama", "Xenova/llama-tokenizer", &spm, true},
      {"llama", "Xenova/llama3-tokenizer", &llama3(), false},
      {"llama", "Xenova/llama3-tokenizer-new", &llama3(), true},
      {"llama", "Xenova/deepseek-coder-1.3b-instruct", &dsc, true},
      {"gpt2", "Xenova/gpt2", &gpt2, false},
  };
  for (const Source& s : sources) {
    int pass = 0, total = 0;
    for (const auto& [key, c] : j[s.family][s.name].items()) {
      if (!c.contains("ids") || !c.contains("text")) continue;
      wasmlm::EncodeOptions opt;
      opt.add_bos = s.bos;
      const std::vector<int32_t> expected = c["ids"].get<std::vector<int32_t>>();
      const std::vector<int32_t> got = s.tok->encode(c["text"].get<std::string>(), opt);
      ++total;
      if (got == expected) ++pass;
      else
        std::cout << "  " << s.name << " " << key << ": expected " << join(expected) << "\n    got " << join(got)
                  << "\n";
    }
    std::cout << "[ vectors  ] transformers.js " << s.name << ": " << pass << " / " << total << "\n";
    EXPECT_EQ(pass, total) << s.name;
    EXPECT_GT(total, 0) << s.name;
  }
}
