// What the sampler does with a logits vector, with llama.cpp's defaults.
#pragma once

#include <cstdint>
#include <vector>

namespace wasmlm {

// llama.cpp's LLAMA_DEFAULT_SEED: "pick a random seed" (from std::random_device).
constexpr uint64_t kRandomSeed = 0xFFFFFFFFull;

// Added to a token's logit before anything else; -INFINITY bans the token.
struct LogitBias {
  int32_t token;
  float bias;
};

// The chain runs in llama.cpp's order: logit bias -> penalties -> top-k ->
// top-p -> min-p -> temperature -> draw. Each stage has a value that turns it
// off, noted on its line.
struct SamplingParams {
  float temperature = 0.8f;  // <= 0: greedy (argmax after bias and penalties; ties -> lowest id)
  int32_t top_k = 40;        // <= 0: off
  float top_p = 0.95f;       // >= 1: off
  float min_p = 0.05f;       // <= 0: off
  int32_t min_keep = 0;      // top-k/top-p/min-p keep at least max(1, min_keep) candidates

  // Over the last penalty_last_n accepted tokens (0: off; -1: every token
  // accepted since reset()). For a token seen `count` times in the window:
  //   logit > 0 ? logit / repeat_penalty : logit * repeat_penalty
  //   then logit -= count * frequency_penalty + presence_penalty
  float repeat_penalty = 1.0f;     // 1: off
  float presence_penalty = 0.0f;   // 0: off
  float frequency_penalty = 0.0f;  // 0: off
  int32_t penalty_last_n = 64;

  uint64_t seed = kRandomSeed;
  std::vector<LogitBias> logit_bias;
};

}  // namespace wasmlm
