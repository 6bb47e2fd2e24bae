// The RWKV World tokenizer read from rwkv_vocab_v20230424.txt (and as the
// GGUF metadata llama.cpp's converter makes of it) against the ids of
// rwkv-world-vectors.json (real files in ../shared/testdata).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testdata.h"
#include "tokenizer/rwkv_token_text.h"
#include "tokenizer/rwkv_vocab_reader.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_file.h"

using wasmlm::Tokenizer;
using wasmlm_test::read_text;
using wasmlm_test::testdata_dir;

namespace {

const char kVocab[] = "/tokenizers/rwkv-world/rwkv_vocab_v20230424.txt";
const char kVectors[] = "/tokenizers/test-vectors/rwkv-world-vectors.json";


struct Case {
  std::string text;
  std::vector<int32_t> ids;
};

// The published vectors, then the generated ones.
std::vector<Case> read_cases() {
  const auto j = nlohmann::json::parse(read_text(testdata_dir() + kVectors));
  std::vector<Case> cases;
  for (const auto& c : j.at("published")) cases.push_back({c.at("text"), c.at("ids")});
  for (const auto& c : j.at("generated").at("cases")) cases.push_back({c.at("text"), c.at("ids")});
  return cases;
}

// Encodes every case (no BOS, no special parsing) and decodes the ids back;
// returns the number of cases whose ids match.
int check_cases(const Tokenizer& tok, const std::vector<Case>& cases, const std::string& label) {
  int match = 0;
  for (const Case& c : cases) {
    const std::vector<int32_t> ids = tok.encode(c.text);
    EXPECT_EQ(ids, c.ids) << label << ": [" << c.text << "]";
    if (ids == c.ids) ++match;
    EXPECT_EQ(tok.decode(c.ids), c.text) << label << ": decoding the ids of [" << c.text << "]";
  }
  std::cout << "[ vectors  ] " << label << ": " << match << " / " << cases.size() << " RWKV World cases match\n";
  return match;
}

}  // namespace

TEST(TokenizerRwkvWorld, VocabFileMatchesVectorsAndRoundTrips) {
  WASMLM_REQUIRE_TESTDATA();
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(testdata_dir() + kVocab);
  ASSERT_EQ(wasmlm::detect_tokenizer_file(bytes.data(), bytes.size()), wasmlm::TokenizerFileFormat::RwkvVocab);
  const Tokenizer tok = wasmlm::tokenizer_from_file(bytes.data(), bytes.size());
  EXPECT_EQ(tok.model(), wasmlm::TokenizerModel::Rwkv);
  EXPECT_EQ(tok.n_vocab(), 65530u);  // the file's ids 1..65529 and <|endoftext|>
  EXPECT_EQ(tok.eos(), 0);
  EXPECT_EQ(tok.bos(), wasmlm::kNoToken);
  EXPECT_FALSE(tok.add_bos_default());
  EXPECT_EQ(tok.token_type(0), wasmlm::TokenType::Control);
  EXPECT_EQ(tok.token_bytes(0), "");  // end of text decodes to nothing

  const std::vector<Case> cases = read_cases();
  ASSERT_GT(cases.size(), 2u);
  EXPECT_EQ(check_cases(tok, cases, "rwkv_vocab_v20230424.txt"), static_cast<int>(cases.size()));
}

// Every token's bytes survive the trip through llama.cpp's escaped GGUF text.
TEST(TokenizerRwkvWorld, EveryTokenRoundTripsThroughItsGgufText) {
  WASMLM_REQUIRE_TESTDATA();
  const wasmlm::VocabMetadata v = wasmlm::read_rwkv_vocab(read_text(testdata_dir() + kVocab));
  const Tokenizer tok = Tokenizer::from_metadata(v.to_metadata());
  std::string back;
  for (size_t id = 1; id < v.tokens.size(); ++id) {
    const std::string bytes = tok.token_bytes(static_cast<int32_t>(id));
    ASSERT_TRUE(wasmlm::rwkv_unescape_token(v.tokens[id], &back)) << id;
    ASSERT_EQ(back, bytes) << id;
    ASSERT_EQ(wasmlm::rwkv_escape_token(bytes), v.tokens[id]) << id;
    // A token alone encodes to itself: no other token has the same bytes.
    ASSERT_EQ(tok.encode(bytes), std::vector<int32_t>{static_cast<int32_t>(id)}) << id;
  }
}

// The vocabulary as llama.cpp's convert_hf_to_gguf.py writes an RWKV World
// GGUF: <s> (control) at 0, the tokens escaped, [PAD<i>] up to the model's
// 65536 rows, and '\n\n' as end-of-turn.
TEST(TokenizerRwkvWorld, LlamaCppStyleGgufMetadataMatchesVectors) {
  WASMLM_REQUIRE_TESTDATA();
  wasmlm::VocabMetadata v = wasmlm::read_rwkv_vocab(read_text(testdata_dir() + kVocab));
  v.tokens[0] = "<s>";
  v.eos = -1;
  for (size_t i = v.tokens.size(); i < 65536; ++i)
    v.set_token(i, "[PAD" + std::to_string(i) + "]", static_cast<int32_t>(wasmlm::TokenType::Unused));
  wasmlm::Metadata md = v.to_metadata();
  md.add("tokenizer.ggml.eot_token_id", wasmlm::MetaValue::of_u32(261));
  const Tokenizer tok = Tokenizer::from_metadata(md);
  EXPECT_EQ(tok.model(), wasmlm::TokenizerModel::Rwkv);
  EXPECT_EQ(tok.n_vocab(), 65536u);
  EXPECT_EQ(tok.token_bytes(261), "\n\n");
  const std::vector<Case> cases = read_cases();
  EXPECT_EQ(check_cases(tok, cases, "GGUF-style metadata"), static_cast<int>(cases.size()));
  // Neither the control token nor the fillers come out of plain text.
  EXPECT_EQ(tok.decode(tok.encode("<s>[PAD65535]")), "<s>[PAD65535]");
  for (int32_t id : tok.encode("<s>[PAD65535]")) EXPECT_LT(id, 65530) << id;
  EXPECT_NE(tok.encode("<s>"), std::vector<int32_t>{0});
}
