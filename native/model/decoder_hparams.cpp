#include "model/decoder_hparams.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "format/limits.h"

namespace wasmlm {

namespace {

class Keys {
 public:
  Keys(const Metadata& m, std::string arch) : m_(m), prefix_(std::move(arch) + ".") {}

  const MetaValue* find(const char* key) const { return m_.find(prefix_ + key); }

  uint32_t required(const char* key) const {
    const uint32_t v = optional(key, 0);
    if (v == 0) fail(ErrorCode::BadFormat, kNoOffset, "expected a positive integer " + prefix_ + key);
    return v;
  }

  // A per-layer key may be an array; we run models whose layers agree.
  uint32_t optional(const char* key, uint32_t fallback) const {
    const MetaValue* v = find(key);
    if (!v) return fallback;
    std::optional<uint64_t> n = v->as_uint();
    if (v->type == MetaType::Array && v->array && v->array->count > 0 && v->array->elem_type != MetaType::String &&
        v->array->elem_type != MetaType::Array) {
      n = static_cast<uint64_t>(v->array->integer(0));
      for (uint64_t i = 1; i < v->array->count; ++i)
        if (static_cast<uint64_t>(v->array->integer(i)) != *n)
          fail(ErrorCode::Unsupported, kNoOffset, prefix_ + key + " differs between layers");
    }
    if (!n || *n > (1u << 24)) fail(ErrorCode::BadFormat, kNoOffset, "expected an integer below 2^24 for " + prefix_ + key);
    return static_cast<uint32_t>(*n);
  }

  float number(const char* key, float fallback) const {
    const MetaValue* v = find(key);
    if (!v) return fallback;
    auto n = v->as_number();
    if (!n || !std::isfinite(*n)) fail(ErrorCode::BadFormat, kNoOffset, "expected a finite number for " + prefix_ + key);
    return static_cast<float>(*n);
  }

  bool flag(const char* key, bool fallback) const {
    const MetaValue* v = find(key);
    if (!v) return fallback;
    if (v->type == MetaType::Bool || v->is_integer()) return v->bits != 0;
    fail(ErrorCode::BadFormat, kNoOffset, "expected a boolean for " + prefix_ + key);
  }

  std::string string(const char* key, const std::string& fallback) const {
    const MetaValue* v = find(key);
    if (!v) return fallback;
    if (v->type != MetaType::String) fail(ErrorCode::BadFormat, kNoOffset, "expected a string for " + prefix_ + key);
    return v->str;
  }

  const std::string& prefix() const { return prefix_; }

 private:
  const Metadata& m_;
  std::string prefix_;
};

// Which layers attend to a window (llama.cpp's swa pattern): the
// sliding_window_pattern key as one flag per layer, or as a period whose
// last layer is global; else the row's period.
void read_window_pattern(const Keys& k, const DecoderArch& a, DecoderHParams* h) {
  const MetaValue* v = k.find("attention.sliding_window_pattern");
  if (v && v->type == MetaType::Array) {
    const MetaArray* arr = v->array.get();
    if (!arr || arr->count != h->n_layer || arr->elem_type == MetaType::String || arr->elem_type == MetaType::Array ||
        arr->elem_type == MetaType::F32 || arr->elem_type == MetaType::F64)
      fail(ErrorCode::BadFormat, kNoOffset, k.prefix() + "attention.sliding_window_pattern: expected one flag per layer");
    for (uint32_t l = 0; l < h->n_layer; ++l) h->layers[l].windowed = arr->integer(l) != 0;
    return;
  }
  const uint32_t period = k.optional("attention.sliding_window_pattern", a.window_period);
  for (uint32_t l = 0; l < h->n_layer; ++l) h->layers[l].windowed = period == 0 || l % period < period - 1;
}

}  // namespace

bool DecoderHParams::any_windowed() const {
  for (const DecoderLayerParams& l : layers)
    if (l.windowed) return true;
  return false;
}

DecoderHParams read_decoder_hparams(const ModelFile& file) {
  const Metadata& m = file.metadata;
  const std::string name = m.get_string("general.architecture").value_or("");
  const DecoderArch* arch = find_decoder_arch(name);
  if (!arch)
    fail(ErrorCode::Unsupported, kNoOffset,
         "architecture '" + name + "' is not supported (supported: " + decoder_arch_names() + ", rwkv, rwkv6, rwkv7)");
  const DecoderArch& a = *arch;
  // llama.cpp's files before GGJT v3 (GGML, GGMF, GGJT v1/v2) hold quantized
  // blocks in layouts GGUF's types do not share (f32 scales, bit-shuffled
  // quants): listed by the reader, but only their float tensors can run.
  const bool pre_ggjt_v3 = file.format == FileFormat::Ggml || file.format == FileFormat::Ggmf ||
                           (file.format == FileFormat::Ggjt && file.version < 3);
  if (pre_ggjt_v3)
    for (const TensorInfo& t : file.tensors)
      if (ggml_type_info(t.type).quantized)
        fail(ErrorCode::Unsupported, t.offset,
             "tensor '" + t.name + "' is " + ggml_type_info(t.type).name + " in a " + file_format_name(file.format) +
                 (file.format == FileFormat::Ggjt ? " v" + std::to_string(file.version) : std::string()) +
                 " file, whose quantized layout predates GGJT v3: re-convert the model (GGJT v3 or GGUF)");
  const Keys k(m, name);
  DecoderHParams h;
  h.arch = arch;
  h.n_embd = k.required("embedding_length");
  h.n_layer = k.required("block_count");
  h.n_head = k.required("attention.head_count");
  h.n_head_kv = k.optional("attention.head_count_kv", h.n_head);
  h.n_ff = k.required("feed_forward_length");
  h.n_ctx_train = k.optional("context_length", 2048);
  h.n_ctx_orig = k.optional("rope.scaling.original_context_length", h.n_ctx_train);
  h.head_dim = k.optional("attention.key_length", h.n_embd / h.n_head);
  if (k.optional("attention.value_length", h.head_dim) != h.head_dim)
    fail(ErrorCode::Unsupported, kNoOffset, "key and value heads of different sizes");
  h.n_rot = k.optional("rope.dimension_count", h.head_dim);
  h.rms_eps = k.number("attention.layer_norm_rms_epsilon", 1e-5f);

  // RoPE: llama.cpp's default scaling type is linear, with factor 0 meaning none.
  h.rope_global.base = k.number("rope.freq_base", 10000.f);
  const std::string scaling = k.string("rope.scaling.type", "linear");
  if (scaling != "linear" && scaling != "none" && scaling != "longrope")
    fail(ErrorCode::Unsupported, kNoOffset, "rope scaling '" + scaling + "' is not supported");
  float factor = k.number("rope.scaling.factor", 0.f);
  if (factor == 0.f) factor = k.number("rope.scale_linear", 0.f);
  if (scaling != "none" && factor > 0.f) h.rope_global.scale = 1.f / factor;
  h.rope_global.attn_factor = k.number("rope.scaling.attn_factor", 1.f);

  h.layers.assign(h.n_layer, DecoderLayerParams{});
  const uint32_t window = k.optional("attention.sliding_window", 0);
  const bool windows = a.window == SlidingWindow::Always || (a.window == SlidingWindow::IfKey && window > 0);
  if (windows) {
    h.n_swa = a.window == SlidingWindow::Always && !k.find("attention.sliding_window") ? a.window_default : window;
    if (h.n_swa == 0) fail(ErrorCode::BadFormat, kNoOffset, k.prefix() + "attention.sliding_window is 0");
    read_window_pattern(k, a, &h);
    h.rope_window = h.rope_global;
    h.rope_window.base = k.number("rope.freq_base_swa", a.window_rope_base > 0 ? a.window_rope_base : h.rope_global.base);
    if (a.window_rope_unscaled) h.rope_window.scale = h.rope_window.attn_factor = 1.f;
    if (!h.any_windowed()) h.n_swa = 0;
  }
  const bool rope_on = !a.rope_finetuned_switch || k.flag("rope.scaling.finetuned", true);
  for (uint32_t l = 0; l < h.n_layer; ++l) {
    DecoderLayerParams& L = h.layers[l];
    L.rope = rope_on && (a.nope_period == 0 || (l + 1) % a.nope_period != 0);
  }

  switch (a.query_scale) {
    case QueryScale::HeadDim: h.query_scale = 1.f / std::sqrt(float(h.head_dim)); break;
    case QueryScale::Gemma:
      h.query_scale = h.n_layer == a.layers_27b ? 1.f / std::sqrt(float(h.n_embd / h.n_head))
                                                : 1.f / std::sqrt(float(h.head_dim));
      break;
    case QueryScale::KeyOrHeadDim: {
      const float s = k.number("attention.scale", 0.f);
      h.query_scale = s != 0.f ? s : 1.f / std::sqrt(float(h.head_dim));
      break;
    }
  }
  h.attn_softcap = k.number("attn_logit_softcapping", a.attn_softcap_default);
  h.final_softcap = k.number("final_logit_softcapping", a.final_softcap_default);
  if (a.scale_embeddings) h.embedding_scale = std::sqrt(float(h.n_embd));
  if (a.granite_multipliers) {
    h.embedding_scale = k.number("embedding_scale", 0.f);
    if (h.embedding_scale == 0.f) h.embedding_scale = 1.f;
    h.residual_scale = k.number("residual_scale", 0.f);
    if (h.residual_scale == 0.f) h.residual_scale = 1.f;
    h.logit_scale = k.number("logit_scale", 1.f);
    if (h.logit_scale == 0.f) fail(ErrorCode::BadFormat, kNoOffset, k.prefix() + "logit_scale is 0");
  }

  const TensorInfo* embd = file.find_tensor("token_embd.weight");
  if (!embd || embd->n_dims != 2 || embd->ne[0] != h.n_embd)
    fail(ErrorCode::BadFormat, kNoOffset,
         "expected token_embd.weight of shape [n_embd, n_vocab] with n_embd = " + k.prefix() + "embedding_length = " +
             std::to_string(h.n_embd));
  if (embd->ne[1] == 0 || embd->ne[1] > limits::kMaxVocab)
    fail(ErrorCode::BadFormat, kNoOffset, "token_embd.weight has " + std::to_string(embd->ne[1]) + " rows (tokens)");
  h.n_vocab = static_cast<uint32_t>(embd->ne[1]);
  // The vocabulary, where the file states its size, is the embedding's.
  const uint32_t vocab_key = k.optional("vocab_size", h.n_vocab);
  const MetaValue* tokens = m.find("tokenizer.ggml.tokens");
  const uint64_t n_tokens = tokens && tokens->type == MetaType::Array && tokens->array ? tokens->array->count : h.n_vocab;
  if (vocab_key != h.n_vocab || n_tokens != h.n_vocab)
    fail(ErrorCode::BadFormat, kNoOffset,
         "the vocabulary has " + std::to_string(vocab_key != h.n_vocab ? vocab_key : n_tokens) + " tokens (" +
             (vocab_key != h.n_vocab ? k.prefix() + "vocab_size" : std::string("tokenizer.ggml.tokens")) +
             ") but token_embd.weight has " + std::to_string(h.n_vocab) + " rows");
  if (h.n_head_kv == 0 || h.n_head % h.n_head_kv != 0)
    fail(ErrorCode::BadFormat, kNoOffset,
         k.prefix() + "attention.head_count (" + std::to_string(h.n_head) + ") must be a multiple of " + k.prefix() +
             "attention.head_count_kv (" + std::to_string(h.n_head_kv) + ")");
  if (h.head_dim == 0)
    fail(ErrorCode::BadFormat, kNoOffset,
         "heads of size 0: " + k.prefix() + "embedding_length " + std::to_string(h.n_embd) + " / attention.head_count " +
             std::to_string(h.n_head));
  if (h.n_rot > h.head_dim || h.n_rot % 2 != 0)
    fail(ErrorCode::BadFormat, kNoOffset, "rope.dimension_count must be even and at most the head size");
  if (h.head_dim > 512) fail(ErrorCode::Unsupported, kNoOffset, "head size above 512");
  return h;
}

}  // namespace wasmlm
