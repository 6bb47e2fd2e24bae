// Logits -> next token id, as llama.cpp's default sampler chain does.
//
//   logits (n_vocab) -> + logit bias -> repetition/presence/frequency
//   penalties over the last-n accepted tokens -> [greedy: argmax] ->
//   top-k -> top-p -> min-p -> / temperature -> softmax -> seeded draw
//
// All buffers are sized for the vocabulary once, in the constructor, and
// reused by every call. Probabilities use a portable exp (basic float
// arithmetic only), so the same logits and seed pick the same token natively
// and in wasm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sampling/rng.h"
#include "sampling/sampling_params.h"

namespace wasmlm {

// One token still in the running after the filters.
struct Candidate {
  int32_t id;
  float logit;  // after bias, penalties and (once applied) temperature
  float p;      // probability of being drawn, set by the draw
};

class Sampler {
 public:
  // Fails (BadFormat) on a vocabulary size < 1, a logit bias outside the
  // vocabulary, or a non-positive repeat penalty.
  Sampler(int32_t n_vocab, SamplingParams params);

  // Picks the next token from n_vocab logits (not modified). Does not accept
  // it: call accept() with the token actually used. Fails (BadFormat) if
  // every token is banned (all logits -inf or NaN after the bias).
  int32_t sample(const float* logits);

  // Adds a token to the penalty window (prompt tokens too, if they should
  // count, as llama.cpp's CLI does). Fails (BadFormat) outside the vocabulary.
  void accept(int32_t token);

  // Empties the penalty window and restarts the random sequence from the seed.
  void reset();

  int32_t n_vocab() const { return n_vocab_; }
  const SamplingParams& params() const { return params_; }
  // The seed in use (drawn from std::random_device if params.seed was kRandomSeed).
  uint64_t seed() const { return seed_; }

  // From the last sample() call, for inspection and tests:
  // the logits after bias and penalties (n_vocab, NaN turned into -inf) ...
  const std::vector<float>& adjusted_logits() const { return logits_; }
  // ... and the candidates the draw chose from, in draw order, with their
  // probabilities (after temperature). Empty after a greedy pick.
  const std::vector<Candidate>& candidates() const { return cand_; }

 private:
  void apply_bias_and_penalties();
  int32_t greedy() const;
  void top_k(int32_t k);
  void top_p(float p);
  void min_p(float p);
  void apply_temperature(float t);
  int32_t draw();
  void sort_prefix(size_t m);
  float max_logit() const;

  int32_t n_vocab_;
  SamplingParams params_;
  uint64_t seed_;
  size_t min_keep_;
  bool penalties_on_;
  Rng rng_;

  std::vector<float> logits_;     // (n_vocab) working copy of the logits
  std::vector<Candidate> cand_;   // (<= n_vocab) tokens still in the running
  size_t n_sorted_ = 0;           // cand_[0, n_sorted_) are the best, sorted (logit desc, id asc)

  // Penalty window: a ring of the last penalty_last_n tokens (or a growing
  // list when penalty_last_n is -1) and each token's count in it.
  std::vector<int32_t> window_;
  size_t window_head_ = 0;        // ring: next slot to overwrite once full
  std::vector<int32_t> counts_;   // (n_vocab)
};

// exp(x) for x <= 0 from float adds and multiplies only (relative error
// ~1e-7); 0 below -87 and for NaN. The same result on every platform.
float portable_exp_nonpositive(float x);

}  // namespace wasmlm
