// What a decoder file is, as its architecture row and hyperparameters say
// (for inspect(), the viewer and describe()), read from the directory alone,
// before any weight arrives; and what its KV cache will cost.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "format/model_file.h"

namespace wasmlm {

struct DecoderFeatures {
  std::string architecture, families;
  std::string norms;       // "pre", "pre+post", "post"
  std::string qk_norm;     // "none", "per-head", "all heads"
  std::string rope;        // "normal", "neox"
  std::string activation;  // "silu", "gelu-tanh"
  uint32_t n_layer = 0, head_dim = 0, rope_dims = 0;
  uint32_t sliding_window = 0, windowed_layers = 0, nope_layers = 0;
  bool fused_qkv = false, fused_gate_up = false, qkv_bias = false, tied_output = false, long_rope = false;
  float rope_base = 0, rope_scale = 1, window_rope_base = 0, window_rope_scale = 1, rope_attn_factor = 1;
  float query_scale = 0, attn_softcap = 0, final_softcap = 0, embedding_scale = 1, residual_scale = 1, logit_scale = 1;
  // F16 cache bytes per position: of the layers that keep every position,
  // and of the windowed ones, which keep at most ring_positions.
  uint64_t kv_bytes_full = 0, kv_bytes_windowed = 0;
  uint32_t ring_positions = 0;
};

// nullopt when general.architecture is not a decoder row; throws what
// read_decoder_hparams throws for a row whose keys do not fit.
std::optional<DecoderFeatures> decoder_features(const ModelFile& file);

}  // namespace wasmlm
