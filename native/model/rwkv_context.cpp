// RwkvContext: the token loop around the layers (embedding, layer norms,
// token shift, channel mix, head) and the recurrent state. The time mixes,
// which differ by version, are in rwkv_time_mix.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"
#include "model/rwkv_model.h"
#include "model/rwkv_ops.h"
#include "quant/quant_traits.h"

namespace wasmlm {

namespace {
constexpr int kMaxBatch = 32;
}  // namespace

size_t RwkvContext::layer_state_size() const {
  const RwkvHParams& h = model_.hparams();
  // ffn shift, att shift, then v4's aa, bb, pp or v5+'s heads' matrices
  return h.version == RwkvVersion::V4 ? 5 * size_t(h.n_embd) : 2 * size_t(h.n_embd) + size_t(h.n_embd) * h.head_size;
}

RwkvContext::RwkvContext(const RwkvModel& model, ThreadPool& pool, KernelChoice kernels)
    : model_(model), pool_(pool), kernels_(kernels) {
  const RwkvHParams& h = model.hparams();
  const size_t C = h.n_embd, F = h.n_ffn;
  state_.resize(layer_state_size() * h.n_layer);
  reset();
  logits_.assign(h.n_vocab, 0.f);
  for (auto* b : {&x_, &xn_, &prev_, &xa_, &xb_, &xc_, &xd_, &xe_, &xf_, &r_, &k_, &v_, &g_, &w_, &a_, &kk_, &v_first_, &y_})
    b->resize(kMaxBatch * C);
  size_t lora = 5 * size_t(h.lora_mix);
  for (const RwkvLayer& L : model.layers())
    for (const WeightMatrix* m : {&L.decay_w1, &L.w1, &L.a1, &L.v1, &L.g1}) lora = std::max<size_t>(lora, m->rows);
  ffn_.resize(kMaxBatch * std::max(F, lora));
}

void RwkvContext::reset() {
  std::fill(state_.begin(), state_.end(), 0.f);
  const RwkvHParams& h = model_.hparams();
  if (h.version == RwkvVersion::V4)  // pp (the running maximum exponent) starts at "minus infinity"
    for (uint32_t l = 0; l < h.n_layer; ++l)
      std::fill_n(&state_[l * layer_state_size() + 4 * size_t(h.n_embd)], h.n_embd, -1e30f);
}

void RwkvContext::set_state(const float* values, size_t n, const float* logits) {
  if (n != state_.size())
    fail(ErrorCode::BadFormat, kNoOffset,
         "an RWKV state of " + std::to_string(n) + " floats does not fit this model (" + std::to_string(state_.size()) +
             ")");
  std::copy(values, values + n, state_.begin());
  if (logits) std::copy(logits, logits + logits_.size(), logits_.begin());
}

const float* RwkvContext::eval(const int32_t* tokens, int n_tokens) {
  const RwkvHParams& h = model_.hparams();
  for (int i = 0; i < n_tokens; ++i)
    if (tokens[i] < 0 || uint32_t(tokens[i]) >= h.n_vocab)
      fail(ErrorCode::BadFormat, kNoOffset, "token id " + std::to_string(tokens[i]) + " is outside the vocabulary");
  for (int i = 0; i < n_tokens; i += kMaxBatch) {
    auto batch = [&] { forward(tokens + i, std::min(kMaxBatch, n_tokens - i)); };
    scratch_.row_touch.run(n_tokens, batch);
  }
  return logits_.data();
}

// x_ (residual) <- embeddings; per layer: time mix then channel mix, each on
// the layer-normed input with its token shift; logits of the last token.
void RwkvContext::forward(const int32_t* tokens, int n) {
  const RwkvHParams& h = model_.hparams();
  const size_t C = h.n_embd;
  const float eps = h.norm_eps;
  const WeightMatrix& e = model_.emb();
  for (int t = 0; t < n; ++t) {
    quant_traits(e.type).to_float(static_cast<const uint8_t*>(e.data) + tokens[t] * e.row_bytes, &x_[t * C], C);
    layer_norm(&x_[t * C], &x_[t * C], model_.ln0_w().data(), model_.ln0_b().data(), C, eps);
  }
  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const RwkvLayer& L = model_.layers()[l];
    float* st = &state_[l * layer_state_size()];
    // Time mix: its shifted input is the state's second vector.
    for (int t = 0; t < n; ++t) layer_norm(&xn_[t * C], &x_[t * C], L.ln1_w.data(), L.ln1_b.data(), C, eps);
    token_shift(xn_.data(), st + C, prev_.data(), n, C);
    switch (h.version) {
      case RwkvVersion::V4: time_mix_v4(L, st, n); break;
      case RwkvVersion::V5_1:
      case RwkvVersion::V5_2: time_mix_v5(L, st, n); break;
      case RwkvVersion::V6: time_mix_v6(L, st, n); break;
      case RwkvVersion::V7: time_mix_v7(L, st, n, l == 0); break;
    }
    for (size_t i = 0; i < n * C; ++i) x_[i] += y_[i];
    // Channel mix: shifted input in the state's first vector.
    for (int t = 0; t < n; ++t) layer_norm(&xn_[t * C], &x_[t * C], L.ln2_w.data(), L.ln2_b.data(), C, eps);
    token_shift(xn_.data(), st, prev_.data(), n, C);
    channel_mix(L, n);
    for (size_t i = 0; i < n * C; ++i) x_[i] += y_[i];
    if (h.rescale_every && (l + 1) % h.rescale_every == 0)
      for (size_t i = 0; i < n * C; ++i) x_[i] *= 0.5f;
  }
  layer_norm(xn_.data(), &x_[(n - 1) * C], model_.ln_out_w().data(), model_.ln_out_b().data(), C, eps);
  matvec(model_.head(), xn_.data(), logits_.data(), pool_, scratch_, kernels_);
}

// y_ = the channel mix of xn_ (shifted: prev_): r * (Wv relu(Wk xk)^2), v7
// without the receptance.
void RwkvContext::channel_mix(const RwkvLayer& L, int n) {
  const RwkvHParams& h = model_.hparams();
  const size_t C = h.n_embd, F = h.n_ffn;
  const bool maa = h.version == RwkvVersion::V6 || h.version == RwkvVersion::V7;  // x + (prev - x) * m
  for (size_t i = 0; i < n * C; ++i) {
    const size_t c = i % C;
    const float x = xn_[i], p = prev_[i];
    if (maa) {
      const float sx = p - x;
      xa_[i] = x + sx * L.ffn_mix_k[c];
      if (h.version == RwkvVersion::V6) xb_[i] = x + sx * L.ffn_mix_r[c];
    } else {
      xa_[i] = x * L.ffn_mix_k[c] + p * (1.f - L.ffn_mix_k[c]);
      xb_[i] = x * L.ffn_mix_r[c] + p * (1.f - L.ffn_mix_r[c]);
    }
  }
  matmul(L.ffn_k, xa_.data(), n, ffn_.data(), pool_, scratch_, kernels_);
  for (size_t i = 0; i < n * F; ++i) {
    const float v = std::max(ffn_[i], 0.f);
    ffn_[i] = v * v;
  }
  matmul(L.ffn_v, ffn_.data(), n, y_.data(), pool_, scratch_, kernels_);
  if (h.version == RwkvVersion::V7) return;
  matmul(L.ffn_r, xb_.data(), n, r_.data(), pool_, scratch_, kernels_);
  for (size_t i = 0; i < n * C; ++i) y_[i] *= sigmoid(r_[i]);
}

}  // namespace wasmlm
