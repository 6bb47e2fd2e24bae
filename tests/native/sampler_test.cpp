// The sampler chain: greedy, logit bias, penalties, top-k, top-p, min-p,
// temperature and the seeded draw, each checked on small hand-made logits
// (exact candidate sets and adjusted logits) and by empirical frequencies
// over many seeded draws. The RNG's first outputs and a short sampled
// sequence are pinned so that the wasm build can be held to the same values.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "sampling/rng.h"
#include "sampling/sampler.h"

namespace wasmlm_test {
namespace {

using wasmlm::Candidate;
using wasmlm::ErrorCode;
using wasmlm::Rng;
using wasmlm::Sampler;
using wasmlm::SamplingParams;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Every filter off, temperature 1: draws follow softmax(logits).
SamplingParams plain(uint64_t seed = 1) {
  SamplingParams p;
  p.temperature = 1.0f;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.min_p = 0.0f;
  p.seed = seed;
  return p;
}

std::vector<double> softmax(const std::vector<float>& logits, double temperature = 1.0) {
  double max = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0;
  for (size_t i = 0; i < logits.size(); ++i) sum += p[i] = std::exp((logits[i] - max) / temperature);
  for (double& v : p) v /= sum;
  return p;
}

std::vector<double> frequencies(Sampler& s, const std::vector<float>& logits, int draws) {
  std::vector<double> f(logits.size(), 0.0);
  for (int i = 0; i < draws; ++i) f[static_cast<size_t>(s.sample(logits.data()))] += 1.0 / draws;
  return f;
}

std::set<int32_t> candidate_ids(const Sampler& s) {
  std::set<int32_t> ids;
  for (const Candidate& c : s.candidates()) ids.insert(c.id);
  return ids;
}

// Logits whose softmax is exactly `probs` (up to float rounding).
std::vector<float> logits_for(const std::vector<double>& probs) {
  std::vector<float> l;
  for (double p : probs) l.push_back(p > 0 ? static_cast<float>(std::log(p)) : -kInf);
  return l;
}

// --------------------------------------------------------------- RNG ----

TEST(SamplerRng, SplitMix64MatchesThePublishedSequenceForSeedZero) {
  uint64_t state = 0;
  EXPECT_EQ(wasmlm::splitmix64_next(state), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(wasmlm::splitmix64_next(state), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(wasmlm::splitmix64_next(state), 0x06C45D188009454Full);
}

TEST(SamplerRng, FirstValuesArePinnedSoNativeAndWasmAgree) {
  Rng zero(0);
  EXPECT_EQ(zero.next_u64(), 0x99EC5F36CB75F2B4ull);
  EXPECT_EQ(zero.next_u64(), 0xBF6E1F784956452Aull);
  EXPECT_EQ(zero.next_u64(), 0x1A5F849D4933E6E0ull);
  EXPECT_EQ(zero.next_u64(), 0x6AA594F1262D2D2Cull);
  Rng answer(42);
  EXPECT_EQ(answer.next_u64(), 0x15780B2E0C2EC716ull);
  EXPECT_EQ(answer.next_u64(), 0x6104D9866D113A7Eull);
  Rng uniform(42);
  EXPECT_EQ(uniform.next_double(), static_cast<double>(0x15780B2E0C2EC716ull >> 11) * 0x1.0p-53);
  EXPECT_EQ(uniform.next_float(), static_cast<float>(0x6104D9866D113A7Eull >> 40) * 0x1.0p-24f);
}

TEST(SamplerRng, UniformDrawsStayInUnitIntervalWithMeanOneHalf) {
  Rng rng(7);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.next_double();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
}

TEST(SamplerRng, ReseedRestartsTheSequence) {
  Rng rng(99);
  const uint64_t first = rng.next_u64();
  rng.next_u64();
  rng.reseed(99);
  EXPECT_EQ(rng.next_u64(), first);
}

TEST(SamplerRng, PortableExpIsCloseToStdExp) {
  for (float x = -86.5f; x <= 0.0f; x += 0.01953125f) {
    const double want = std::exp(static_cast<double>(x));
    EXPECT_NEAR(wasmlm::portable_exp_nonpositive(x) / want, 1.0, 3e-7) << x;
  }
  EXPECT_EQ(wasmlm::portable_exp_nonpositive(0.0f), 1.0f);
  EXPECT_EQ(wasmlm::portable_exp_nonpositive(-87.5f), 0.0f);  // below float's normal range
  EXPECT_EQ(wasmlm::portable_exp_nonpositive(-kInf), 0.0f);
  EXPECT_EQ(wasmlm::portable_exp_nonpositive(std::nanf("")), 0.0f);
}

// ------------------------------------------------------------ greedy ----

TEST(Sampler, GreedyPicksArgmaxLowestIdOnTies) {
  SamplingParams p;
  p.temperature = 0.0f;
  Sampler s(6, p);
  const std::vector<float> logits = {0.5f, 3.0f, -1.0f, 3.0f, 2.9f, 3.0f};
  EXPECT_EQ(s.sample(logits.data()), 1);
  EXPECT_TRUE(s.candidates().empty());
  p.temperature = -1.0f;  // negative is greedy too
  Sampler negative(6, p);
  EXPECT_EQ(negative.sample(logits.data()), 1);
}

TEST(Sampler, GreedyIsTheFirstArgmaxForEveryVocabularySizeAndPosition) {
  // Sizes around the SIMD width and a real vocabulary's; the maximum (twice,
  // the later copy first in its lane) at every kind of position.
  SamplingParams p;
  p.temperature = 0.0f;
  for (const int n : {1, 2, 3, 4, 5, 7, 8, 9, 32003}) {
    std::vector<float> logits(static_cast<size_t>(n));
    Rng rng(static_cast<uint64_t>(n));
    for (float& l : logits) l = static_cast<float>(rng.next_double() * 8.0 - 4.0);
    for (const int at : {0, 1, n / 2, n - 4, n - 2, n - 1}) {
      if (at < 0 || at >= n) continue;
      std::vector<float> v = logits;
      v[static_cast<size_t>(at)] = 9.0f;
      if (at + 5 < n) v[static_cast<size_t>(at + 5)] = 9.0f;  // a tie later: the lower id wins
      Sampler s(n, p);
      ASSERT_EQ(s.sample(v.data()), at) << "n " << n;
      v[static_cast<size_t>(at)] = -9.0f;  // now the other copy, or the random maximum
      Sampler again(n, p);
      const int expected = static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
      ASSERT_EQ(again.sample(v.data()), expected) << "n " << n << " at " << at;
    }
  }
}

TEST(Sampler, GreedyIsTheArgmaxAfterBiasAndPenalties) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.repeat_penalty = 2.0f;
  p.logit_bias = {{2, 0.75f}};
  Sampler s(3, p);
  const std::vector<float> logits = {1.0f, 1.5f, 0.5f};
  EXPECT_EQ(s.sample(logits.data()), 1);
  s.accept(1);  // 1.5 -> 0.75; token 2: 0.5 + 0.75 = 1.25 > token 0's 1.0
  EXPECT_EQ(s.sample(logits.data()), 2);
}

TEST(Sampler, GreedyWithEveryTokenBannedFails) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.logit_bias = {{0, -kInf}, {1, -kInf}};
  Sampler s(2, p);
  const std::vector<float> logits = {1.0f, 2.0f};
  try {
    s.sample(logits.data());
    FAIL() << "expected an error";
  } catch (const wasmlm::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BadFormat);
  }
}

TEST(Sampler, InputLogitsAreLeftUntouched) {
  SamplingParams p = plain();
  p.repeat_penalty = 2.0f;
  p.logit_bias = {{1, -kInf}};
  Sampler s(3, p);
  s.accept(0);
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  std::vector<float> copy = logits;
  s.sample(copy.data());
  EXPECT_EQ(copy, logits);
}

TEST(Sampler, CandidateProbabilitiesSumToOne) {
  SamplingParams p;  // the default chain
  p.seed = 4;
  std::vector<float> logits(1000);
  Rng rng(3);
  for (float& l : logits) l = static_cast<float>(rng.next_double() * 8.0);
  Sampler s(1000, p);
  s.sample(logits.data());
  double sum = 0;
  for (const Candidate& c : s.candidates()) sum += c.p;
  EXPECT_NEAR(sum, 1.0, 1e-5);
}

// --------------------------------------------------------- logit bias ----

TEST(Sampler, LogitBiasAddsToTheLogit) {
  SamplingParams p = plain();
  p.logit_bias = {{0, 1.5f}, {2, -0.25f}};
  Sampler s(3, p);
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  s.sample(logits.data());
  EXPECT_EQ(s.adjusted_logits(), (std::vector<float>{2.5f, 2.0f, 2.75f}));
}

TEST(Sampler, NegativeInfinityBiasBansTheToken) {
  SamplingParams p = plain(3);
  p.logit_bias = {{1, -kInf}};
  Sampler s(3, p);
  const std::vector<float> logits = {0.0f, 5.0f, 0.0f};  // token 1 would win ~99% of draws
  for (int i = 0; i < 2000; ++i) ASSERT_NE(s.sample(logits.data()), 1);
  EXPECT_EQ(candidate_ids(s), (std::set<int32_t>{0, 2}));
}

TEST(Sampler, SamplingWithEveryTokenBannedFails) {
  SamplingParams p = plain();
  p.logit_bias = {{0, -kInf}, {1, -kInf}};
  Sampler s(2, p);
  const std::vector<float> logits = {1.0f, 2.0f};
  EXPECT_THROW(s.sample(logits.data()), wasmlm::Error);
}

TEST(Sampler, NonFiniteLogitsAreATypedErrorThatSaysSo) {
  for (const float bad : {std::nanf(""), kInf, -kInf}) {
    for (const float temperature : {0.0f, 0.8f}) {
      SamplingParams p = plain();
      p.temperature = temperature;
      Sampler s(3, p);
      const std::vector<float> logits = {0.0f, bad, 1.0f};
      try {
        s.sample(logits.data());
        FAIL() << "expected an error for " << bad;
      } catch (const wasmlm::Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::BadFormat);
        EXPECT_NE(std::string(e.what()).find("non-finite logits (1 of 3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("first at token 1"), std::string::npos) << e.what();
      }
    }
  }
}

TEST(Sampler, TokensOutsideTheVocabularyAreRejected) {
  SamplingParams p = plain();
  p.logit_bias = {{3, 1.0f}};
  EXPECT_THROW(Sampler(3, p), wasmlm::Error);
  Sampler s(3, plain());
  EXPECT_THROW(s.accept(3), wasmlm::Error);
  EXPECT_THROW(s.accept(-1), wasmlm::Error);
  SamplingParams bad = plain();
  bad.repeat_penalty = 0.0f;
  EXPECT_THROW(Sampler(3, bad), wasmlm::Error);
}

// ---------------------------------------------------------- penalties ----

TEST(Sampler, RepeatPenaltyDividesPositiveAndMultipliesNonPositiveLogits) {
  SamplingParams p = plain();
  p.repeat_penalty = 2.0f;
  Sampler s(5, p);
  for (int32_t t : {0, 1, 2, 0}) s.accept(t);  // repeats count once for this penalty
  const std::vector<float> logits = {3.0f, -1.5f, 0.0f, 4.0f, -2.0f};
  s.sample(logits.data());
  EXPECT_EQ(s.adjusted_logits(), (std::vector<float>{1.5f, -3.0f, 0.0f, 4.0f, -2.0f}));
}

TEST(Sampler, FrequencyPenaltyScalesWithCountAndPresencePenaltyDoesNot) {
  SamplingParams p = plain();
  p.frequency_penalty = 0.5f;
  p.presence_penalty = 0.25f;
  Sampler s(4, p);
  for (int32_t t : {3, 1, 3, 3}) s.accept(t);
  const std::vector<float> logits = {1.0f, 1.0f, 1.0f, 1.0f};
  s.sample(logits.data());
  // token 1: once -> 1 - 0.5 - 0.25; token 3: three times -> 1 - 1.5 - 0.25
  EXPECT_EQ(s.adjusted_logits(), (std::vector<float>{1.0f, 0.25f, 1.0f, -0.75f}));
}

TEST(Sampler, RepeatPenaltyComesBeforeFrequencyAndPresence) {
  SamplingParams p = plain();
  p.repeat_penalty = 2.0f;
  p.frequency_penalty = 1.0f;
  p.presence_penalty = 0.5f;
  Sampler s(2, p);
  s.accept(0);
  s.accept(0);
  const std::vector<float> logits = {3.0f, 0.0f};
  s.sample(logits.data());
  EXPECT_EQ(s.adjusted_logits()[0], 3.0f / 2.0f - 2.0f - 0.5f);
}

TEST(Sampler, PenaltyWindowForgetsTokensOlderThanLastN) {
  SamplingParams p = plain();
  p.frequency_penalty = 1.0f;
  p.penalty_last_n = 3;
  Sampler s(4, p);
  for (int32_t t : {0, 1, 2, 2, 3}) s.accept(t);  // window: 2 2 3
  const std::vector<float> logits = {0.0f, 0.0f, 0.0f, 0.0f};
  s.sample(logits.data());
  EXPECT_EQ(s.adjusted_logits(), (std::vector<float>{0.0f, 0.0f, -2.0f, -1.0f}));
}

TEST(Sampler, PenaltyLastNMinusOneCountsEveryAcceptedToken) {
  SamplingParams p = plain();
  p.frequency_penalty = 1.0f;
  p.penalty_last_n = -1;
  Sampler s(2, p);
  for (int i = 0; i < 1000; ++i) s.accept(i % 2);
  const std::vector<float> logits = {0.0f, 0.0f};
  s.sample(logits.data());
  EXPECT_EQ(s.adjusted_logits(), (std::vector<float>{-500.0f, -500.0f}));
}

TEST(Sampler, PenaltyLastNZeroTurnsPenaltiesOff) {
  SamplingParams p = plain();
  p.repeat_penalty = 3.0f;
  p.penalty_last_n = 0;
  Sampler s(2, p);
  s.accept(0);
  const std::vector<float> logits = {3.0f, 0.0f};
  s.sample(logits.data());
  EXPECT_EQ(s.adjusted_logits()[0], 3.0f);
}

TEST(Sampler, ResetEmptiesThePenaltyWindowAndRestartsTheSequence) {
  SamplingParams p = plain(5);
  p.frequency_penalty = 1.0f;
  Sampler s(8, p);
  const std::vector<float> logits(8, 0.0f);
  std::vector<int32_t> first, second;
  for (int i = 0; i < 20; ++i) first.push_back(s.sample(logits.data()));
  s.accept(4);
  s.reset();
  for (int i = 0; i < 20; ++i) second.push_back(s.sample(logits.data()));
  EXPECT_EQ(first, second);
  EXPECT_EQ(s.adjusted_logits(), logits);
}

// -------------------------------------------------------------- top-k ----

TEST(Sampler, TopKKeepsOnlyKCandidates) {
  SamplingParams p = plain(11);
  p.top_k = 3;
  Sampler s(6, p);
  const std::vector<float> logits = {1.0f, 4.0f, 2.0f, 3.0f, 2.0f, 0.0f};  // 2 and 4 tie: 2 wins
  s.sample(logits.data());
  ASSERT_EQ(s.candidates().size(), 3u);
  EXPECT_EQ(s.candidates()[0].id, 1);
  EXPECT_EQ(s.candidates()[1].id, 3);
  EXPECT_EQ(s.candidates()[2].id, 2);

  // Empirically: only those three, in softmax proportions among themselves.
  const std::vector<double> f = frequencies(s, logits, 40000);
  const std::vector<double> want = softmax({4.0f, 3.0f, 2.0f});
  EXPECT_NEAR(f[1], want[0], 0.01);
  EXPECT_NEAR(f[3], want[1], 0.01);
  EXPECT_NEAR(f[2], want[2], 0.01);
  EXPECT_EQ(f[0] + f[4] + f[5], 0.0);
}

TEST(Sampler, TopKOfOneIsGreedy) {
  SamplingParams p = plain(2);
  p.top_k = 1;
  Sampler s(4, p);
  const std::vector<float> logits = {1.0f, 1.2f, 1.1f, 0.0f};
  for (int i = 0; i < 200; ++i) ASSERT_EQ(s.sample(logits.data()), 1);
}

TEST(Sampler, TopKLargerThanTheVocabularyKeepsEverything) {
  SamplingParams p = plain();
  p.top_k = 100;
  Sampler s(5, p);
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f, 3.0f, 4.0f};
  s.sample(logits.data());
  EXPECT_EQ(s.candidates().size(), 5u);
}

// -------------------------------------------------------------- top-p ----

TEST(Sampler, TopPKeepsTheSmallestSetReachingP) {
  const std::vector<float> logits = logits_for({0.05, 0.5, 0.15, 0.3});
  const std::vector<std::pair<float, std::set<int32_t>>> cases = {
      {0.4f, {1}}, {0.75f, {1, 3}}, {0.85f, {1, 3, 2}}, {0.99f, {0, 1, 2, 3}}};
  for (const auto& [top_p, want] : cases) {
    SamplingParams p = plain();
    p.top_p = top_p;
    Sampler s(4, p);
    s.sample(logits.data());
    EXPECT_EQ(candidate_ids(s), want) << "top_p " << top_p;
  }
}

TEST(Sampler, TopPDrawsFollowTheRenormalisedDistribution) {
  SamplingParams p = plain(21);
  p.top_p = 0.75f;
  Sampler s(4, p);
  const std::vector<float> logits = logits_for({0.05, 0.5, 0.15, 0.3});
  const std::vector<double> f = frequencies(s, logits, 40000);
  EXPECT_NEAR(f[1], 0.5 / 0.8, 0.01);
  EXPECT_NEAR(f[3], 0.3 / 0.8, 0.01);
  EXPECT_EQ(f[0] + f[2], 0.0);
}

TEST(Sampler, TopPOnALargeVocabularyMatchesAFullSort) {
  // 256k tokens without top-k: the sampler sorts only as far as it needs.
  const int32_t n = 256000;
  std::vector<float> logits(static_cast<size_t>(n));
  Rng rng(5);
  for (float& l : logits) l = static_cast<float>(rng.next_double() * 12.0);
  SamplingParams p = plain();
  p.top_p = 0.5f;
  Sampler s(n, p);
  s.sample(logits.data());

  std::vector<int32_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  });
  const std::vector<double> probs = softmax(logits);
  double cum = 0;
  size_t keep = 0;
  while (cum < 0.5) cum += probs[static_cast<size_t>(order[keep++])];
  ASSERT_NEAR(static_cast<double>(s.candidates().size()), static_cast<double>(keep), 1.0);  // float vs double sums
  for (size_t i = 0; i < std::min(keep, s.candidates().size()); ++i)
    ASSERT_EQ(s.candidates()[i].id, order[i]) << i;
}

// -------------------------------------------------------------- min-p ----

TEST(Sampler, MinPKeepsTokensWithAtLeastPTimesTheBestProbability) {
  SamplingParams p = plain();
  p.min_p = 0.3f;  // best is 0.5: keeps p >= 0.15
  Sampler s(5, p);
  const std::vector<float> logits = logits_for({0.05, 0.5, 0.16, 0.25, 0.04});
  s.sample(logits.data());
  EXPECT_EQ(candidate_ids(s), (std::set<int32_t>{1, 2, 3}));
  p.min_p = 0.4f;  // keeps p >= 0.2
  Sampler stricter(5, p);
  stricter.sample(logits.data());
  EXPECT_EQ(candidate_ids(stricter), (std::set<int32_t>{1, 3}));
}

TEST(Sampler, MinKeepOverridesTheFilters) {
  const std::vector<float> logits = logits_for({0.05, 0.9, 0.03, 0.02});
  SamplingParams p = plain();
  p.top_k = 1;
  p.min_keep = 2;
  Sampler k(4, p);
  k.sample(logits.data());
  EXPECT_EQ(candidate_ids(k), (std::set<int32_t>{1, 0}));
  p = plain();
  p.top_p = 0.5f;
  p.min_keep = 3;
  Sampler top_p(4, p);
  top_p.sample(logits.data());
  EXPECT_EQ(candidate_ids(top_p), (std::set<int32_t>{1, 0, 2}));
  p = plain();
  p.min_p = 0.5f;
  p.min_keep = 2;
  Sampler min_p(4, p);
  min_p.sample(logits.data());
  EXPECT_EQ(candidate_ids(min_p), (std::set<int32_t>{1, 0}));
}

TEST(Sampler, DefaultChainAppliesTopKThenTopPThenMinP) {
  SamplingParams p;  // llama.cpp defaults: top_k 40, top_p 0.95, min_p 0.05, temperature 0.8
  p.seed = 1;
  const int32_t n = 1000;
  std::vector<float> logits(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) logits[static_cast<size_t>(i)] = -0.01f * static_cast<float>(i);
  Sampler s(n, p);
  s.sample(logits.data());
  // top-k keeps ids 0..39; among them softmax weights are e^(-0.01 i), and
  // the first 38 hold 95% of that mass (1 - e^(-0.01 m) >= 0.95 (1 - e^(-0.4))
  // from m = 37.6); min-p 0.05 then drops none (e^(-0.37) > 0.05).
  ASSERT_EQ(s.candidates().size(), 38u);
  for (size_t i = 0; i < 38; ++i) EXPECT_EQ(s.candidates()[i].id, static_cast<int32_t>(i));
}

// -------------------------------------------------------- temperature ----

TEST(Sampler, TemperatureScalesTheLogitsBeforeTheSoftmax) {
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f, 3.0f};
  for (float t : {0.5f, 1.0f, 2.0f}) {
    SamplingParams p = plain();
    p.temperature = t;
    Sampler s(4, p);
    s.sample(logits.data());
    const std::vector<double> want = softmax(logits, t);
    for (const Candidate& c : s.candidates()) {
      EXPECT_NEAR(c.p, want[static_cast<size_t>(c.id)], 1e-6) << "t " << t << " id " << c.id;
      EXPECT_FLOAT_EQ(c.logit, logits[static_cast<size_t>(c.id)] / t);
    }
  }
}

TEST(Sampler, LowTemperatureSharpensAndHighTemperatureFlattens) {
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f, 3.0f};
  auto entropy = [](const std::vector<double>& f) {
    double h = 0;
    for (double v : f)
      if (v > 0) h -= v * std::log(v);
    return h;
  };
  std::vector<double> top_share, h;
  for (float t : {0.25f, 1.0f, 4.0f}) {
    SamplingParams p = plain(8);
    p.temperature = t;
    Sampler s(4, p);
    const std::vector<double> f = frequencies(s, logits, 40000);
    const std::vector<double> want = softmax(logits, t);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(f[i], want[i], 0.01) << "t " << t << " id " << i;
    top_share.push_back(f[3]);
    h.push_back(entropy(f));
  }
  EXPECT_GT(top_share[0], top_share[1]);
  EXPECT_GT(top_share[1], top_share[2]);
  EXPECT_LT(h[0], h[1]);
  EXPECT_LT(h[1], h[2]);
  EXPECT_NEAR(h[2], std::log(4.0), 0.1);  // t = 4: close to uniform
}

// --------------------------------------------------------------- seeds ----

std::vector<int32_t> draw_sequence(uint64_t seed, int n) {
  SamplingParams p = plain(seed);
  Sampler s(50, p);
  std::vector<float> logits(50);
  // Exact inputs (no libm), so the pinned sequence below checks only the sampler.
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>((i * 37) % 50) * 0.0625f;
  std::vector<int32_t> out;
  for (int i = 0; i < n; ++i) out.push_back(s.sample(logits.data()));
  return out;
}

TEST(Sampler, SameSeedGivesTheSameSequence) {
  EXPECT_EQ(draw_sequence(1234, 200), draw_sequence(1234, 200));
}

TEST(Sampler, DifferentSeedsGiveDifferentSequences) {
  EXPECT_NE(draw_sequence(1234, 200), draw_sequence(1235, 200));
}

TEST(Sampler, RandomSeedIsReportedAndReproducible) {
  SamplingParams p = plain(wasmlm::kRandomSeed);
  Sampler s(50, p);
  EXPECT_NE(s.seed(), wasmlm::kRandomSeed);
  EXPECT_EQ(draw_sequence(s.seed(), 50), draw_sequence(s.seed(), 50));
}

TEST(Sampler, SampledSequenceIsPinnedSoNativeAndWasmAgree) {
  EXPECT_EQ(draw_sequence(1234, 12), (std::vector<int32_t>{2, 39, 32, 41, 4, 43, 22, 8, 28, 31, 25, 9}));
}

}  // namespace
}  // namespace wasmlm_test
