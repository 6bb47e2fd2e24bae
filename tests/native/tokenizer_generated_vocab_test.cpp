// GGUF vocabularies of Qwen2.5, Qwen3, Gemma 2 and Gemma 3 (written from
// their real tokenizer files as llama.cpp's converter writes them, see
// generated_vocab.h) and Phi-3's (test data), against llama.cpp: its
// test-tokenizer-0 vectors, its tokenization of a multilingual text set and
// its end-of-generation tokens, recorded with native llama.cpp by the scripts
// in tests/reference/tokenizers/; and transformers.js's Qwen1.5 and Gemma 2
// vectors.
#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "format/incremental_parser.h"
#include "generated_vocab.h"
#include "testdata.h"
#include "tokenizer/tokenizer.h"

using wasmlm::Tokenizer;
using wasmlm_test::read_text;
using wasmlm_test::read_vocab_cases;
using wasmlm_test::read_vocab_ids;
using wasmlm_test::testdata_dir;

namespace {

Tokenizer load_gguf(const std::string& path) {
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(path);
  return Tokenizer::from_model_file(wasmlm::read_model_directory(bytes.data(), bytes.size()));
}

std::string vocab_file(const std::string& name) { return testdata_dir() + "/tokenizers/llamacpp-vocab/ggml-vocab-" + name + ".gguf"; }

std::string join(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

// Every case of `inp` against the same line of `out`; the number that match.
int count_matching_cases(const Tokenizer& tok, const std::string& inp, const std::string& out, const std::string& label) {
  const std::vector<std::string> cases = read_vocab_cases(inp);
  const std::vector<std::vector<int32_t>> expected = read_vocab_ids(out);
  EXPECT_EQ(cases.size(), expected.size()) << label;
  int pass = 0;
  for (size_t i = 0; i < std::min(cases.size(), expected.size()); ++i) {
    const std::vector<int32_t> got = tok.encode(cases[i]);
    if (got == expected[i]) ++pass;
    else
      ADD_FAILURE() << label << " case " << i << " [" << cases[i] << "]\n  expected: " << join(expected[i])
                    << "\n  got:      " << join(got);
  }
  std::cout << "[ vectors  ] " << label << ": " << pass << " / " << cases.size() << " cases match llama.cpp\n";
  return pass;
}

nlohmann::json reference_json(const std::string& relative) {
  return nlohmann::json::parse(read_text(wasmlm_test::reference_dir() + "/" + relative));
}

// The vocabulary a llamacpp-ids.json entry was recorded with.
std::optional<std::string> recorded_vocab(const std::string& name, std::string* why) {
  if (name == "phi-3") {
    if (wasmlm_test::testdata_present()) return vocab_file("phi-3");
    *why = "../shared/testdata missing";
    return std::nullopt;
  }
  return wasmlm_test::generated_vocab_gguf(name, why);
}

}  // namespace

// The test data has the .inp/.out of llama.cpp's qwen2 and deepseek-r1-qwen
// vocabularies but not the vocabularies: both are Qwen2.5's byte-level BPE.
TEST(TokenizerBpe, QwenVocabFromTokenizerJsonMatchesQwen2Vectors) {
  WASMLM_REQUIRE_TESTDATA();
  for (const std::string name : {"qwen2", "deepseek-r1-qwen"}) {
    WASMLM_REQUIRE_FILE(path, wasmlm_test::generated_vocab_gguf(name == "qwen2" ? "qwen2.5" : name, &why_));
    const Tokenizer tok = load_gguf(path);
    EXPECT_EQ(tok.pre(), name);
    const std::string base = vocab_file(name);
    const int pass = count_matching_cases(tok, base + ".inp", base + ".out", name + " (Qwen2.5 tokenizer.json)");
    EXPECT_EQ(pass, static_cast<int>(read_vocab_cases(base + ".inp").size()));
  }
}

TEST(TokenizerSpm, Phi3MatchesRecordedLlamaCppVectors) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer tok = load_gguf(vocab_file("phi-3"));
  const std::string out = wasmlm_test::reference_dir() + "/tokenizers/ggml-vocab-phi-3.gguf.out";
  const int pass = count_matching_cases(tok, vocab_file("phi-3") + ".inp", out, "phi-3");
  EXPECT_EQ(pass, 46);
}

// texts.json through each vocabulary, special tokens as text and parsed, and
// the end-of-generation set, as llama.cpp gives them (llamacpp-ids.json).
TEST(TokenizerLlamaCpp, MultilingualTextsAndEndOfGenerationMatchRecordedIds) {
  const nlohmann::json texts = reference_json("tokenizers/texts.json")["texts"];
  const nlohmann::json recorded = reference_json("tokenizers/llamacpp-ids.json")["vocabs"];
  ASSERT_EQ(recorded.size(), 5u);
  for (const auto& [name, ref] : recorded.items()) {
    WASMLM_REQUIRE_FILE(path, recorded_vocab(name, &why_));
    const Tokenizer tok = load_gguf(path);
    int pass = 0, total = 0;
    for (const char* mode : {"plain", "special"}) {
      wasmlm::EncodeOptions opt;
      opt.parse_special = std::string(mode) == "special";
      ASSERT_EQ(ref[mode].size(), texts.size()) << name;
      for (size_t i = 0; i < texts.size(); ++i) {
        const std::vector<int32_t> expected = ref[mode][i].get<std::vector<int32_t>>();
        const std::vector<int32_t> got = tok.encode(texts[i].get<std::string>(), opt);
        ++total;
        if (got == expected) ++pass;
        else
          ADD_FAILURE() << name << " " << mode << " text " << i << " [" << texts[i].get<std::string>()
                        << "]\n  expected: " << join(expected) << "\n  got:      " << join(got);
      }
    }
    std::cout << "[ vectors  ] " << name << ": " << pass << " / " << total << " texts match llama.cpp\n";
    const std::vector<int32_t> eog = tok.end_of_generation();
    EXPECT_EQ(std::set<int32_t>(eog.begin(), eog.end()), ref["eog"].get<std::set<int32_t>>()) << name;
    EXPECT_EQ(eog.size(), ref["eog"].size()) << name;
    EXPECT_EQ(eog.front(), tok.eos()) << name;
  }
}

// Each family's end-of-turn token is among them (and is a control token, so
// it is never shown).
TEST(TokenizerLlamaCpp, EachFamilyStopsOnItsEndOfTurnToken) {
  const std::pair<const char*, const char*> families[] = {
      {"qwen2.5", "<|im_end|>"}, {"qwen3", "<|im_end|>"}, {"gemma2", "<end_of_turn>"},
      {"gemma3", "<end_of_turn>"}, {"phi-3", "<|end|>"}, {"qwen3", "<|endoftext|>"}, {"phi-3", "<|endoftext|>"}};
  for (const auto& [name, end] : families) {
    WASMLM_REQUIRE_FILE(path, recorded_vocab(name, &why_));
    const Tokenizer tok = load_gguf(path);
    const int32_t id = tok.find_token(end);
    ASSERT_NE(id, wasmlm::kNoToken) << name << " " << end;
    const std::vector<int32_t> eog = tok.end_of_generation();
    EXPECT_NE(std::find(eog.begin(), eog.end(), id), eog.end()) << name << " " << end;
    EXPECT_EQ(tok.token_type(id), wasmlm::TokenType::Control) << name << " " << end;
  }
}

// transformers.js's Qwen1.5 vectors (Qwen1.5's vocabulary is Qwen2.5's
// below id 151643; no BOS) and Gemma 2 vectors (with BOS) through the GGUFs.
// One Gemma 2 case cannot match, in llama.cpp either: the converter writes
// the added tokens made of U+2581 runs ("▁▁", id 139) with spaces, so text
// holding a literal U+2581 next to a space ("▁This ▁is") can no longer merge
// into them (llama.cpp's own ids for such text are in llamacpp-ids.json; the
// tokenizer.json reader keeps transformers' behaviour, tokenizer_hf_json_test).
TEST(TokenizerVectors, Qwen15AndGemma2MatchTransformersJsVectors) {
  WASMLM_REQUIRE_TESTDATA();
  const auto j = nlohmann::json::parse(read_text(testdata_dir() + "/tokenizers/test-vectors/transformers.js-vectors.json"));
  const struct {
    const char* family;
    const char* name;
    const char* vocab;
    bool bos;
    std::set<std::string> unlike_llama_cpp;
  } sources[] = {{"qwen2", "Xenova/Qwen1.5-0.5B-Chat", "qwen2.5", false, {}},
                 {"gemma", "Xenova/gemma2-tokenizer", "gemma2", true, {"SPIECE_UNDERSCORE"}}};
  for (const auto& s : sources) {
    WASMLM_REQUIRE_FILE(path, wasmlm_test::generated_vocab_gguf(s.vocab, &why_));
    const Tokenizer tok = load_gguf(path);
    EXPECT_EQ(tok.add_bos_default(), s.bos) << s.name;
    int pass = 0, total = 0;
    for (const auto& [key, c] : j[s.family][s.name].items()) {
      if (!c.contains("ids") || !c.contains("text")) continue;
      wasmlm::EncodeOptions opt;
      opt.add_bos = tok.add_bos_default();
      const std::vector<int32_t> expected = c["ids"].get<std::vector<int32_t>>();
      const std::vector<int32_t> got = tok.encode(c["text"].get<std::string>(), opt);
      ++total;
      if (got == expected) {
        ++pass;
        EXPECT_EQ(s.unlike_llama_cpp.count(key), 0u) << s.name << " " << key << " now matches";
      } else if (!s.unlike_llama_cpp.count(key)) {
        ADD_FAILURE() << s.name << " " << key << "\n  expected: " << join(expected) << "\n  got:      " << join(got);
      }
    }
    std::cout << "[ vectors  ] transformers.js " << s.name << " (GGUF): " << pass << " / " << total << "\n";
    EXPECT_EQ(pass + static_cast<int>(s.unlike_llama_cpp.size()), total) << s.name;
  }
}
