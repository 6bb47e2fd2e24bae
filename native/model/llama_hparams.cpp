#include "model/llama_hparams.h"

#include <string>

#include "core/error.h"

namespace wasmlm {

namespace {

uint32_t required(const Metadata& m, const std::string& key) {
  auto v = m.get_uint(key);
  if (!v || *v == 0 || *v > (1u << 24)) fail(ErrorCode::BadFormat, kNoOffset, "expected a positive integer " + key);
  return static_cast<uint32_t>(*v);
}

float number_or(const Metadata& m, const std::string& key, float fallback) {
  const MetaValue* v = m.find(key);
  if (!v) return fallback;
  auto n = v->as_number();
  if (!n) fail(ErrorCode::BadFormat, kNoOffset, "expected a number for " + key);
  return static_cast<float>(*n);
}

}  // namespace

LlamaHParams read_llama_hparams(const ModelFile& file) {
  const Metadata& m = file.metadata;
  const std::string arch = m.get_string("general.architecture").value_or("");
  if (arch != "llama")
    fail(ErrorCode::Unsupported, kNoOffset, "expected architecture 'llama', found '" + arch + "'");
  LlamaHParams h;
  h.n_embd = required(m, "llama.embedding_length");
  h.n_layer = required(m, "llama.block_count");
  h.n_head = required(m, "llama.attention.head_count");
  h.n_head_kv = m.get_uint("llama.attention.head_count_kv").value_or(h.n_head);
  h.n_ff = required(m, "llama.feed_forward_length");
  h.n_ctx_train = static_cast<uint32_t>(m.get_uint("llama.context_length").value_or(2048));
  h.head_dim = static_cast<uint32_t>(m.get_uint("llama.attention.key_length").value_or(h.n_embd / h.n_head));
  h.n_rot = static_cast<uint32_t>(m.get_uint("llama.rope.dimension_count").value_or(h.head_dim));
  h.rms_eps = number_or(m, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
  h.rope_freq_base = number_or(m, "llama.rope.freq_base", 10000.f);
  const std::string scaling = m.get_string("llama.rope.scaling.type").value_or("none");
  if (scaling == "linear") {
    const float factor = number_or(m, "llama.rope.scaling.factor", 1.f);
    if (factor > 0) h.rope_freq_scale = 1.f / factor;
  } else if (scaling != "none" && scaling != "") {
    fail(ErrorCode::Unsupported, kNoOffset, "rope scaling '" + scaling + "' is not supported");
  }
  const TensorInfo* embd = file.find_tensor("token_embd.weight");
  if (!embd || embd->n_dims != 2 || embd->ne[0] != h.n_embd)
    fail(ErrorCode::BadFormat, kNoOffset, "expected token_embd.weight of shape [n_embd, n_vocab]");
  h.n_vocab = static_cast<uint32_t>(embd->ne[1]);
  if (h.n_head_kv == 0 || h.n_head % h.n_head_kv != 0)
    fail(ErrorCode::BadFormat, kNoOffset, "head_count must be a multiple of head_count_kv");
  if (h.n_rot > h.head_dim || h.n_rot % 2 != 0)
    fail(ErrorCode::BadFormat, kNoOffset, "rope.dimension_count must be even and at most the head size");
  return h;
}

}  // namespace wasmlm
