#include "model/decoder_features.h"

#include "model/decoder_hparams.h"
#include "model/kv_cache.h"

namespace wasmlm {

namespace {

const char* norms_name(NormPlacement n) {
  switch (n) {
    case NormPlacement::Pre: return "pre";
    case NormPlacement::PrePost: return "pre+post";
    case NormPlacement::Post: return "post";
  }
  return "pre";
}

const char* qk_norm_name(QkNorm q) {
  switch (q) {
    case QkNorm::None: return "none";
    case QkNorm::PerHead: return "per-head";
    case QkNorm::Whole: return "all heads";
  }
  return "none";
}

}  // namespace

std::optional<DecoderFeatures> decoder_features(const ModelFile& file) {
  if (!find_decoder_arch(file.metadata.get_string("general.architecture").value_or(""))) return std::nullopt;
  const DecoderHParams h = read_decoder_hparams(file);
  const DecoderArch& a = *h.arch;
  DecoderFeatures f;
  f.architecture = a.name;
  f.families = a.families;
  f.norms = norms_name(a.norms);
  f.qk_norm = qk_norm_name(a.qk_norm);
  f.rope = a.rope == RopeLayout::Neox ? "neox" : "normal";
  f.activation = a.activation == FfnActivation::GeluTanh ? "gelu-tanh" : "silu";
  f.n_layer = h.n_layer;
  f.head_dim = h.head_dim;
  f.rope_dims = h.n_rot;
  f.sliding_window = h.n_swa;
  for (const DecoderLayerParams& l : h.layers) {
    f.windowed_layers += l.windowed;
    f.nope_layers += !l.rope;
  }
  f.fused_qkv = file.find_tensor("blk.0.attn_qkv.weight") != nullptr;
  f.fused_gate_up = a.fused_gate_up;
  f.qkv_bias = file.find_tensor("blk.0.attn_q.bias") || file.find_tensor("blk.0.attn_qkv.bias");
  f.tied_output = file.find_tensor("output.weight") == nullptr;
  f.long_rope = file.find_tensor("rope_factors_long.weight") != nullptr;
  f.rope_base = h.rope_global.base;
  f.rope_scale = h.rope_global.scale;
  f.rope_attn_factor = h.rope_global.attn_factor;
  if (h.n_swa) f.window_rope_base = h.rope_window.base, f.window_rope_scale = h.rope_window.scale;
  f.query_scale = h.query_scale;
  f.attn_softcap = h.attn_softcap;
  f.final_softcap = h.final_softcap;
  f.embedding_scale = h.embedding_scale;
  f.residual_scale = h.residual_scale;
  f.logit_scale = h.logit_scale;
  const uint64_t per_layer = 2 * h.kv_dim() * 2;  // K and V, F16
  f.kv_bytes_windowed = per_layer * f.windowed_layers;
  f.kv_bytes_full = per_layer * (h.n_layer - f.windowed_layers);
  f.ring_positions = h.n_swa ? static_cast<uint32_t>(KvCache::ring_size(h.n_swa)) : 0;
  return f;
}

}  // namespace wasmlm
