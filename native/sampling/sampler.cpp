#include "sampling/sampler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "core/error.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace wasmlm {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Candidate order: higher logit first, then lower id, so every sort and
// selection below has one answer whatever the standard library.
bool better(const Candidate& a, const Candidate& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

// exp(l - max) with +inf handled: if the best logit is +inf, the +inf
// tokens share the mass equally.
float rel_weight(float logit, float max) {
  if (max == kInf) return logit == kInf ? 1.0f : 0.0f;
  return portable_exp_nonpositive(logit - max);
}

// How many of l[0, n) are NaN or infinite (all exponent bits set).
size_t count_non_finite(const float* l, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, l + i, sizeof bits);
    count += (bits & 0x7F800000u) == 0x7F800000u;  // a loop clang vectorizes
  }
  return count;
}

// The lowest index of the largest of l[0, n) (NaN skipped; 0 if none is
// above -inf): a decoding step's greedy pick, 4 lanes at a time, as a scalar
// scan of a 150k vocabulary costs a noticeable share of a small model's step.
size_t first_argmax(const float* l, size_t n) {
  size_t i = 0;
  float best = -kInf;
#ifdef __wasm_simd128__
  v128_t m = wasm_f32x4_splat(-kInf);
  for (; i + 4 <= n; i += 4) m = wasm_f32x4_pmax(m, wasm_v128_load(l + i));  // m < x ? x : m
  best = std::max(std::max(wasm_f32x4_extract_lane(m, 0), wasm_f32x4_extract_lane(m, 1)),
                  std::max(wasm_f32x4_extract_lane(m, 2), wasm_f32x4_extract_lane(m, 3)));
#endif
  for (; i < n; ++i) best = std::max(best, l[i]);
  for (size_t at = 0; at < n; ++at)
    if (l[at] == best) return at;
  return 0;
}

}  // namespace

float portable_exp_nonpositive(float x) {
  if (!(x > -87.0f)) return 0.0f;  // below the normal range, -inf and NaN
  if (x > 0.0f) x = 0.0f;
  // x = k ln2 + r, |r| <= ln2 / 2; ln2 split in two (Cody-Waite) so k * C1 is exact.
  const float k = std::floor(x * 1.44269504f + 0.5f);
  float r = x - k * 0.693359375f;
  r = r + k * 2.12194440e-4f;
  // Taylor series of e^r to degree 7, Horner form.
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(k) + 127) << 23;  // 2^k, k in [-126, 0]
  float scale;
  std::memcpy(&scale, &bits, 4);
  return p * scale;
}

Sampler::Sampler(int32_t n_vocab, SamplingParams params)
    : n_vocab_(n_vocab), params_(std::move(params)) {
  if (n_vocab_ < 1) fail(ErrorCode::BadFormat, kNoOffset, "sampler: vocabulary size must be at least 1");
  for (const LogitBias& b : params_.logit_bias) {
    if (b.token < 0 || b.token >= n_vocab_)
      fail(ErrorCode::BadFormat, kNoOffset,
           "sampler: logit bias for token " + std::to_string(b.token) + " outside the vocabulary of " +
               std::to_string(n_vocab_));
  }
  if (!(params_.repeat_penalty > 0.0f))
    fail(ErrorCode::BadFormat, kNoOffset, "sampler: repeat_penalty must be > 0 (1 turns it off)");
  if (std::isnan(params_.temperature) || std::isnan(params_.top_p) || std::isnan(params_.min_p))
    fail(ErrorCode::BadFormat, kNoOffset, "sampler: temperature, top_p and min_p must be numbers");
  if (params_.penalty_last_n < -1)
    fail(ErrorCode::BadFormat, kNoOffset, "sampler: penalty_last_n must be >= -1");

  min_keep_ = static_cast<size_t>(std::max(1, params_.min_keep));
  penalties_on_ = params_.penalty_last_n != 0 &&
                  (params_.repeat_penalty != 1.0f || params_.presence_penalty != 0.0f ||
                   params_.frequency_penalty != 0.0f);
  seed_ = params_.seed;
  if (seed_ == kRandomSeed) {
    std::random_device device;
    seed_ = (static_cast<uint64_t>(device()) << 32) | device();
  }
  rng_.reseed(seed_);

  logits_.resize(static_cast<size_t>(n_vocab_));
  cand_.reserve(static_cast<size_t>(n_vocab_));
  counts_.assign(static_cast<size_t>(n_vocab_), 0);
  if (params_.penalty_last_n > 0) window_.reserve(static_cast<size_t>(params_.penalty_last_n));
}

// ------------------------------------------------------------- history ----

void Sampler::accept(int32_t token) {
  if (token < 0 || token >= n_vocab_)
    fail(ErrorCode::BadFormat, kNoOffset,
         "sampler: accepted token " + std::to_string(token) + " outside the vocabulary of " +
             std::to_string(n_vocab_));
  const int32_t last_n = params_.penalty_last_n;
  if (last_n == 0) return;
  if (last_n < 0 || window_.size() < static_cast<size_t>(last_n)) {
    window_.push_back(token);
  } else {
    // The ring is full: the oldest token leaves the window.
    --counts_[static_cast<size_t>(window_[window_head_])];
    window_[window_head_] = token;
    window_head_ = (window_head_ + 1) % window_.size();
  }
  ++counts_[static_cast<size_t>(token)];
}

void Sampler::reset() {
  for (int32_t t : window_) counts_[static_cast<size_t>(t)] = 0;
  window_.clear();
  window_head_ = 0;
  rng_.reseed(seed_);
}

// ---------------------------------------------------------- the chain -----

int32_t Sampler::sample(const float* logits) {
  // A model's logits are finite; NaN or infinities mean broken weights or an
  // overflow, which no sampling setting can make sense of.
  if (const size_t non_finite = count_non_finite(logits, logits_.size())) {
    const size_t first = static_cast<size_t>(std::find_if(logits, logits + logits_.size(),
                                                          [](float l) { return !std::isfinite(l); }) -
                                             logits);
    fail(ErrorCode::BadFormat, kNoOffset,
         "the model computed non-finite logits (" + std::to_string(non_finite) + " of " + std::to_string(logits_.size()) +
             " are NaN or infinite, the first at token " + std::to_string(first) +
             "): its weights hold NaN/Inf or its activations overflow");
  }
  std::memcpy(logits_.data(), logits, logits_.size() * sizeof(float));
  apply_bias_and_penalties();

  cand_.clear();
  n_sorted_ = 0;
  if (params_.temperature <= 0.0f) return greedy();

  for (int32_t id = 0; id < n_vocab_; ++id) {
    const float l = logits_[static_cast<size_t>(id)];
    if (l > -kInf) cand_.push_back({id, l, 0.0f});  // banned tokens never enter
  }
  if (cand_.empty()) fail(ErrorCode::BadFormat, kNoOffset, "sampler: every token is banned (all logits are -inf)");

  top_k(params_.top_k);
  top_p(params_.top_p);
  min_p(params_.min_p);
  apply_temperature(params_.temperature);
  return draw();
}

void Sampler::apply_bias_and_penalties() {
  for (const LogitBias& b : params_.logit_bias) logits_[static_cast<size_t>(b.token)] += b.bias;
  if (!penalties_on_) return;
  // Each distinct token in the window once: its count is negated while
  // visited, and restored after.
  const float repeat = params_.repeat_penalty;
  for (int32_t t : window_) {
    int32_t& count = counts_[static_cast<size_t>(t)];
    if (count <= 0) continue;
    float& l = logits_[static_cast<size_t>(t)];
    l = l <= 0.0f ? l * repeat : l / repeat;
    l -= static_cast<float>(count) * params_.frequency_penalty + params_.presence_penalty;
    count = -count;
  }
  for (int32_t t : window_) {
    int32_t& count = counts_[static_cast<size_t>(t)];
    if (count < 0) count = -count;
  }
}

int32_t Sampler::greedy() const {
  const size_t best = first_argmax(logits_.data(), logits_.size());  // the lowest id wins ties
  if (!(logits_[best] > -kInf))
    fail(ErrorCode::BadFormat, kNoOffset, "sampler: every token is banned (all logits are -inf)");
  return static_cast<int32_t>(best);
}

// Makes cand_[0, m) the m best candidates in order, extending the sorted prefix.
void Sampler::sort_prefix(size_t m) {
  m = std::min(m, cand_.size());
  if (m <= n_sorted_) return;
  const auto first = cand_.begin() + static_cast<std::ptrdiff_t>(n_sorted_);
  const auto mid = cand_.begin() + static_cast<std::ptrdiff_t>(m);
  if (mid != cand_.end()) std::nth_element(first, mid, cand_.end(), better);
  std::sort(first, mid, better);
  n_sorted_ = m;
}

float Sampler::max_logit() const {
  if (n_sorted_ > 0) return cand_[0].logit;
  float m = -kInf;
  for (const Candidate& c : cand_) m = std::max(m, c.logit);
  return m;
}

void Sampler::top_k(int32_t k) {
  if (k <= 0) return;
  const size_t keep = std::max(static_cast<size_t>(k), min_keep_);
  sort_prefix(keep);
  if (keep < cand_.size()) cand_.resize(keep);
}

// Keeps the smallest set of best tokens whose probabilities (softmax of the
// current logits) add up to at least p. Sorts only as far as needed.
void Sampler::top_p(float p) {
  if (p >= 1.0f) return;
  sort_prefix(1);
  const float max = cand_[0].logit;
  double total = 0.0;
  for (const Candidate& c : cand_) total += rel_weight(c.logit, max);
  double cum = 0.0;
  size_t keep = cand_.size();
  for (size_t i = 0; i < cand_.size(); ++i) {
    if (i >= n_sorted_) sort_prefix(std::max<size_t>(64, 2 * n_sorted_));
    cum += rel_weight(cand_[i].logit, max) / total;
    if (cum >= p && i + 1 >= min_keep_) {
      keep = i + 1;
      break;
    }
  }
  cand_.resize(keep);
  n_sorted_ = std::min(n_sorted_, keep);
}

// Keeps tokens whose probability is at least p times the best one's.
void Sampler::min_p(float p) {
  if (p <= 0.0f) return;
  const float max = max_logit();
  size_t passing = 0;
  for (const Candidate& c : cand_) passing += rel_weight(c.logit, max) >= p;
  if (passing < min_keep_) {
    sort_prefix(min_keep_);
    cand_.resize(std::min(min_keep_, cand_.size()));
    return;
  }
  // Stable compaction: a sorted prefix stays a sorted prefix (if one of its
  // tokens fails, every later token fails too).
  size_t out = 0;
  for (size_t i = 0; i < cand_.size(); ++i)
    if (rel_weight(cand_[i].logit, max) >= p) cand_[out++] = cand_[i];
  cand_.resize(out);
  n_sorted_ = std::min(n_sorted_, out);
}

void Sampler::apply_temperature(float t) {
  for (Candidate& c : cand_) c.logit /= t;
}

// Softmax over the candidates, then one uniform draw walked along the
// cumulative sum (in candidate order).
int32_t Sampler::draw() {
  const float max = max_logit();
  double total = 0.0;
  for (Candidate& c : cand_) {
    c.p = rel_weight(c.logit, max);
    total += c.p;
  }
  size_t chosen = 0;
  if (total > 0.0) {
    const double target = rng_.next_double() * total;
    double cum = 0.0;
    chosen = cand_.size();
    for (size_t i = 0; i < cand_.size(); ++i) {
      cum += cand_[i].p;
      if (target < cum) {
        chosen = i;
        break;
      }
    }
    // Rounding left the target past the sum: take the last token with mass.
    if (chosen == cand_.size()) {
      chosen = 0;
      for (size_t i = 0; i < cand_.size(); ++i)
        if (cand_[i].p > 0.0f) chosen = i;
    }
    for (Candidate& c : cand_) c.p = static_cast<float>(c.p / total);
  } else {
    rng_.next_u64();  // keep the sequence in step with the normal path
    for (Candidate& c : cand_) c.p = 0.0f;
    cand_[0].p = 1.0f;
  }
  return cand_[chosen].id;
}

}  // namespace wasmlm
