// Tokenizer building blocks on synthetic input (no test data needed): the
// pre-tokenizer regex engine, Unicode categories, a tiny SentencePiece
// vocabulary and the streaming detokenizer.
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/metadata.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/regex_split.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

using namespace wasmlm;

namespace {

std::vector<std::string> split(const std::string& text, const std::vector<std::string>& patterns) {
  std::vector<Regex> regexes;
  for (const auto& p : patterns) regexes.emplace_back(p);
  const std::vector<uint32_t> cpts = utf8_to_cpts(text);
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t len : regex_split(cpts, regexes)) {
    words.push_back(cpts_to_utf8(cpts, start, start + len));
    start += len;
  }
  return words;
}

std::vector<std::string> split_pre(const std::string& text, const std::string& pre) {
  return split(text, pre_tokenizer_spec(pre).regexes);
}

using Words = std::vector<std::string>;

MetaValue strings(std::vector<std::string> v) {
  MetaArray a;
  a.elem_type = MetaType::String;
  a.count = v.size();
  a.strings = std::move(v);
  return MetaValue::of_array(std::move(a));
}

template <typename T>
MetaValue numbers(MetaType type, const std::vector<T>& v) {
  MetaArray a;
  a.elem_type = type;
  a.count = v.size();
  a.packed.resize(v.size() * sizeof(T));
  std::memcpy(a.packed.data(), v.data(), a.packed.size());
  return MetaValue::of_array(std::move(a));
}

// <unk> <s> </s>, the 256 byte tokens, then a few pieces.
Tokenizer tiny_spm() {
  std::vector<std::string> tokens{"<unk>", "<s>", "</s>"};
  std::vector<int32_t> types{2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    tokens.push_back(buf);
    types.push_back(6);
  }
  for (const char* piece : {"\xE2\x96\x81", "h", "i", "\xE2\x96\x81h", "\xE2\x96\x81hi"}) {
    tokens.push_back(piece);
    types.push_back(1);
  }
  std::vector<float> scores(tokens.size(), 0.0f);
  scores[tokens.size() - 2] = -2.0f;
  scores[tokens.size() - 1] = -1.0f;
  Metadata md;
  md.add("tokenizer.ggml.model", MetaValue::of_string("llama"));
  md.add("tokenizer.ggml.tokens", strings(tokens));
  md.add("tokenizer.ggml.scores", numbers(MetaType::F32, scores));
  md.add("tokenizer.ggml.token_type", numbers(MetaType::I32, types));
  return Tokenizer::from_metadata(md);
}

}  // namespace

TEST(TokenizerUnicode, CategoriesFollowUnicode) {
  EXPECT_TRUE(cpt_flags('a').is_letter());
  EXPECT_TRUE(cpt_flags(0x4E00).is_letter());      // 一
  EXPECT_TRUE(cpt_flags('7').is_number());
  EXPECT_TRUE(cpt_flags(0x00BD).is_number());      // ½
  EXPECT_TRUE(cpt_flags('!').is_punctuation());
  EXPECT_TRUE(cpt_flags('$').is_symbol());
  EXPECT_TRUE(cpt_flags(0x1F680).is_symbol());     // 🚀
  EXPECT_TRUE(cpt_flags(0x0301).is_mark());
  EXPECT_TRUE(cpt_flags(' ').whitespace);
  EXPECT_TRUE(cpt_flags(0x3000).whitespace);
  EXPECT_FALSE(cpt_flags(0x1C).whitespace);        // not White_Space
  EXPECT_FALSE(cpt_flags(0x200B).whitespace);      // zero width space is Cf
  EXPECT_EQ(cpt_flags(0x10FFFF).category, CptCategory::Undefined);
}

TEST(TokenizerUnicode, Gpt2ByteMapIsABijection) {
  for (int b = 0; b < 256; ++b) EXPECT_EQ(gpt2_cpt_to_byte(gpt2_byte_to_cpt(static_cast<uint8_t>(b))), b);
  EXPECT_EQ(gpt2_byte_to_cpt(' '), 0x120u);  // Ġ
  EXPECT_EQ(gpt2_byte_to_cpt('\n'), 0x10Au);  // Ċ
  EXPECT_EQ(gpt2_byte_to_cpt('a'), static_cast<uint32_t>('a'));
}

TEST(TokenizerRegex, Gpt2PatternSplitsContractionsWordsAndSpaces) {
  EXPECT_EQ(split_pre("Hello world's  123 ok!!\n", "gpt-2"),
            (Words{"Hello", " world", "'s", " ", " 123", " ok", "!!", "\n"}));
}

TEST(TokenizerRegex, Llama3PatternGroupsThreeDigitsAndNewlines) {
  EXPECT_EQ(split_pre("I'M 12345\n\n  x", "llama-bpe"), (Words{"I", "'M", " ", "123", "45", "\n\n", " ", " x"}));
}

TEST(TokenizerRegex, SequentialPatternsSplitEachPiece) {
  // starcoder: digits alone first, then GPT-2's pattern inside each piece.
  EXPECT_EQ(split_pre("a 12b", "starcoder"), (Words{"a", " ", "1", "2", "b"}));
  // falcon: runs of punctuation/symbols split off first.
  EXPECT_EQ(split_pre("x+=1", "falcon"), (Words{"x", "+=", "1"}));
}

TEST(TokenizerRegex, Gpt4oPatternSplitsCaseRuns) {
  EXPECT_EQ(split_pre("HelloWORLD isn't 1234", "gpt-4o"),
            (Words{"Hello", "WORLD", " isn't", " ", "123", "4"}));
}

TEST(TokenizerRegex, EveryKnownPreTokenizerCompiles) {
  for (const char* pre : {"default", "llama-bpe", "deepseek-llm", "deepseek-coder", "falcon", "mpt", "starcoder",
                          "refact", "qwen2", "smollm", "gpt-4o", "tekken", "bloom", "viking", "command-r"}) {
    const PreTokenizerSpec spec = pre_tokenizer_spec(pre);
    EXPECT_TRUE(spec.known) << pre;
    for (const auto& r : spec.regexes) EXPECT_NO_THROW(Regex{r}) << pre << ": " << r;
  }
  EXPECT_FALSE(pre_tokenizer_spec("no-such-pre").known);
}

TEST(TokenizerRegex, UnsupportedSyntaxIsATypedError) {
  try {
    Regex r("(?<=a)b");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  }
}

TEST(TokenizerRegex, LongInputSplitsInLinearishTime) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "word, 123 ";
  text += std::string(5000, ' ');
  const auto t0 = std::chrono::steady_clock::now();
  const auto words = split_pre(text, "llama-bpe");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(words.size(), 20000u * 4 + 1);
  EXPECT_LT(s, 5.0);
}

TEST(TokenizerSpm, MergesByScoreAndFallsBackToBytes) {
  const Tokenizer tok = tiny_spm();
  const int32_t hi = static_cast<int32_t>(tok.n_vocab()) - 1;
  // " hi" -> "▁hi" (one token); "€" is not a piece -> its three UTF-8 bytes.
  EXPECT_EQ(tok.encode("hi"), (std::vector<int32_t>{hi}));
  EXPECT_EQ(tok.encode("€"), (std::vector<int32_t>{tok.find_token("\xE2\x96\x81"), 3 + 0xE2, 3 + 0x82, 3 + 0xAC}));
  EncodeOptions bos;
  bos.add_bos = true;
  EXPECT_EQ(tok.encode("hi", bos), (std::vector<int32_t>{1, hi}));
  EXPECT_EQ(tok.decode({1, hi}), "hi");
  EXPECT_EQ(tok.decode(tok.encode("hi €hi")), "hi €hi");
}

TEST(TokenizerStream, HoldsIncompleteUtf8UntilComplete) {
  const Tokenizer tok = tiny_spm();
  StreamingDetokenizer stream(tok);
  EXPECT_EQ(stream.push(3 + 0xE2), "");
  EXPECT_EQ(stream.push(3 + 0x82), "");
  EXPECT_EQ(stream.push(3 + 0xAC), "\xE2\x82\xAC");
  // An invalid byte comes out as U+FFFD; an unfinished one at the end too.
  EXPECT_EQ(stream.push(3 + 0xFF), "\xEF\xBF\xBD");
  EXPECT_EQ(stream.push(3 + 0xE2), "");
  EXPECT_EQ(stream.push(3 + 'a'), "\xEF\xBF\xBD" "a");
  EXPECT_EQ(stream.push(3 + 0xF0), "");
  EXPECT_EQ(stream.flush(), "\xEF\xBF\xBD");
  EXPECT_EQ(stream.flush(), "");
}

TEST(TokenizerSpm, RejectsUnsupportedModels) {
  Metadata md;
  md.add("tokenizer.ggml.model", MetaValue::of_string("bert"));
  md.add("tokenizer.ggml.tokens", strings({"a"}));
  try {
    Tokenizer::from_metadata(md);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  }
}
