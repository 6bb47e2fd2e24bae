#include "model/llama_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "compute/ops.h"
#include "core/error.h"
#include "quant/fp16.h"
#include "quant/quant_traits.h"
#include "quant/simd128.h"
#include "model/weight_views.h"

namespace wasmlm {


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
  if (store.find("rope_freqs.weight")) rope_freqs_ = vector_f32(store, "rope_freqs.weight", hp_.n_rot / 2);
  // Tied embeddings: without output.weight the embedding matrix is reused.
  output_ = store.find("output.weight") ? matrix(store, "output.weight", hp_.n_vocab, d) : token_embd_;
}

LlamaContext::LlamaContext(const LlamaModel& model, uint32_t n_ctx, ThreadPool& pool, KvCacheType kv_type,
                           KernelChoice kernels)
    : model_(model), pool_(pool), n_ctx_(n_ctx), kv_type_(kv_type), kernels_(kernels) {
  const LlamaHParams& h = model.hparams();
  const uint64_t kv_dim = uint64_t(h.n_head_kv) * h.head_dim;
  k_stride_ = (uint64_t(n_ctx) + 3) / 4 * 4;
  // Padding: the SIMD loops read up to 8 values past the last position.
  const uint64_t k_size = uint64_t(h.n_layer) * h.n_head_kv * h.head_dim * k_stride_ + kPad;
  const uint64_t v_size = uint64_t(h.n_layer) * n_ctx * kv_dim + kPad;
  if (kv_type == KvCacheType::F16) {
    k_cache16_.assign(k_size, 0);
    v_cache16_.assign(v_size, 0);
    kv_f32_.resize(uint64_t(pool.size()) * (2 * uint64_t(h.head_dim) * (k_stride_ + 16) + kPad));
  } else {
    k_cache_.assign(k_size, 0.f);
    v_cache_.assign(v_size, 0.f);
  }
  const uint64_t q_dim = uint64_t(h.n_head) * h.head_dim;
  x_.resize(kMaxBatch * uint64_t(h.n_embd));
  xb_.resize(kMaxBatch * std::max<uint64_t>(h.n_embd, q_dim));
  xb2_.resize(xb_.size());
  q_.resize(kMaxBatch * q_dim);
  k_.resize(kMaxBatch * kv_dim);
  v_.resize(kMaxBatch * kv_dim);
  att_.resize(uint64_t(pool.size()) * (k_stride_ + kPad));
  hb_.resize(kMaxBatch * uint64_t(h.n_ff));
  hb2_.resize(kMaxBatch * uint64_t(h.n_ff));
  logits_.resize(h.n_vocab);
  rope_cs_.resize(kMaxBatch * uint64_t(h.n_rot));
}

const float* LlamaContext::eval(const int32_t* tokens, int n_tokens) {
  const LlamaHParams& h = model_.hparams();
  if (n_past_ + uint64_t(n_tokens) > n_ctx_)
    fail(ErrorCode::TooLarge, kNoOffset,
         "context full: " + std::to_string(n_past_) + " + " + std::to_string(n_tokens) + " tokens > n_ctx " +
             std::to_string(n_ctx_));
  for (int i = 0; i < n_tokens; ++i)
    if (tokens[i] < 0 || uint32_t(tokens[i]) >= h.n_vocab)
      fail(ErrorCode::BadFormat, kNoOffset, "token id " + std::to_string(tokens[i]) + " is outside the vocabulary");
  for (int i = 0; i < n_tokens; i += kMaxBatch) {
    const int n = std::min(kMaxBatch, n_tokens - i);
    forward(tokens + i, n, n_past_);
    n_past_ += n;
  }
  return logits_.data();
}

// A batch of tokens at positions pos0.. through the network, as llama2.c's
// forward() does for one: the math in order, each row of the activation
// buffers being one token.
void LlamaContext::forward(const int32_t* tokens, int n, uint32_t pos0) {
  const LlamaHParams& h = model_.hparams();
  const int hd = static_cast<int>(h.head_dim);
  const uint64_t d = h.n_embd, q_dim = uint64_t(h.n_head) * hd, kv_dim = uint64_t(h.n_head_kv) * hd;
  // Embedding lookup: one row of token_embd per token, dequantized.
  const WeightMatrix& e = model_.token_embd();
  for (int t = 0; t < n; ++t)
    quant_traits(e.type).to_float(static_cast<const uint8_t*>(e.data) + tokens[t] * e.row_bytes, &x_[t * d], d);

  // RoPE's rotations, the same in every layer.
  for (int t = 0; t < n; ++t)
    rope_angles(&rope_cs_[t * uint64_t(h.n_rot)], h.n_rot, pos0 + t, h.rope_freq_base, h.rope_freq_scale,
                model_.rope_freqs());

  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const LlamaLayer& L = model_.layers()[l];
    // Attention: rmsnorm -> q, k, v -> RoPE -> cache -> softmax(q k / sqrt(d)) v -> wo -> residual.
    for (int t = 0; t < n; ++t) rmsnorm(&xb_[t * d], &x_[t * d], L.attn_norm.data(), d, h.rms_eps);
    {
      const WeightMatrix* ws[3] = {&L.wq, &L.wk, &L.wv};
      float* ys[3] = {q_.data(), k_.data(), v_.data()};
      matmul_group(ws, ys, 3, xb_.data(), n, pool_, scratch_, kernels_);
    }
    for (int t = 0; t < n; ++t) {
      rope_normal_cs(&q_[t * q_dim], h.n_head, hd, h.n_rot, &rope_cs_[t * uint64_t(h.n_rot)]);
      rope_normal_cs(&k_[t * kv_dim], h.n_head_kv, hd, h.n_rot, &rope_cs_[t * uint64_t(h.n_rot)]);
    }
    store_kv(l, pos0, n);
    attention(l, pos0, n);
    matmul(L.wo, xb2_.data(), n, xb_.data(), pool_, scratch_, kernels_);
    for (uint64_t i = 0; i < n * d; ++i) x_[i] += xb_[i];

    // Feed-forward (SwiGLU): rmsnorm -> silu(gate) * up -> down -> residual.
    for (int t = 0; t < n; ++t) rmsnorm(&xb_[t * d], &x_[t * d], L.ffn_norm.data(), d, h.rms_eps);
    {
      const WeightMatrix* ws[2] = {&L.w_gate, &L.w_up};
      float* ys[2] = {hb_.data(), hb2_.data()};
      matmul_group(ws, ys, 2, xb_.data(), n, pool_, scratch_, kernels_);
    }
    // One task per token: its std::exp calls are a visible serial part of a
    // prompt batch with several threads.
    const uint64_t ff = h.n_ff;
    pool_.parallel_for(n, [&](int t, int) {
      for (uint64_t i = t * ff; i < (t + 1) * ff; ++i) hb_[i] = silu(hb_[i]) * hb2_[i];
    });
    matmul(L.w_down, hb_.data(), n, xb_.data(), pool_, scratch_, kernels_);
    for (uint64_t i = 0; i < n * d; ++i) x_[i] += xb_[i];
  }

  // Only the last token's logits are returned.
  rmsnorm(xb_.data(), &x_[(n - 1) * d], model_.output_norm().data(), d, h.rms_eps);
  matvec(model_.output(), xb_.data(), logits_.data(), pool_, scratch_, kernels_);
}

}  // namespace wasmlm
