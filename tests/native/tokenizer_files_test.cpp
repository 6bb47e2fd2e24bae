// Tokenizers read from files outside GGUF (SentencePiece tokenizer.model,
// Hugging Face tokenizer.json, tiktoken rank files) against reference ids
// from torchtune, Meta's SentencePiece, llama.cpp, transformers.js and
// ollama (real files in ../shared/testdata), and typed errors for damaged files.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "testdata.h"
#include "tokenizer/hf_tokenizer_json_reader.h"
#include "tokenizer/sentencepiece_model_reader.h"
#include "tokenizer/tiktoken_reader.h"
#include "tokenizer/tokenizer_file.h"

using wasmlm::ErrorCode;
using wasmlm::Tokenizer;
using wasmlm::TokenizerFileFormat;
using wasmlm_test::read_text;
using wasmlm_test::read_vocab_cases;
using wasmlm_test::read_vocab_ids;
using wasmlm_test::testdata_dir;

namespace {


nlohmann::json read_json(const std::string& relative) { return nlohmann::json::parse(read_text(testdata_dir() + "/" + relative)); }

Tokenizer open_file(const std::string& relative, const wasmlm::TokenizerFileOptions& options = {}) {
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(testdata_dir() + "/" + relative);
  return wasmlm::tokenizer_from_file(bytes.data(), bytes.size(), options);
}

TokenizerFileFormat detect(const std::string& relative) {
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(testdata_dir() + "/" + relative);
  return wasmlm::detect_tokenizer_file(bytes.data(), bytes.size());
}

wasmlm::EncodeOptions plain() { return {}; }

wasmlm::EncodeOptions special() {
  wasmlm::EncodeOptions o;
  o.parse_special = true;
  return o;
}

// The error code and offset `f` throws (fails the test if it does not).
template <typename F>
wasmlm::Error error_of(F&& f) {
  try {
    f();
  } catch (const wasmlm::Error& e) {
    return e;
  }
  ADD_FAILURE() << "no wasmlm::Error thrown";
  return wasmlm::Error(ErrorCode::Internal, wasmlm::kNoOffset, "none");
}


Tokenizer gguf_tokenizer(const std::string& relative) {
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(testdata_dir() + "/" + relative);
  return Tokenizer::from_model_file(wasmlm::read_model_directory(bytes.data(), bytes.size()));
}

}  // namespace

// ------------------------------------------------------------ tiktoken ----

TEST(TokenizerFileTiktoken, TorchtuneSmallMatchesTorchtuneIds) {
  WASMLM_REQUIRE_TESTDATA();
  const auto vectors = read_json("tokenizers/test-vectors/torchtune-small-vectors.json")["tiktoken_small.model"];
  ASSERT_EQ(detect("tokenizers/torchtune-small/tiktoken_small.model"), TokenizerFileFormat::Tiktoken);
  const Tokenizer tok = open_file("tokenizers/torchtune-small/tiktoken_small.model");
  EXPECT_EQ(tok.pre(), "llama-bpe");
  EXPECT_EQ(tok.n_vocab(), 2000u + 256u);  // the ranks and LLaMA 3's specials after them
  int n = 0;
  for (const auto& c : vectors["cases"]) {
    const std::string text = c["text"];
    const std::vector<int32_t> ids = tok.encode(text, plain());
    EXPECT_EQ(ids, c["ids"].get<std::vector<int32_t>>()) << text;
    EXPECT_EQ(tok.decode(ids), text);
    ++n;
  }
  EXPECT_EQ(n, 2);
}

// torchtune's llama3 tokenizer puts the specials at 128000 whatever the
// number of ranks: its chat example, with special tokens parsed from the text.
TEST(TokenizerFileTiktoken, TorchtuneLlama3ChatExampleWithSpecialsAt128000) {
  WASMLM_REQUIRE_TESTDATA();
  const auto example =
      read_json("tokenizers/test-vectors/torchtune-small-vectors.json")["tiktoken_small.model"]["llama3_chat_example"];
  wasmlm::TokenizerFileOptions options;
  options.tiktoken.special_tokens = wasmlm::llama3_special_tokens(128000);
  const Tokenizer tok = open_file("tokenizers/torchtune-small/tiktoken_small.model", options);
  EXPECT_EQ(tok.bos(), 128000);
  EXPECT_EQ(tok.eos(), 128001);
  EXPECT_EQ(tok.token_type(5000), wasmlm::TokenType::Unused);  // the hole between ranks and specials
  const std::string user = "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n" +
                           example["user_message"]["content"].get<std::string>() + "<|eot_id|>";
  EXPECT_EQ(tok.encode(user, special()), example["user_message"]["ids"].get<std::vector<int32_t>>());
  const std::string assistant = "<|start_header_id|>assistant<|end_header_id|>\n\n" +
                                example["assistant_message"]["content"].get<std::string>() + "<|eot_id|><|end_of_text|>";
  EXPECT_EQ(tok.encode(assistant, special()), example["assistant_message"]["ids"].get<std::vector<int32_t>>());
}

// ------------------------------------------------------- SentencePiece ----

TEST(TokenizerFileSentencePiece, TorchtuneMModelMatchesSentencePieceIds) {
  WASMLM_REQUIRE_TESTDATA();
  const auto vectors = read_json("tokenizers/test-vectors/torchtune-small-vectors.json")["m.model"];
  ASSERT_EQ(detect("tokenizers/torchtune-small/m.model"), TokenizerFileFormat::SentencePiece);
  const Tokenizer tok = open_file("tokenizers/torchtune-small/m.model");
  EXPECT_EQ(tok.model(), wasmlm::TokenizerModel::Ugm);  // trained with SentencePiece's default, unigram
  EXPECT_EQ(tok.n_vocab(), 2000u);
  EXPECT_EQ(tok.bos(), 1);  // "bos=1 eos=2"
  EXPECT_EQ(tok.eos(), 2);
  int n = 0;
  for (const auto& c : vectors["cases"]) {
    const std::string text = c["text"];
    EXPECT_EQ(tok.encode(text, plain()), c["ids_no_bos_eos"].get<std::vector<int32_t>>()) << text;
    wasmlm::EncodeOptions both;
    both.add_bos = both.add_eos = true;
    std::vector<int32_t> expected = c["ids_no_bos_eos"];
    expected.insert(expected.begin(), 1);
    expected.push_back(2);
    EXPECT_EQ(tok.encode(text, both), expected);
    EXPECT_EQ(tok.decode(tok.encode(text, both)), text);
    ++n;
  }
  EXPECT_GT(n, 0);
}

// m.model normalizes with SentencePiece's nmt_nfkc map: full-width letters and
// an ideographic space are the ASCII ones, extra spaces go (remove_extra_whitespaces).
TEST(TokenizerFileSentencePiece, TorchtuneMModelAppliesItsNfkcCharsmap) {
  WASMLM_REQUIRE_TESTDATA();
  const auto vectors = read_json("tokenizers/test-vectors/torchtune-small-vectors.json")["m.model"];
  const Tokenizer tok = open_file("tokenizers/torchtune-small/m.model");
  const std::vector<int32_t> expected = vectors["cases"][0]["ids_no_bos_eos"];
  ASSERT_EQ(vectors["cases"][0]["text"], "Hello world!");
  EXPECT_EQ(tok.encode("\xEF\xBC\xA8\xEF\xBD\x85llo\xE3\x80\x80world\xEF\xBC\x81", plain()), expected);  // Ｈｅllo　world！
  EXPECT_EQ(tok.encode("  Hello   world!  ", plain()), expected);
}

TEST(TokenizerFileSentencePiece, Stories260KModelMatchesVectorsAndGgufVocab) {
  WASMLM_REQUIRE_TESTDATA();
  const auto vectors = read_json("pytorch/meta-stories260K/tokenizer-vectors.json");
  const Tokenizer tok = open_file("pytorch/meta-stories260K/f32/tokenizer.model");
  EXPECT_EQ(tok.model(), wasmlm::TokenizerModel::Spm);  // a BPE model
  const Tokenizer gguf = gguf_tokenizer("llama/stories260K/stories260K.gguf");
  ASSERT_EQ(tok.n_vocab(), gguf.n_vocab());
  for (size_t i = 0; i < tok.n_vocab(); ++i) {
    const int32_t id = static_cast<int32_t>(i);
    EXPECT_EQ(tok.token_text(id), gguf.token_text(id)) << id;
    EXPECT_EQ(tok.token_type(id), gguf.token_type(id)) << id;
  }
  EXPECT_EQ(tok.bos(), gguf.bos());
  EXPECT_EQ(tok.eos(), gguf.eos());
  EXPECT_EQ(tok.add_bos_default(), gguf.add_bos_default());
  int n = 0;
  for (const auto& c : vectors) {
    const std::string text = c["text"];
    const std::vector<int32_t> expected = c["ids"];
    EXPECT_EQ(tok.encode(text, plain()), expected) << text;
    EXPECT_EQ(gguf.encode(text, plain()), expected) << "GGUF: " << text;
    ++n;
  }
  EXPECT_GE(n, 10);
}

// ------------------------------------------------------ tokenizer.json ----

// (tokenizer_hf_vectors_test.cpp runs the ollama and transformers.js vectors
// through this reader too.)
TEST(TokenizerFileHfJson, Llama3MatchesLlamaCppLlamaBpeVectors) {
  WASMLM_REQUIRE_TESTDATA();
  ASSERT_EQ(detect("tokenizers/llama3/tokenizer.json"), TokenizerFileFormat::HfJson);
  const Tokenizer tok = open_file("tokenizers/llama3/tokenizer.json");
  EXPECT_EQ(tok.pre(), "llama-bpe");
  EXPECT_TRUE(tok.ignore_merges());
  EXPECT_EQ(tok.n_vocab(), 128256u);
  EXPECT_EQ(tok.bos(), 128000);
  EXPECT_EQ(tok.eos(), 128001);
  EXPECT_FALSE(tok.add_bos_default());  // its post-processor adds no BOS
  EXPECT_EQ(tok.token_type(128009), wasmlm::TokenType::Control);  // <|eot_id|>
  std::vector<std::string> cases;
  std::vector<std::vector<int32_t>> expected;
  const std::string base = testdata_dir() + "/tokenizers/llamacpp-vocab/ggml-vocab-llama-bpe.gguf";
  cases = read_vocab_cases(base + ".inp");
  expected = read_vocab_ids(base + ".out");
  ASSERT_EQ(cases.size(), expected.size());
  ASSERT_GT(cases.size(), 10u);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(tok.encode(cases[i], plain()), expected[i]) << "case " << i << " [" << cases[i] << "]";
  }
}

// GPT-NeoX-20B: a ByteLevel pre-tokenizer with GPT-2's regex; its vocabulary
// must be what llama.cpp's converter made of the same tokenizer.
TEST(TokenizerFileHfJson, GptNeoxMatchesLlamaCppGgufVocab) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer tok = open_file("tokenizers/gpt-neox-20b/20B_tokenizer.json");
  EXPECT_EQ(tok.pre(), "gpt-2");
  const Tokenizer gguf = gguf_tokenizer("tokenizers/llamacpp-vocab/ggml-vocab-gpt-neox.gguf");
  // The GGUF is padded to the model's 50432 rows with [PAD<id>] tokens.
  ASSERT_LE(tok.n_vocab(), gguf.n_vocab());
  for (size_t i = tok.n_vocab(); i < gguf.n_vocab(); ++i)
    EXPECT_EQ(gguf.token_text(static_cast<int32_t>(i)), "[PAD" + std::to_string(i) + "]");
  int differ = 0;
  for (size_t i = 0; i < tok.n_vocab(); ++i) {
    const int32_t id = static_cast<int32_t>(i);
    if (tok.token_text(id) != gguf.token_text(id) || tok.token_type(id) != gguf.token_type(id)) {
      if (++differ < 5)
        ADD_FAILURE() << "token " << id << ": [" << tok.token_text(id) << "] type " << int(tok.token_type(id))
                      << " vs GGUF [" << gguf.token_text(id) << "] type " << int(gguf.token_type(id));
    }
  }
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(tok.bos(), gguf.bos());
  EXPECT_EQ(tok.eos(), gguf.eos());
}

// ------------------------------------------------------------- errors ----

TEST(TokenizerFileErrors, TruncatedSentencePieceModelIsTruncatedWithOffset) {
  WASMLM_REQUIRE_TESTDATA();
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(testdata_dir() + "/tokenizers/torchtune-small/m.model");
  for (size_t cut : {size_t(1), size_t(5), bytes.size() / 2, bytes.size() - 1}) {
    const wasmlm::Error e = error_of([&] { wasmlm::tokenizer_from_file(bytes.data(), cut); });
    EXPECT_EQ(e.code(), ErrorCode::Truncated) << "cut at " << cut << ": " << e.what();
    EXPECT_NE(e.offset(), wasmlm::kNoOffset);
    EXPECT_LE(e.offset(), cut);
  }
}

TEST(TokenizerFileErrors, HostileProtobufLengthsAreRejectedWithoutAllocating) {
  // A piece declaring 2^62 bytes; a 20-byte varint; a group.
  const std::string huge = std::string("\x0A\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x3F", 10) + "abc";
  EXPECT_EQ(error_of([&] { wasmlm::read_sentencepiece_model(huge); }).code(), ErrorCode::Truncated);
  const std::string long_varint = "\x0A" + std::string(20, '\xFF');
  EXPECT_EQ(error_of([&] { wasmlm::read_sentencepiece_model(long_varint); }).code(), ErrorCode::BadFormat);
  EXPECT_EQ(error_of([&] { wasmlm::read_sentencepiece_model(std::string("\x0B", 1)); }).code(), ErrorCode::Unsupported);
  // A well-formed message with no pieces.
  EXPECT_EQ(error_of([&] { wasmlm::read_sentencepiece_model(std::string("\x10\x01", 2)); }).code(), ErrorCode::BadFormat);
}

// Found by fuzzing: a BYTE piece that is not <0xNN> decodes as its text.
TEST(TokenizerFileErrors, MalformedBytePieceDecodesAsText) {
  auto piece = [](const std::string& text, char type) {
    const std::string body = "\x0A" + std::string(1, static_cast<char>(text.size())) + text + "\x18" + type;
    return "\x0A" + std::string(1, static_cast<char>(body.size())) + body;
  };
  // pieces <unk> (UNKNOWN), <s>, </s> (CONTROL), <0xZZ> (BYTE); trainer_spec model_type BPE.
  const std::string model = piece("<unk>", 2) + piece("<s>", 3) + piece("</s>", 3) + piece("<0xZZ>", 6) +
                            std::string("\x12\x02\x18\x02", 4);
  const Tokenizer tok = Tokenizer::from_metadata(wasmlm::read_sentencepiece_model(model).to_metadata());
  EXPECT_EQ(tok.token_type(3), wasmlm::TokenType::Byte);
  EXPECT_EQ(tok.decode({3}), "<0xZZ>");
}

TEST(TokenizerFileErrors, GarbageJsonIsBadFormatWithOffset) {
  const std::string garbage = "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0,,}}}";
  const wasmlm::Error e = error_of([&] {
    wasmlm::tokenizer_from_file(reinterpret_cast<const uint8_t*>(garbage.data()), garbage.size());
  });
  EXPECT_EQ(e.code(), ErrorCode::BadFormat);
  EXPECT_EQ(e.offset(), garbage.find(",,") + 1);
  // A number out of a double's range (found by fuzzing: nlohmann throws out_of_range).
  EXPECT_EQ(error_of([&] { wasmlm::read_hf_tokenizer_json("{\"normalizer\": 1E999999}"); }).code(), ErrorCode::BadFormat);
  // Valid JSON, wrong shape.
  EXPECT_EQ(error_of([&] { wasmlm::read_hf_tokenizer_json("{\"model\": 3}"); }).code(), ErrorCode::BadFormat);
  EXPECT_EQ(error_of([&] { wasmlm::read_hf_tokenizer_json("{\"model\": {\"type\": \"WordPiece\"}}"); }).code(),
            ErrorCode::Unsupported);
  // A token id far past the vocabulary is refused, not allocated.
  const std::string far =
      "{\"pre_tokenizer\": {\"type\": \"ByteLevel\"}, \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 4000000000}, "
      "\"merges\": []}}";
  EXPECT_EQ(error_of([&] { wasmlm::read_hf_tokenizer_json(far); }).code(), ErrorCode::BadFormat);
}

TEST(TokenizerFileErrors, UnknownPreTokenizerRegexIsUnsupported) {
  const std::string json =
      "{\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": {\"Regex\": "
      "\"\\\\w+\"}, \"behavior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", \"use_regex\": false}]}, "
      "\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}";
  const wasmlm::Error e = error_of([&] { wasmlm::read_hf_tokenizer_json(json); });
  EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  EXPECT_NE(std::string(e.what()).find("\\w+"), std::string::npos) << e.what();
}

TEST(TokenizerFileErrors, BadBase64LineNamesLineAndOffset) {
  const std::string text = "IQ== 0\nIg== 1\nI*== 2\n";
  const wasmlm::Error e = error_of([&] {
    wasmlm::tokenizer_from_file(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  });
  EXPECT_EQ(e.code(), ErrorCode::BadFormat);
  EXPECT_EQ(e.offset(), 14u);
  EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  EXPECT_EQ(error_of([&] { wasmlm::read_tiktoken("IQ== 0\nIg== 5\n"); }).code(), ErrorCode::BadFormat);
  EXPECT_EQ(error_of([&] { wasmlm::read_tiktoken("IQ== 0\nIQ== 1\n"); }).code(), ErrorCode::BadFormat);
  EXPECT_EQ(error_of([&] { wasmlm::read_tiktoken("IQ== 0\nIg==\n"); }).code(), ErrorCode::BadFormat);
}

TEST(TokenizerFileErrors, UnknownBytesAreBadFormat) {
  const std::string text = "hello, world";
  EXPECT_EQ(wasmlm::detect_tokenizer_file(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
            TokenizerFileFormat::Unknown);
  EXPECT_EQ(error_of([&] {
              wasmlm::tokenizer_from_file(reinterpret_cast<const uint8_t*>(text.data()), text.size());
            }).code(),
            ErrorCode::BadFormat);
  EXPECT_EQ(error_of([&] { wasmlm::tokenizer_from_file(nullptr, 0); }).code(), ErrorCode::BadFormat);
}
