// A decoder's hyperparameters, read from GGUF metadata (`<arch>.*` keys, the
// equivalents the legacy and checkpoint readers produce) as llama.cpp reads
// them for the architecture's row (decoder_arch.h), resolved per layer.
#pragma once

#include <cstdint>
#include <vector>

#include "format/model_file.h"
#include "model/decoder_arch.h"

namespace wasmlm {

// The rotation RoPE applies at one kind of layer.
struct RopeParams {
  float base = 10000.f;
  float scale = 1.f;        // 1 / linear scaling factor
  float attn_factor = 1.f;  // multiplies cos and sin (LongRoPE's attention factor)
};

struct DecoderLayerParams {
  bool windowed = false;  // attends to the last n_swa positions only, and rotates with rope_window
  bool rope = true;       // rotates q and k (SmolLM3's NoPE layers do not)
};

struct DecoderHParams {
  const DecoderArch* arch = nullptr;
  uint32_t n_vocab = 0;
  uint32_t n_embd = 0;     // model width
  uint32_t n_layer = 0;
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;  // < n_head: grouped-query attention
  uint32_t head_dim = 0;
  uint32_t n_ff = 0;       // feed-forward width
  uint32_t n_ctx_train = 0;
  uint32_t n_ctx_orig = 0;  // LongRoPE: longer contexts take rope_factors_long
  uint32_t n_rot = 0;       // leading dims of each head that RoPE rotates
  float rms_eps = 1e-5f;
  RopeParams rope_global, rope_window;
  uint32_t n_swa = 0;       // the window of windowed layers (0: none is)
  float query_scale = 1.f;  // of the query-key products
  float attn_softcap = 0;   // 0: none
  float final_softcap = 0;
  float embedding_scale = 1.f;
  float residual_scale = 1.f;  // of each block's output before its residual add (Granite)
  float logit_scale = 1.f;     // the logits are divided by it (Granite)
  std::vector<DecoderLayerParams> layers;

  uint64_t q_dim() const { return uint64_t(n_head) * head_dim; }
  uint64_t kv_dim() const { return uint64_t(n_head_kv) * head_dim; }
  bool any_windowed() const;
};

// Throws Unsupported naming the architecture (and the supported ones) or a
// setting we do not compute; BadFormat naming a missing or inconsistent key.
DecoderHParams read_decoder_hparams(const ModelFile& file);

}  // namespace wasmlm
