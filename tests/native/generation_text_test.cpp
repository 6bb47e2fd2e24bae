// Generated ids -> shown text on real vocabularies: stop strings split over
// tokens, end-of-generation tokens, characters split over byte tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format/incremental_parser.h"
#include "generated_vocab.h"
#include "sampling/generation_text.h"
#include "testdata.h"

using namespace wasmlm;

namespace {

Tokenizer vocab(const std::string& relative) {
  const std::vector<uint8_t> bytes = wasmlm_test::read_file(wasmlm_test::testdata_dir() + "/" + relative);
  return Tokenizer::from_model_file(read_model_directory(bytes.size(), read_from_memory(bytes.data(), bytes.size())));
}

// Pushes every id; returns the shown text and the stop reason.
std::pair<std::string, StopReason> stream(const Tokenizer& tok, const std::vector<int32_t>& ids, StopParams params) {
  GenerationText gen(tok, std::move(params));
  std::string shown;
  for (int32_t id : ids) {
    StopChecker::Step step = gen.push(id);
    shown += step.text;
    if (step.reason != StopReason::None) return {shown, step.reason};
  }
  return {shown + gen.flush(), StopReason::None};
}

}  // namespace

TEST(GenerationText, StopsAtAStopStringSplitOverTokensAndNeverShowsIt) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer tok = vocab("llama/stories260K/stories260K.gguf");
  const std::vector<int32_t> ids = tok.encode("Once upon a time there was a dog. The end");
  const std::string full = tok.decode(ids);
  StopParams params;
  params.stop_strings = {"was a d"};
  auto [shown, reason] = stream(tok, ids, params);
  EXPECT_EQ(reason, StopReason::StopString);
  EXPECT_EQ(shown, full.substr(0, full.find("was a d")));
  // Without stop strings everything shows, the same as decode().
  EXPECT_EQ(stream(tok, ids, {}).first, full);
}

TEST(GenerationText, EndOfGenerationTokensOfTheVocabularyStopWithoutText) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer spm = vocab("llama/stories260K/stories260K.gguf");
  EXPECT_EQ(spm.end_of_generation(), std::vector<int32_t>{spm.eos()});
  // Phi-3's chat turns end with <|end|>: a stop token besides EOS.
  const Tokenizer phi3 = vocab("tokenizers/llamacpp-vocab/ggml-vocab-phi-3.gguf");
  const std::vector<int32_t> eog = phi3.end_of_generation();
  EXPECT_NE(std::find(eog.begin(), eog.end(), phi3.find_token("<|end|>")), eog.end());
  EXPECT_EQ(eog.front(), phi3.eos());
  std::vector<int32_t> ids = spm.encode("Hello");
  ids.push_back(spm.eos());
  ids.push_back(spm.encode("world").front());
  StopParams params;
  params.stop_tokens = spm.end_of_generation();
  auto [shown, reason] = stream(spm, ids, params);
  EXPECT_EQ(reason, StopReason::StopToken);
  EXPECT_EQ(shown, "Hello");
}

TEST(GenerationText, ACharacterSplitOverByteTokensShowsWhole) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer tok = vocab("llama/stories260K/stories260K.gguf");
  const std::vector<int32_t> ids = tok.encode("hi \xF0\x9F\x98\x80");  // "hi 😀": the emoji is 4 byte tokens
  GenerationText gen(tok, {});
  std::string shown;
  for (int32_t id : ids) {
    const std::string piece = gen.push(id).text;
    // Every piece is whole UTF-8: no lone continuation byte at its start.
    if (!piece.empty()) EXPECT_NE(static_cast<unsigned char>(piece[0]) & 0xC0, 0x80);
    shown += piece;
  }
  EXPECT_EQ(shown + gen.flush(), tok.decode(ids));
  // Cut mid-character: the unfinished one comes out as U+FFFD.
  GenerationText cut(tok, {});
  std::string partial;
  for (size_t i = 0; i + 1 < ids.size(); ++i) partial += cut.push(ids[i]).text;
  EXPECT_EQ(partial + cut.flush(), "hi \xEF\xBF\xBD");
}

TEST(GenerationText, MaxTokensEndsTheStream) {
  WASMLM_REQUIRE_TESTDATA();
  const Tokenizer tok = vocab("llama/stories260K/stories260K.gguf");
  const std::vector<int32_t> ids = tok.encode("Once upon a time there was");
  StopParams params;
  params.max_tokens = 3;
  auto [shown, reason] = stream(tok, ids, params);
  EXPECT_EQ(reason, StopReason::MaxTokens);
  EXPECT_EQ(shown, tok.decode({ids[0], ids[1], ids[2]}));
}

// Generated ids after a prompt show what native llama.cpp shows
// (tests/reference/tokenizers/record-generation-text.js): its detokenization
// of prompt + generated ids minus the prompt's. SentencePiece pieces keep
// their leading space (only a sequence's first token loses it: "Once upon a"
// + "▁time" shows " time"), and a character the prompt began shows whole.
TEST(GenerationText, AfterAPromptShowsWhatLlamaCppShows) {
  WASMLM_REQUIRE_TESTDATA();
  const nlohmann::json ref = nlohmann::json::parse(
      wasmlm_test::read_text(wasmlm_test::reference_dir() + "/tokenizers/generation-text.json"));
  int checked = 0, split = 0;
  for (const auto& [name, v] : ref["vocabs"].items()) {
    SCOPED_TRACE(name);
    const std::string file = v["file"];
    std::string path;
    if (file.rfind("generated:", 0) == 0) {
      WASMLM_REQUIRE_FILE(generated, wasmlm_test::generated_vocab_gguf(file.substr(10), &why_));
      path = generated;
    } else {
      path = wasmlm_test::testdata_dir() + "/" + file;
    }
    const std::vector<uint8_t> bytes = wasmlm_test::read_file(path);
    const Tokenizer tok =
        Tokenizer::from_model_file(read_model_directory(bytes.size(), read_from_memory(bytes.data(), bytes.size())));
    for (const auto& c : v["cases"]) {
      const std::vector<int32_t> prompt = c["prompt_ids"].get<std::vector<int32_t>>();
      SCOPED_TRACE(tok.decode(prompt));
      GenerationText gen(tok, {}, prompt);
      std::string shown;
      for (int32_t id : c["generated_ids"].get<std::vector<int32_t>>()) shown += gen.push(id).text;
      EXPECT_EQ(shown + gen.flush(), c["shown"].get<std::string>());
      ++checked;
      split += (static_cast<unsigned char>(tok.decode(prompt).back()) == 0xBD);  // ends in U+FFFD
    }
  }
  EXPECT_GE(checked, 40);
  EXPECT_GE(split, 10);  // prompts ending inside a character
}
