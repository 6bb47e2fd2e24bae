// The forward pass of every decoder architecture: one layer loop that reads
// the architecture's row (decoder_arch.h) and the resolved hyperparameters.
// It reads like the math of a block:
//
//   x = embed(tokens) * embedding_scale
//   per layer:  h = norm(x) -> q, k, v (+ biases) -> q/k norm -> RoPE -> cache
//               -> attention (window, soft-cap) -> wo -> post-norm -> x += h
//               h = norm(x) -> act(gate) * up -> down -> post-norm -> x += h
//   logits = output(norm(x)) (/ logit_scale, soft-capped)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "compute/ops.h"
#include "core/error.h"
#include "model/decoder_context.h"
#include "quant/quant_traits.h"

namespace wasmlm {

DecoderContext::DecoderContext(const DecoderModel& model, uint32_t n_ctx, ThreadPool& pool, KvCacheType kv_type,
                               KernelChoice kernels)
    : model_(model),
      hp_(model.hparams()),
      pool_(pool),
      n_ctx_(n_ctx),
      kernels_(kernels),
      kv_(model.hparams(), n_ctx, kv_type),
      kq_scale_(model.arch().scale_query_first ? 1.0f : model.hparams().query_scale),
      rope_factors_(model.rope_factors(n_ctx)) {
  const DecoderHParams& h = hp_;
  const uint64_t d = h.n_embd, q_dim = h.q_dim(), kv_dim = h.kv_dim(), ff = h.n_ff, B = kMaxBatch;
  uint32_t max_capacity = 0;
  for (uint32_t l = 0; l < h.n_layer; ++l) max_capacity = std::max(max_capacity, kv_.capacity(l));
  const uint32_t tiles = h.n_head_kv * ((h.n_head / h.n_head_kv + AttentionBuffers::kTileRows - 1) / AttentionBuffers::kTileRows);
  attn_.resize(std::max<int>(pool.size(), static_cast<int>(tiles)) * AttentionBuffers::kTileRows, max_capacity, h.head_dim);
  x_.resize(B * d);
  xb_.resize(B * std::max(d, q_dim));
  xb2_.resize(B * std::max(d, q_dim));
  q_.resize(B * q_dim);
  k_.resize(B * kv_dim);
  v_.resize(B * kv_dim);
  for (const DecoderLayer& L : model.layers())
    if (L.fused_qkv) qkv_.resize(B * (q_dim + 2 * kv_dim));
  hb_.resize(B * ff);
  hb2_.resize(B * ff * (model.arch().fused_gate_up ? 2 : 1));
  logits_.resize(h.n_vocab);
  rope_cs_.resize(B * uint64_t(h.n_rot));
  rope_cs_window_.resize(B * uint64_t(h.n_rot));
}

const float* DecoderContext::eval(const int32_t* tokens, int n_tokens) {
  if (n_past_ + uint64_t(n_tokens) > n_ctx_)
    fail(ErrorCode::TooLarge, kNoOffset,
         "context full: " + std::to_string(n_past_) + " + " + std::to_string(n_tokens) + " tokens > n_ctx " +
             std::to_string(n_ctx_));
  for (int i = 0; i < n_tokens; ++i)
    if (tokens[i] < 0 || uint32_t(tokens[i]) >= hp_.n_vocab)
      fail(ErrorCode::BadFormat, kNoOffset, "token id " + std::to_string(tokens[i]) + " is outside the vocabulary");
  for (int i = 0; i < n_tokens; i += kMaxBatch) {
    const int n = std::min(kMaxBatch, n_tokens - i);
    auto batch = [&] { forward(tokens + i, n, n_past_, i + n == n_tokens); };
    scratch_.row_touch.run(n_tokens, batch);
    n_past_ += n;
  }
  return logits_.data();
}

bool DecoderContext::truncate(uint32_t n) {
  if (!kv_.can_truncate(n, n_past_)) return false;
  n_past_ = std::min(n_past_, n);
  return true;
}

namespace {

void add_bias(float* y, const std::vector<float>& b, uint64_t width, int n) {
  if (b.empty()) return;
  for (int t = 0; t < n; ++t)
    for (uint64_t i = 0; i < width; ++i) y[t * width + i] += b[i];
}

// x += scale * h, for count values.
void add_residual(float* x, const float* h, uint64_t count, float scale) {
  if (scale == 1.0f) {
    for (uint64_t i = 0; i < count; ++i) x[i] += h[i];
  } else {
    for (uint64_t i = 0; i < count; ++i) x[i] += h[i] * scale;
  }
}

}  // namespace

// q_, k_, v_ of the batch from the normed input: one matrix (fused qkv) or
// three sharing their quantized activations (biases come in position_qk).
void DecoderContext::project_qkv(const DecoderLayer& L, const float* in, int n, const ActivationBatch* prepared) {
  const uint64_t q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim(), qkv_dim = q_dim + 2 * kv_dim;
  if (L.fused_qkv) {
    matmul(L.wqkv, in, n, qkv_.data(), pool_, scratch_, kernels_, prepared);
    for (int t = 0; t < n; ++t) {
      const float* row = &qkv_[t * qkv_dim];
      std::copy(row, row + q_dim, &q_[t * q_dim]);
      std::copy(row + q_dim, row + q_dim + kv_dim, &k_[t * kv_dim]);
      std::copy(row + q_dim + kv_dim, row + qkv_dim, &v_[t * kv_dim]);
    }
  } else {
    const WeightMatrix* ws[3] = {&L.wq, &L.wk, &L.wv};
    float* ys[3] = {q_.data(), k_.data(), v_.data()};
    matmul_group(ws, ys, 3, in, n, pool_, scratch_, kernels_, prepared);
  }
}

// The biases, the q/k norms, RoPE, and the query scale where the
// architecture applies it first; then the keys and values into the cache
// (their F16 rounding, done serially, was a visible part of every layer of
// a prompt batch). A task per token.
void DecoderContext::position_qk(uint32_t l, int n, uint32_t pos0) {
  const DecoderArch& a = model_.arch();
  const DecoderLayer& L = model_.layers()[l];
  const DecoderLayerParams& P = hp_.layers[l];
  const int hd = static_cast<int>(hp_.head_dim);
  const uint64_t q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim();
  const float eps = hp_.rms_eps;
  const std::vector<float>& cs = P.windowed ? rope_cs_window_ : rope_cs_;
  auto rope = a.rope == RopeLayout::Neox ? rope_neox_cs : rope_normal_cs;
  bool nonfinite[kMaxBatch];
  pool_.parallel_for(n, [&](int t, int) {
    float* q = &q_[t * q_dim];
    float* k = &k_[t * kv_dim];
    add_bias(q, L.bq, q_dim, 1);
    add_bias(k, L.bk, kv_dim, 1);
    add_bias(&v_[t * kv_dim], L.bv, kv_dim, 1);
    if (a.qk_norm == QkNorm::PerHead) {
      for (uint64_t i = 0; i < q_dim; i += hd) rmsnorm(q + i, q + i, L.q_norm.data(), hd, eps);
      for (uint64_t i = 0; i < kv_dim; i += hd) rmsnorm(k + i, k + i, L.k_norm.data(), hd, eps);
    } else if (a.qk_norm == QkNorm::Whole) {
      rmsnorm(q, q, L.q_norm.data(), static_cast<int64_t>(q_dim), eps);
      rmsnorm(k, k, L.k_norm.data(), static_cast<int64_t>(kv_dim), eps);
    }
    if (P.rope) {
      rope(q, static_cast<int>(hp_.n_head), hd, static_cast<int>(hp_.n_rot), &cs[t * uint64_t(hp_.n_rot)]);
      rope(k, static_cast<int>(hp_.n_head_kv), hd, static_cast<int>(hp_.n_rot), &cs[t * uint64_t(hp_.n_rot)]);
    }
    if (a.scale_query_first)
      for (uint64_t i = 0; i < q_dim; ++i) q[i] *= hp_.query_scale;
    nonfinite[t] = kv_.write(l, pos0 + t, k, &v_[t * kv_dim]);
  });
  for (int t = 0; t < n; ++t) kv_.stored(l, pos0 + t, nonfinite[t]);
}

// hb_ = act(gate) * up of the normed input; then xb_ = down(hb_).
void DecoderContext::feed_forward(const DecoderLayer& L, const float* in, int n, const ActivationBatch* prepared) {
  const uint64_t ff = hp_.n_ff;
  const float* gate;
  const float* up;
  uint64_t stride;
  if (model_.arch().fused_gate_up) {
    matmul(L.w_up, in, n, hb2_.data(), pool_, scratch_, kernels_, prepared);
    gate = hb2_.data(), up = hb2_.data() + ff, stride = 2 * ff;
  } else {
    const WeightMatrix* ws[2] = {&L.w_gate, &L.w_up};
    float* ys[2] = {hb_.data(), hb2_.data()};
    matmul_group(ws, ys, 2, in, n, pool_, scratch_, kernels_, prepared);
    add_bias(hb_.data(), L.b_gate, ff, n);
    add_bias(hb2_.data(), L.b_up, ff, n);
    gate = hb_.data(), up = hb2_.data(), stride = ff;
  }
  const bool gelu = model_.arch().activation == FfnActivation::GeluTanh;
  // One task per token (the activations' exp/tanh calls were a visible
  // serial part of a prompt batch with several threads), which also
  // quantizes the rows for down.
  const ActivationBatch down_in(L.w_down, n, scratch_, kernels_);
  pool_.parallel_for(n, [&](int t, int) {
    const float* g = gate + t * stride;
    const float* u = up + t * stride;
    float* out = &hb_[t * ff];
    (gelu ? gelu_mul : silu_mul)(out, g, u, ff);
    down_in.quantize(t, out);
  });
  matmul(L.w_down, hb_.data(), n, xb_.data(), pool_, scratch_, kernels_, &down_in);
  add_bias(xb_.data(), L.b_down, hp_.n_embd, n);
}

// A batch of tokens at positions pos0.. through the network, each row of the
// activation buffers being one token.
void DecoderContext::forward(const int32_t* tokens, int n, uint32_t pos0, bool logits) {
  const DecoderHParams& h = hp_;
  const uint64_t d = h.n_embd;
  const WeightMatrix& e = model_.token_embd();
  for (int t = 0; t < n; ++t) {
    float* row = &x_[t * d];
    quant_traits(e.type).to_float(static_cast<const uint8_t*>(e.data) + tokens[t] * e.row_bytes, row, d);
    if (h.embedding_scale != 1.0f)
      for (uint64_t i = 0; i < d; ++i) row[i] *= h.embedding_scale;
  }
  // RoPE's rotations, the same in every layer of a kind.
  for (int t = 0; t < n; ++t) {
    const RopeParams& g = h.rope_global;
    rope_angles(&rope_cs_[t * uint64_t(h.n_rot)], h.n_rot, pos0 + t, g.base, g.scale, rope_factors_, g.attn_factor);
    if (h.n_swa) {
      const RopeParams& w = h.rope_window;
      rope_angles(&rope_cs_window_[t * uint64_t(h.n_rot)], h.n_rot, pos0 + t, w.base, w.scale, nullptr, w.attn_factor);
    }
  }

  int m = n;  // the tokens going on through the layer after its attention
  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const DecoderLayer& L = model_.layers()[l];
    // Attention. The norms' per-token tasks also quantize their rows for the
    // products that follow.
    const float* in = x_.data();
    std::optional<ActivationBatch> qkv_in;
    if (!L.attn_norm.empty()) {
      qkv_in.emplace(L.fused_qkv ? L.wqkv : L.wq, n, scratch_, kernels_);
      pool_.parallel_for(n, [&](int t, int) {
        rmsnorm(&xb_[t * d], &x_[t * d], L.attn_norm.data(), int64_t(d), h.rms_eps);
        qkv_in->quantize(t, &xb_[t * d]);
      });
      in = xb_.data();
    }
    project_qkv(L, in, n, qkv_in ? &*qkv_in : nullptr);
    position_qk(l, n, pos0);
    if (l + 1 == h.n_layer) {
      // The last layer's keys and values are stored; past them only the
      // logits need anything: nothing in a batch that returns none, else the
      // last token (its query and stream rows moved to row 0). llama.cpp
      // likewise computes only its output rows there.
      if (!logits) return;
      if (n > 1) {
        std::copy_n(&q_[(n - 1) * h.q_dim()], h.q_dim(), q_.data());
        std::copy_n(&x_[(n - 1) * d], d, x_.data());
        m = 1;
      }
    }
    attention(l, pos0 + n - m, m);
    matmul(L.wo, xb2_.data(), m, xb_.data(), pool_, scratch_, kernels_);
    // Into the residual stream, and the feed-forward's input norm.
    std::optional<ActivationBatch> ffn_in;
    if (!L.ffn_norm.empty()) ffn_in.emplace(model_.arch().fused_gate_up ? L.w_up : L.w_gate, m, scratch_, kernels_);
    pool_.parallel_for(m, [&](int t, int) {
      float* o = &xb_[t * d];
      float* row = &x_[t * d];
      add_bias(o, L.bo, d, 1);
      if (!L.attn_post_norm.empty()) rmsnorm(o, o, L.attn_post_norm.data(), int64_t(d), h.rms_eps);
      add_residual(row, o, d, h.residual_scale);
      if (ffn_in) {
        rmsnorm(&xb2_[t * d], row, L.ffn_norm.data(), int64_t(d), h.rms_eps);
        ffn_in->quantize(t, &xb2_[t * d]);
      }
    });

    // Feed-forward.
    feed_forward(L, ffn_in ? xb2_.data() : x_.data(), m, ffn_in ? &*ffn_in : nullptr);
    pool_.parallel_for(m, [&](int t, int) {
      float* o = &xb_[t * d];
      if (!L.ffn_post_norm.empty()) rmsnorm(o, o, L.ffn_post_norm.data(), int64_t(d), h.rms_eps);
      add_residual(&x_[t * d], o, d, h.residual_scale);
    });
  }

  // Only the last token's logits are returned.
  rmsnorm(xb_.data(), &x_[(m - 1) * d], model_.output_norm().data(), d, h.rms_eps);
  matvec(model_.output(), xb_.data(), logits_.data(), pool_, scratch_, kernels_);
  add_bias(logits_.data(), model_.output_bias(), h.n_vocab, 1);
  if (h.logit_scale != 1.0f)
    for (float& v : logits_) v *= 1.0f / h.logit_scale;
  if (h.final_softcap != 0.0f)
    for (float& v : logits_) v = softcap(v, h.final_softcap);
}

}  // namespace wasmlm
