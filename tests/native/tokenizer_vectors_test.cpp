// Tokenizers against llama.cpp's test-tokenizer-0 vectors and the reference
// prompt ids of stories260K (real files in ../shared/testdata).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "format/incremental_parser.h"
#include "testdata.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace fs = std::filesystem;
using wasmlm::Tokenizer;
using wasmlm_test::read_text;
using wasmlm_test::read_vocab_cases;
using wasmlm_test::read_vocab_ids;
using wasmlm_test::testdata_dir;

namespace {

std::string vocab_dir() { return testdata_dir() + "/tokenizers/llamacpp-vocab"; }


Tokenizer load_tokenizer(const std::string& path) {
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(path);
  return Tokenizer::from_model_file(wasmlm::read_model_directory(bytes.data(), bytes.size()));
}



std::string join(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

bool is_valid_utf8(const std::string& s) {
  size_t invalid_at;
  return wasmlm::utf8_valid_prefix(s, &invalid_at) == s.size() && invalid_at == s.size();
}

// Vocab names (ggml-vocab-NAME.gguf) for which the .gguf and the .inp exist,
// and (with_out) the .out too. bert-bge is WordPiece, which we do not
// implement.
std::vector<std::string> vocab_names(bool with_out) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(vocab_dir(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    const std::string prefix = "ggml-vocab-", suffix = ".gguf";
    if (file.rfind(prefix, 0) != 0 || file.size() < prefix.size() + suffix.size() ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string name = file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
    if (name == "bert-bge") continue;
    if (!fs::exists(it->path().string() + ".inp")) continue;
    if (with_out && !fs::exists(it->path().string() + ".out")) continue;
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Tokenizes every case (no BOS, no special parsing) and compares with the
// .out line; returns the number of cases that match, reporting the others.
int check_vectors(const Tokenizer& tok, const std::string& inp, const std::string& out, const std::string& label,
                  int* total) {
  const auto cases = read_vocab_cases(inp);
  const auto expected = read_vocab_ids(out);
  EXPECT_EQ(cases.size(), expected.size()) << label;
  int pass = 0;
  const size_t n = std::min(cases.size(), expected.size());
  for (size_t i = 0; i < n; ++i) {
    const std::vector<int32_t> got = tok.encode(cases[i]);
    if (got == expected[i]) {
      ++pass;
    } else {
      ADD_FAILURE() << label << " case " << i << " [" << cases[i] << "]\n  expected: " << join(expected[i])
                    << "\n  got:      " << join(got);
    }
  }
  *total = static_cast<int>(n);
  std::cout << "[ vectors  ] " << label << ": " << pass << " / " << n << " cases match llama.cpp\n";
  return pass;
}

void check_all_vectors(wasmlm::TokenizerModel model) {
  int checked = 0;
  for (const std::string& name : vocab_names(true)) {
    const std::string base = vocab_dir() + "/ggml-vocab-" + name + ".gguf";
    const Tokenizer tok = load_tokenizer(base);
    if (tok.model() != model) continue;
    int total = 0;
    const int pass = check_vectors(tok, base + ".inp", base + ".out", name, &total);
    EXPECT_EQ(pass, total) << name;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace

TEST(TokenizerSpm, MatchesLlamaCppVectors) {
  WASMLM_REQUIRE_TESTDATA();
  check_all_vectors(wasmlm::TokenizerModel::Spm);
}

TEST(TokenizerBpe, MatchesLlamaCppVectors) {
  WASMLM_REQUIRE_TESTDATA();
  check_all_vectors(wasmlm::TokenizerModel::Bpe);
}

TEST(TokenizerSpm, GgufV1VocabMatchesLlamaSpmVectors) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer tok = load_tokenizer(vocab_dir() + "/old-gguf-v1/ggml-vocab-llama.v1.gguf");
  const std::string base = vocab_dir() + "/ggml-vocab-llama-spm.gguf";
  int total = 0;
  EXPECT_EQ(check_vectors(tok, base + ".inp", base + ".out", "llama.v1 (GGUF v1)", &total), total);
}

TEST(TokenizerSpm, Stories260KPromptIdsMatchReference) {
  WASMLM_REQUIRE_TESTDATA();
  const std::string dir = testdata_dir() + "/llama/stories260K";
  const Tokenizer tok = load_tokenizer(dir + "/stories260K.gguf");
  const auto ref = nlohmann::json::parse(read_text(dir + "/reference/reference-outputs.json"));
  bool found = false;
  for (const auto& entry : ref) {
    if (entry["file"] != "stories260K.gguf") continue;
    found = true;
    const auto& result = entry["result"];
    const std::vector<int32_t> expected = result["prompt_ids"].get<std::vector<int32_t>>();
    wasmlm::EncodeOptions opt;
    opt.add_bos = true;
    EXPECT_TRUE(tok.add_bos_default());
    EXPECT_EQ(tok.encode(result["prompt"].get<std::string>(), opt), expected);
    // And the greedy continuation decodes to the reference text.
    const std::vector<int32_t> greedy = result["greedy_ids"].get<std::vector<int32_t>>();
    EXPECT_EQ(tok.decode(greedy), result["greedy_text"].get<std::string>());
  }
  EXPECT_TRUE(found);
}

// decode(encode(x)) == x wherever no case falls back to <unk>; and the
// streaming detokenizer, fed one id at a time, emits only whole UTF-8 that
// adds up to the same text.
TEST(TokenizerRoundTrip, DecodeInvertsEncodeAndStreamsValidUtf8) {
  WASMLM_REQUIRE_TESTDATA();
  const auto names = vocab_names(false);
  EXPECT_FALSE(names.empty());
  for (const std::string& name : names) {
    const std::string base = vocab_dir() + "/ggml-vocab-" + name + ".gguf";
    const Tokenizer tok = load_tokenizer(base);
    int lossless = 0, skipped = 0;
    for (const std::string& text : read_vocab_cases(base + ".inp")) {
      const std::vector<int32_t> ids = tok.encode(text);
      wasmlm::StreamingDetokenizer stream(tok);
      std::string streamed;
      for (int32_t id : ids) {
        const std::string chunk = stream.push(id);
        EXPECT_TRUE(is_valid_utf8(chunk)) << name << ": chunk after id " << id << " is not valid UTF-8";
        streamed += chunk;
      }
      streamed += stream.flush();
      EXPECT_EQ(streamed, tok.decode(ids)) << name;
      if (tok.unk() != wasmlm::kNoToken && std::count(ids.begin(), ids.end(), tok.unk())) {
        ++skipped;
        continue;
      }
      EXPECT_EQ(tok.decode(ids), text) << name << ": ids " << join(ids);
      ++lossless;
    }
    std::cout << "[ roundtrip] " << name << ": " << lossless << " cases round-trip"
              << (skipped ? ", " + std::to_string(skipped) + " skipped (contain <unk>)" : std::string()) << "\n";
  }
}

TEST(TokenizerSpecial, ControlTokensAreParsedOnlyWhenAsked) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer tok = load_tokenizer(vocab_dir() + "/ggml-vocab-llama-spm.gguf");
  wasmlm::EncodeOptions special;
  special.parse_special = true;
  const std::vector<int32_t> parsed = tok.encode("<s>Hello</s>", special);
  ASSERT_GE(parsed.size(), 3u);
  EXPECT_EQ(parsed.front(), tok.bos());
  EXPECT_EQ(parsed.back(), tok.eos());
  const std::vector<int32_t> plain = tok.encode("<s>Hello</s>");
  EXPECT_EQ(std::count(plain.begin(), plain.end(), tok.bos()), 0);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), tok.eos()), 0);
  EXPECT_EQ(tok.decode(plain), "<s>Hello</s>");
  // Control tokens decode to nothing unless rendered.
  EXPECT_EQ(tok.decode(parsed), "Hello");
  wasmlm::DecodeOptions render;
  render.render_special = true;
  EXPECT_EQ(tok.decode(parsed, render), "<s>Hello</s>");
}

TEST(TokenizerSpecial, EndOfTextIsControlInGpt2) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer tok = load_tokenizer(vocab_dir() + "/ggml-vocab-gpt-2.gguf");
  wasmlm::EncodeOptions special;
  special.parse_special = true;
  EXPECT_EQ(tok.encode("Hi<|endoftext|>", special), (std::vector<int32_t>{17250, 50256}));
  const std::vector<int32_t> plain = tok.encode("Hi<|endoftext|>");
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 50256), 0);
  EXPECT_EQ(tok.decode(plain), "Hi<|endoftext|>");
}
