// StopChecker: stop tokens, stop strings (whole or split over pieces),
// hold-back of text that may begin a stop string, and max tokens.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sampling/stop_checker.h"

namespace wasmlm_test {
namespace {

using wasmlm::StopChecker;
using wasmlm::StopParams;
using wasmlm::StopReason;

constexpr int32_t kText = 100;  // any token that is not a stop token
constexpr int32_t kEos = 2;

StopParams stops(std::vector<std::string> strings, int32_t max_tokens = -1) {
  StopParams p;
  p.stop_strings = std::move(strings);
  p.stop_tokens = {kEos, 128009};
  p.max_tokens = max_tokens;
  return p;
}

// Pushes the pieces; returns what was emitted after each one.
std::vector<std::string> feed(StopChecker& checker, const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  for (const std::string& piece : pieces) out.push_back(checker.push(kText, piece).text);
  return out;
}

TEST(SamplerStopChecker, TextWithoutStopStringsIsEmittedAtOnce) {
  StopChecker c(stops({}));
  EXPECT_EQ(feed(c, {"Hello", " world", "!"}), (std::vector<std::string>{"Hello", " world", "!"}));
  EXPECT_FALSE(c.done());
  EXPECT_EQ(c.n_tokens(), 3);
}

TEST(SamplerStopChecker, StopTokenEndsGenerationWithoutItsText) {
  StopChecker c(stops({}));
  feed(c, {"Hi"});
  const StopChecker::Step step = c.push(kEos, "</s>");
  EXPECT_EQ(step.reason, StopReason::StopToken);
  EXPECT_EQ(step.text, "");
  EXPECT_TRUE(c.done());
  StopChecker eot(stops({}));
  EXPECT_EQ(eot.push(128009, "<|eot_id|>").reason, StopReason::StopToken);
  EXPECT_TRUE(eot.is_stop_token(kEos));
  EXPECT_FALSE(eot.is_stop_token(kText));
}

TEST(SamplerStopChecker, StopTokenReleasesTextHeldBackForAPossibleStopString) {
  StopChecker c(stops({"###"}));
  EXPECT_EQ(c.push(kText, "a#").text, "a");
  const StopChecker::Step step = c.push(kEos, "");
  EXPECT_EQ(step.reason, StopReason::StopToken);
  EXPECT_EQ(step.text, "#");
}

TEST(SamplerStopChecker, StopStringInsideOnePieceCutsTheTextBeforeIt) {
  StopChecker c(stops({"###"}));
  const StopChecker::Step step = c.push(kText, "Hello###world");
  EXPECT_EQ(step.reason, StopReason::StopString);
  EXPECT_EQ(step.text, "Hello");
  EXPECT_EQ(c.matched_stop_string(), 0);
}

TEST(SamplerStopChecker, StopStringSplitAcrossPiecesIsFound) {
  StopChecker c(stops({"<|im_end|>"}));
  EXPECT_EQ(c.push(kText, "Hel").text, "Hel");
  EXPECT_EQ(c.push(kText, "lo <|im").text, "lo ");  // "<|im" may start the stop string
  EXPECT_EQ(c.held_back(), "<|im");
  EXPECT_EQ(c.push(kText, "_e").text, "");
  const StopChecker::Step step = c.push(kText, "nd|> ignored");
  EXPECT_EQ(step.reason, StopReason::StopString);
  EXPECT_EQ(step.text, "");
  EXPECT_EQ(c.n_tokens(), 4);
}

TEST(SamplerStopChecker, HeldBackPrefixIsReleasedWhenTheTextGoesAnotherWay) {
  StopChecker c(stops({"</s>"}));
  EXPECT_EQ(c.push(kText, "a <").text, "a ");
  EXPECT_EQ(c.push(kText, "/").text, "");
  EXPECT_EQ(c.push(kText, "b>").text, "</b>");
  EXPECT_FALSE(c.done());
  EXPECT_EQ(c.held_back(), "");
}

TEST(SamplerStopChecker, HoldsBackTheLongestTailThatCouldStartAnyStopString) {
  StopChecker c(stops({"\n\nUser:", "END"}));
  EXPECT_EQ(c.push(kText, "ok\n\nUs").text, "ok");
  EXPECT_EQ(c.held_back(), "\n\nUs");
  EXPECT_EQ(c.push(kText, "ed EN").text, "\n\nUsed ");
  EXPECT_EQ(c.held_back(), "EN");
  const StopChecker::Step step = c.push(kText, "D");
  EXPECT_EQ(step.reason, StopReason::StopString);
  EXPECT_EQ(c.matched_stop_string(), 1);
}

TEST(SamplerStopChecker, TheEarliestStopStringWins) {
  StopChecker c(stops({"world", "lo w", "o"}));
  const StopChecker::Step step = c.push(kText, "Hello world");
  EXPECT_EQ(step.text, "Hel");  // "lo w" starts at 3, before "o" (4) and "world" (6)
  EXPECT_EQ(c.matched_stop_string(), 1);
  StopChecker same_start(stops({"ab", "abc"}));
  EXPECT_EQ(same_start.push(kText, "xabc").text, "x");
  EXPECT_EQ(same_start.matched_stop_string(), 1);
}

TEST(SamplerStopChecker, MultiByteCharactersAreNeverCut) {
  StopChecker c(stops({"é!"}));
  EXPECT_EQ(c.push(kText, "caf").text, "caf");
  EXPECT_EQ(c.push(kText, "é").text, "");  // both bytes held back
  EXPECT_EQ(c.held_back(), "é");
  EXPECT_EQ(c.push(kText, "é").text, "é");
  EXPECT_EQ(c.push(kText, "!").reason, StopReason::StopString);
}

TEST(SamplerStopChecker, MaxTokensStopsAfterTheNthTokenAndEmitsEverything) {
  StopChecker c(stops({"STOP"}, 3));
  EXPECT_EQ(c.push(kText, "a").text, "a");
  EXPECT_EQ(c.push(kText, "b").text, "b");
  const StopChecker::Step step = c.push(kText, "cST");
  EXPECT_EQ(step.reason, StopReason::MaxTokens);
  EXPECT_EQ(step.text, "cST");  // no further token can complete "STOP"
}

TEST(SamplerStopChecker, ZeroMaxTokensIsDoneBeforeAnyToken) {
  StopChecker c(stops({}, 0));
  EXPECT_TRUE(c.done());
  EXPECT_EQ(c.reason(), StopReason::MaxTokens);
}

TEST(SamplerStopChecker, PushAfterAStopReturnsTheReasonAndNoText) {
  StopChecker c(stops({"x"}));
  c.push(kText, "ax");
  const StopChecker::Step step = c.push(kText, "more");
  EXPECT_EQ(step.reason, StopReason::StopString);
  EXPECT_EQ(step.text, "");
  EXPECT_EQ(c.n_tokens(), 1);
}

TEST(SamplerStopChecker, FlushReturnsHeldBackText) {
  StopChecker c(stops({"<end>"}));
  EXPECT_EQ(c.push(kText, "done <e").text, "done ");
  EXPECT_EQ(c.flush(), "<e");
  EXPECT_EQ(c.held_back(), "");
}

TEST(SamplerStopChecker, EmptyStopStringsAreIgnored) {
  StopChecker c(stops({""}));
  EXPECT_EQ(c.push(kText, "abc").text, "abc");
  EXPECT_FALSE(c.done());
}

TEST(SamplerStopChecker, ResetStartsAgain) {
  StopChecker c(stops({"x"}, 5));
  c.push(kText, "x");
  ASSERT_TRUE(c.done());
  c.reset();
  EXPECT_FALSE(c.done());
  EXPECT_EQ(c.n_tokens(), 0);
  EXPECT_EQ(c.matched_stop_string(), -1);
  EXPECT_EQ(c.push(kText, "ab").text, "ab");
}

TEST(SamplerStopChecker, ReasonsHaveNames) {
  EXPECT_STREQ(wasmlm::stop_reason_name(StopReason::StopString), "stop_string");
  EXPECT_STREQ(wasmlm::stop_reason_name(StopReason::MaxTokens), "max_tokens");
}

}  // namespace
}  // namespace wasmlm_test
