// LLaMA-family hyperparameters, read from GGUF metadata (`llama.*` keys) or
// the equivalent keys the legacy readers produce.
#pragma once

#include <cstdint>

#include "format/model_file.h"

namespace wasmlm {

struct LlamaHParams {
  uint32_t n_vocab = 0;
  uint32_t n_embd = 0;        // model width
  uint32_t n_layer = 0;
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;     // < n_head: grouped-query attention
  uint32_t head_dim = 0;
  uint32_t n_ff = 0;          // feed-forward width
  uint32_t n_ctx_train = 0;
  uint32_t n_rot = 0;         // leading dims of each head that RoPE rotates
  float rms_eps = 1e-5f;
  float rope_freq_base = 10000.f;
  float rope_freq_scale = 1.f;  // 1 / linear scaling factor
};

// Throws Unsupported/BadFormat naming the missing or inconsistent key.
LlamaHParams read_llama_hparams(const ModelFile& file);

}  // namespace wasmlm
