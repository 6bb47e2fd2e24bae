#include "model/llama_model.h"

#include <cmath>
#include <cstring>
#include <string>

#include "compute/ops.h"
#include "core/error.h"
#include "quant/fp16.h"
#include "quant/quant_traits.h"

namespace wasmlm {

namespace {

const WeightStore::Tensor& tensor(const WeightStore& store, const std::string& name) {
  const WeightStore::Tensor* t = store.find(name);
  if (!t) fail(ErrorCode::BadFormat, kNoOffset, "the model has no (complete) tensor '" + name + "'");
  return *t;
}

// A 2-D weight [ne0 = cols, ne1 = rows] expected to be rows x cols.
WeightMatrix matrix(const WeightStore& store, const std::string& name, uint64_t rows, uint64_t cols) {
  const WeightStore::Tensor& t = tensor(store, name);
  const TensorInfo& i = t.info;
  if (i.n_dims != 2 || i.ne[0] != cols || i.ne[1] != rows)
    fail(ErrorCode::BadFormat, i.offset,
         "tensor '" + name + "' has shape [" + std::to_string(i.ne[0]) + ", " + std::to_string(i.ne[1]) +
             "], expected [" + std::to_string(cols) + ", " + std::to_string(rows) + "]");
  if (!i.rows_block_aligned())
    fail(ErrorCode::Unsupported, i.offset,
         "tensor '" + name + "' has " + ggml_type_info(i.type).name + " blocks running across its rows of " +
             std::to_string(cols) + "; llama.cpp refuses such files too: re-quantize the model");
  if (!quant_traits(i.type).vec_dot)
    fail(ErrorCode::Unsupported, i.offset,
         std::string("tensor type ") + ggml_type_info(i.type).name + " (in '" + name + "') cannot be computed yet");
  return WeightMatrix{i.type, static_cast<int64_t>(cols), static_cast<int64_t>(rows), t.data.get(), i.nbytes / rows};
}

std::vector<float> vector_f32(const WeightStore& store, const std::string& name, uint64_t n) {
  const WeightStore::Tensor& t = tensor(store, name);
  if (t.info.n_elements() != n)
    fail(ErrorCode::BadFormat, t.info.offset, "tensor '" + name + "' should have " + std::to_string(n) + " elements");
  const ToFloatFn to_float = quant_traits(t.info.type).to_float;
  if (!to_float) fail(ErrorCode::Unsupported, t.info.offset, "cannot read tensor '" + name + "' as floats");
  std::vector<float> out(n);
  to_float(t.data.get(), out.data(), static_cast<int64_t>(n));
  return out;
}

}  // namespace

LlamaModel::LlamaModel(const ModelFile& file, const WeightStore& store) : hp_(read_llama_hparams(file)) {
  const uint64_t d = hp_.n_embd, q_dim = uint64_t(hp_.n_head) * hp_.head_dim,
                 kv_dim = uint64_t(hp_.n_head_kv) * hp_.head_dim;
  token_embd_ = matrix(store, "token_embd.weight", hp_.n_vocab, d);
  for (uint32_t l = 0; l < hp_.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    LlamaLayer layer;
    layer.attn_norm = vector_f32(store, p + "attn_norm.weight", d);
    layer.wq = matrix(store, p + "attn_q.weight", q_dim, d);
    layer.wk = matrix(store, p + "attn_k.weight", kv_dim, d);
    layer.wv = matrix(store, p + "attn_v.weight", kv_dim, d);
    layer.wo = matrix(store, p + "attn_output.weight", d, q_dim);
    layer.ffn_norm = vector_f32(store, p + "ffn_norm.weight", d);
    layer.w_gate = matrix(store, p + "ffn_gate.weight", hp_.n_ff, d);
    layer.w_up = matrix(store, p + "ffn_up.weight", hp_.n_ff, d);
    layer.w_down = matrix(store, p + "ffn_down.weight", d, hp_.n_ff);
    layers_.push_back(std::move(layer));
  }
  output_norm_ = vector_f32(store, "output_norm.weight", d);
  // Tied embeddings: without output.weight the embedding matrix is reused.
  output_ = store.find("output.weight") ? matrix(store, "output.weight", hp_.n_vocab, d) : token_embd_;
}

LlamaContext::LlamaContext(const LlamaModel& model, uint32_t n_ctx, ThreadPool& pool, KvCacheType kv_type)
    : model_(model), pool_(pool), n_ctx_(n_ctx), kv_type_(kv_type) {
  const LlamaHParams& h = model.hparams();
  const uint64_t kv_dim = uint64_t(h.n_head_kv) * h.head_dim;
  const uint64_t cache_size = uint64_t(h.n_layer) * n_ctx * kv_dim;
  if (kv_type == KvCacheType::F16) {
    k_cache16_.assign(cache_size, 0);
    v_cache16_.assign(cache_size, 0);
  } else {
    k_cache_.assign(cache_size, 0.f);
    v_cache_.assign(cache_size, 0.f);
  }
  x_.resize(h.n_embd);
  xb_.resize(std::max<uint64_t>(h.n_embd, uint64_t(h.n_head) * h.head_dim));
  xb2_.resize(xb_.size());
  q_.resize(uint64_t(h.n_head) * h.head_dim);
  k_.resize(kv_dim);
  v_.resize(kv_dim);
  att_.resize(n_ctx);
  hb_.resize(h.n_ff);
  hb2_.resize(h.n_ff);
  logits_.resize(h.n_vocab);
}

const float* LlamaContext::eval(const int32_t* tokens, int n_tokens) {
  const LlamaHParams& h = model_.hparams();
  if (n_past_ + uint64_t(n_tokens) > n_ctx_)
    fail(ErrorCode::TooLarge, kNoOffset,
         "context full: " + std::to_string(n_past_) + " + " + std::to_string(n_tokens) + " tokens > n_ctx " +
             std::to_string(n_ctx_));
  for (int i = 0; i < n_tokens; ++i) {
    if (tokens[i] < 0 || uint32_t(tokens[i]) >= h.n_vocab)
      fail(ErrorCode::BadFormat, kNoOffset, "token id " + std::to_string(tokens[i]) + " is outside the vocabulary");
    forward(tokens[i], n_past_++);
  }
  return logits_.data();
}

// One token through the network, as llama2.c's forward(): the math in order.
void LlamaContext::forward(int32_t token, uint32_t pos) {
  const LlamaHParams& h = model_.hparams();
  const int hd = static_cast<int>(h.head_dim);
  // Embedding lookup: one row of token_embd, dequantized.
  const WeightMatrix& e = model_.token_embd();
  quant_traits(e.type).to_float(static_cast<const uint8_t*>(e.data) + token * e.row_bytes, x_.data(), h.n_embd);

  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const LlamaLayer& L = model_.layers()[l];
    // Attention: rmsnorm -> q, k, v -> RoPE -> cache -> softmax(q k / sqrt(d)) v -> wo -> residual.
    rmsnorm(xb_.data(), x_.data(), L.attn_norm.data(), h.n_embd, h.rms_eps);
    matvec(L.wq, xb_.data(), q_.data(), pool_, scratch_);
    matvec(L.wk, xb_.data(), k_.data(), pool_, scratch_);
    matvec(L.wv, xb_.data(), v_.data(), pool_, scratch_);
    rope_normal(q_.data(), h.n_head, hd, h.n_rot, pos, h.rope_freq_base, h.rope_freq_scale);
    rope_normal(k_.data(), h.n_head_kv, hd, h.n_rot, pos, h.rope_freq_base, h.rope_freq_scale);
    attention(l, pos);
    matvec(L.wo, xb2_.data(), xb_.data(), pool_, scratch_);
    for (uint32_t i = 0; i < h.n_embd; ++i) x_[i] += xb_[i];

    // Feed-forward (SwiGLU): rmsnorm -> silu(gate) * up -> down -> residual.
    rmsnorm(xb_.data(), x_.data(), L.ffn_norm.data(), h.n_embd, h.rms_eps);
    matvec(L.w_gate, xb_.data(), hb_.data(), pool_, scratch_);
    matvec(L.w_up, xb_.data(), hb2_.data(), pool_, scratch_);
    for (uint32_t i = 0; i < h.n_ff; ++i) hb_[i] = silu(hb_[i]) * hb2_[i];
    matvec(L.w_down, hb_.data(), xb_.data(), pool_, scratch_);
    for (uint32_t i = 0; i < h.n_embd; ++i) x_[i] += xb_[i];
  }

  rmsnorm(xb_.data(), x_.data(), model_.output_norm().data(), h.n_embd, h.rms_eps);
  matvec(model_.output(), xb_.data(), logits_.data(), pool_, scratch_);
}

// Appends this position's k and v to the cache and computes
// softmax(q k / sqrt(d)) v for every query head into xb2_.
void LlamaContext::attention(uint32_t l, uint32_t pos) {
  const LlamaHParams& h = model_.hparams();
  const int hd = static_cast<int>(h.head_dim);
  const uint64_t kv_dim = uint64_t(h.n_head_kv) * hd;
  const int group = static_cast<int>(h.n_head / h.n_head_kv);  // query heads per key/value head
  const float att_scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const uint64_t layer_off = uint64_t(l) * n_ctx_ * kv_dim;
  const bool f16 = kv_type_ == KvCacheType::F16;
  if (f16) {
    for (uint64_t i = 0; i < kv_dim; ++i) {
      k_cache16_[layer_off + pos * kv_dim + i] = fp32_to_fp16(k_[i]);
      v_cache16_[layer_off + pos * kv_dim + i] = fp32_to_fp16(v_[i]);
    }
  } else {
    std::memcpy(k_cache_.data() + layer_off + pos * kv_dim, k_.data(), kv_dim * sizeof(float));
    std::memcpy(v_cache_.data() + layer_off + pos * kv_dim, v_.data(), kv_dim * sizeof(float));
  }
  // Rounds to F16 and back where llama.cpp's F16 cache makes it round.
  auto r16 = [f16](float x) { return f16 ? fp16_to_fp32(fp32_to_fp16(x)) : x; };
  auto k_at = [&](uint64_t i) { return f16 ? fp16_to_fp32_fast(k_cache16_[layer_off + i]) : k_cache_[layer_off + i]; };
  auto v_at = [&](uint64_t i) { return f16 ? fp16_to_fp32_fast(v_cache16_[layer_off + i]) : v_cache_[layer_off + i]; };
  float q[512];  // head_dim is at most a few hundred
  if (hd > 512) fail(ErrorCode::Unsupported, kNoOffset, "head size above 512");
  for (uint32_t head = 0; head < h.n_head; ++head) {
    for (int i = 0; i < hd; ++i) q[i] = r16(q_[head * hd + i]);
    const uint64_t kv_off = uint64_t(head / group) * hd;
    for (uint32_t t = 0; t <= pos; ++t) {
      float score = 0;
      for (int i = 0; i < hd; ++i) score += q[i] * k_at(t * kv_dim + kv_off + i);
      att_[t] = score * att_scale;
    }
    softmax(att_.data(), pos + 1);
    float* out = xb2_.data() + head * hd;
    std::fill(out, out + hd, 0.f);
    for (uint32_t t = 0; t <= pos; ++t) {
      const float a = r16(att_[t]);
      for (int i = 0; i < hd; ++i) out[i] += a * v_at(t * kv_dim + kv_off + i);
    }
  }
}

}  // namespace wasmlm
