// The RWKV time mixes ("attention"), one per architecture version, as
// rwkv.cpp's graphs compute them. Each reads the layer-normed input xn_ and
// its token-shifted copy prev_ (n tokens), updates the layer's state and
// leaves the block's output in y_.
#include <algorithm>
#include <cmath>

#include "model/rwkv_model.h"
#include "model/rwkv_ops.h"

namespace wasmlm {

namespace {

// out = x * m + prev * (1 - m) over n tokens of c channels (v4, v5).
void lerp_mix(const float* x, const float* prev, const std::vector<float>& m, float* out, int n, size_t c) {
  for (size_t i = 0; i < n * c; ++i) out[i] = x[i] * m[i % c] + prev[i] * (1.f - m[i % c]);
}

// out = x + (prev - x) * (m + dm)  (v6: dm the LoRA's data-dependent part; v7: none).
void shift_mix(const float* x, const float* prev, const std::vector<float>& m, const float* dm, float* out, int n,
               size_t c) {
  for (size_t i = 0; i < n * c; ++i) out[i] = x[i] + (prev[i] - x[i]) * (m[i % c] + (dm ? dm[i] : 0.f));
}

// v5/v6 wkv of one head for one token: o[j] = sum_i r[i] (u[i] k[i] v[j] + s[i][j]),
// then s[i][j] = s[i][j] w[i] + k[i] v[j] (s: head_size x head_size, row i per key channel).
void wkv_v5_head(const float* r, const float* k, const float* v, const float* u, const float* w, float* s, float* o,
                 size_t size) {
  std::fill(o, o + size, 0.f);
  for (size_t i = 0; i < size; ++i) {
    float* si = s + i * size;
    const float ri = r[i], ki = k[i], ui = u[i], wi = w[i];
    for (size_t j = 0; j < size; ++j) {
      const float kv = ki * v[j];
      o[j] += ri * (ui * kv + si[j]);
      si[j] = si[j] * wi + kv;
    }
  }
}

// v7 wkv of one head for one token (s: row i per value channel):
// sa = sum_j a[j] s[i][j]; s[i][j] = s[i][j] w[j] + v[i] k[j] + sa b[j]; o[i] = sum_j s[i][j] r[j].
void wkv_v7_head(const float* r, const float* w, const float* k, const float* v, const float* a, const float* b,
                 float* s, float* o, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    float* si = s + i * size;
    float sa = 0;
    for (size_t j = 0; j < size; ++j) sa += a[j] * si[j];
    float sum = 0;
    for (size_t j = 0; j < size; ++j) {
      si[j] = si[j] * w[j] + v[i] * k[j] + sa * b[j];
      sum += si[j] * r[j];
    }
    o[i] = sum;
  }
}

}  // namespace

// v4/v5: r_, k_, v_ = the projections of the token-shift interpolations.
void RwkvContext::rkv_lerp_projections(const RwkvLayer& L, int n) {
  const size_t C = model_.hparams().n_embd;
  lerp_mix(xn_.data(), prev_.data(), L.mix_k, xa_.data(), n, C);
  lerp_mix(xn_.data(), prev_.data(), L.mix_v, xb_.data(), n, C);
  lerp_mix(xn_.data(), prev_.data(), L.mix_r, xc_.data(), n, C);
  matmul(L.att_r, xc_.data(), n, r_.data(), pool_, scratch_, kernels_);
  matmul(L.att_k, xa_.data(), n, k_.data(), pool_, scratch_, kernels_);
  matmul(L.att_v, xb_.data(), n, v_.data(), pool_, scratch_, kernels_);
}

// v4: the per-channel WKV with the running maximum exponent pp (aa, bb: the
// scaled numerator and denominator), y = Wo (sigmoid(r) * wkv).
void RwkvContext::time_mix_v4(const RwkvLayer& L, float* st, int n) {
  const size_t C = model_.hparams().n_embd;
  rkv_lerp_projections(L, n);
  float *aa = st + 2 * C, *bb = st + 3 * C, *pp = st + 4 * C;
  for (int t = 0; t < n; ++t)
    for (size_t c = 0; c < C; ++c) {
      const float k = k_[t * C + c], v = v_[t * C + c];
      float ww = L.time_first[c] + k;
      float qq = std::max(pp[c], ww);
      float e1 = std::exp(pp[c] - qq), e2 = std::exp(ww - qq);
      const float a = e1 * aa[c] + e2 * v, b = e1 * bb[c] + e2;
      ww = pp[c] + L.time_decay[c];
      qq = std::max(ww, k);
      e1 = std::exp(ww - qq);
      e2 = std::exp(k - qq);
      aa[c] = e1 * aa[c] + e2 * v;
      bb[c] = e1 * bb[c] + e2;
      pp[c] = qq;
      xe_[t * C + c] = sigmoid(r_[t * C + c]) * (a / b);
    }
  matmul(L.att_o, xe_.data(), n, y_.data(), pool_, scratch_, kernels_);
}

// xe_ (the heads' outputs) -> group norm per head (eps; v6/v7 scale by 1/8
// first as rwkv.cpp does) -> * ln_x + bias -> * g_ (v5.2+) -> y_ = Wo (.)
void RwkvContext::heads_output(const RwkvLayer& L, int n, float pre_scale) {
  const RwkvHParams& h = model_.hparams();
  const size_t C = h.n_embd;
  if (pre_scale != 1.f)
    for (size_t i = 0; i < n * C; ++i) xe_[i] *= pre_scale;
  group_norm(xe_.data(), size_t(n) * h.n_head, h.head_size, 1e-5f);
  const bool gate = h.version != RwkvVersion::V5_1;
  for (size_t i = 0; i < n * C; ++i) {
    xe_[i] = xe_[i] * L.ln_x_w[i % C] + L.ln_x_b[i % C];
    if (gate && h.version != RwkvVersion::V7) xe_[i] *= g_[i];
  }
}

void RwkvContext::time_mix_v5(const RwkvLayer& L, float* st, int n) {
  const RwkvHParams& h = model_.hparams();
  const size_t C = h.n_embd, S = h.head_size;
  rkv_lerp_projections(L, n);
  if (h.version == RwkvVersion::V5_2) {
    lerp_mix(xn_.data(), prev_.data(), L.mix_g, xd_.data(), n, C);
    matmul(L.att_g, xd_.data(), n, g_.data(), pool_, scratch_, kernels_);
    for (size_t i = 0; i < n * C; ++i) g_[i] = g_[i] / (1.f + std::exp(-g_[i]));  // silu
  }
  float* heads = st + 2 * C;
  for (int t = 0; t < n; ++t)
    for (size_t hd = 0; hd < h.n_head; ++hd) {
      const size_t at = t * C + hd * S;
      wkv_v5_head(&r_[at], &k_[at], &v_[at], &L.time_first[hd * S], &L.time_decay[hd * S], heads + hd * S * S,
                  &xe_[at], S);
    }
  heads_output(L, n, 1.f);
  matmul(L.att_o, xe_.data(), n, y_.data(), pool_, scratch_, kernels_);
}

// v6: token-shift factors and the decay made data-dependent by small LoRAs.
void RwkvContext::time_mix_v6(const RwkvLayer& L, float* st, int n) {
  const RwkvHParams& h = model_.hparams();
  const size_t C = h.n_embd, S = h.head_size, D = h.lora_mix;
  // xxx = x + (prev - x) * maa_x -> tanh(W1 .) -> five D-wide parts -> W2_i each
  shift_mix(xn_.data(), prev_.data(), L.maa_x, nullptr, xa_.data(), n, C);
  matmul(L.maa_w1, xa_.data(), n, ffn_.data(), pool_, scratch_, kernels_);
  for (size_t i = 0; i < n * 5 * D; ++i) ffn_[i] = std::tanh(ffn_[i]);
  float* mixed[5] = {xa_.data(), xb_.data(), xc_.data(), xd_.data(), xf_.data()};  // w, k, v, r, g
  const std::vector<float>* base[5] = {&L.mix_w, &L.mix_k, &L.mix_v, &L.mix_r, &L.mix_g};
  for (int p = 0; p < 5; ++p) {
    // The part's D values per token are at ffn_[t * 5D + p * D]: gather them.
    for (int t = 0; t < n; ++t)
      std::copy_n(&ffn_[t * 5 * D + p * D], D, &kk_[t * D]);
    matmul(L.maa_w2[p], kk_.data(), n, y_.data(), pool_, scratch_, kernels_);
    shift_mix(xn_.data(), prev_.data(), *base[p], y_.data(), mixed[p], n, C);
  }
  matmul(L.att_r, xd_.data(), n, r_.data(), pool_, scratch_, kernels_);
  matmul(L.att_k, xb_.data(), n, k_.data(), pool_, scratch_, kernels_);
  matmul(L.att_v, xc_.data(), n, v_.data(), pool_, scratch_, kernels_);
  matmul(L.att_g, xf_.data(), n, g_.data(), pool_, scratch_, kernels_);
  for (size_t i = 0; i < n * C; ++i) g_[i] = g_[i] / (1.f + std::exp(-g_[i]));
  // w = exp(-exp(time_decay + W2 tanh(W1 xw)))
  matmul(L.decay_w1, xa_.data(), n, ffn_.data(), pool_, scratch_, kernels_);
  for (size_t i = 0; i < n * size_t(L.decay_w1.rows); ++i) ffn_[i] = std::tanh(ffn_[i]);
  matmul(L.decay_w2, ffn_.data(), n, w_.data(), pool_, scratch_, kernels_);
  for (size_t i = 0; i < n * C; ++i) w_[i] = std::exp(-std::exp(w_[i] + L.time_decay[i % C]));
  float* heads = st + 2 * C;
  for (int t = 0; t < n; ++t)
    for (size_t hd = 0; hd < h.n_head; ++hd) {
      const size_t at = t * C + hd * S;
      wkv_v5_head(&r_[at], &k_[at], &v_[at], &L.time_first[hd * S], &w_[at], heads + hd * S * S, &xe_[at], S);
    }
  heads_output(L, n, 0.125f);  // group norm eps 64e-5 as eps 1e-5 on x / 8
  matmul(L.att_o, xe_.data(), n, y_.data(), pool_, scratch_, kernels_);
}

// v7: the state evolves by a data-dependent decay and a rank-1 "delta rule"
// correction (a, b from the normalized key kk and the in-context rate a).
void RwkvContext::time_mix_v7(const RwkvLayer& L, float* st, int n, bool first_layer) {
  const RwkvHParams& h = model_.hparams();
  const size_t C = h.n_embd, S = h.head_size;
  auto lora = [&](const WeightMatrix& m1, const WeightMatrix& m2, const float* x, float (*act)(float), float* out) {
    matmul(m1, x, n, ffn_.data(), pool_, scratch_, kernels_);
    if (act)
      for (size_t i = 0; i < n * size_t(m1.rows); ++i) ffn_[i] = act(ffn_[i]);
    matmul(m2, ffn_.data(), n, out, pool_, scratch_, kernels_);
  };
  float* xs[6] = {xa_.data(), xb_.data(), xc_.data(), xd_.data(), xe_.data(), xf_.data()};  // r w k v a g
  const std::vector<float>* m[6] = {&L.mix_r, &L.mix_w, &L.mix_k, &L.mix_v, &L.mix_a, &L.mix_g};
  for (int p = 0; p < 6; ++p) shift_mix(xn_.data(), prev_.data(), *m[p], nullptr, xs[p], n, C);
  matmul(L.att_r, xa_.data(), n, r_.data(), pool_, scratch_, kernels_);
  matmul(L.att_k, xc_.data(), n, k_.data(), pool_, scratch_, kernels_);
  matmul(L.att_v, xd_.data(), n, v_.data(), pool_, scratch_, kernels_);
  lora(L.w1, L.w2, xb_.data(), [](float x) { return std::tanh(x); }, w_.data());
  lora(L.a1, L.a2, xe_.data(), nullptr, a_.data());
  lora(L.g1, L.g2, xf_.data(), sigmoid, g_.data());
  if (L.has_v_mix) lora(L.v1, L.v2, xd_.data(), nullptr, y_.data());  // y_: the value-mix logits for now
  for (size_t i = 0; i < n * C; ++i) {
    const size_t c = i % C;
    w_[i] = std::exp(-0.606531f * sigmoid(L.w0[c] + w_[i]));  // 0.606531 = exp(-0.5)
    a_[i] = sigmoid(L.a0[c] + a_[i]);
    kk_[i] = k_[i] * L.k_k[c];
    k_[i] = k_[i] * (1.f + (a_[i] - 1.f) * L.k_a[c]);
    if (first_layer)
      v_first_[i] = v_[i];
    else if (L.has_v_mix)
      v_[i] = v_[i] + (v_first_[i] - v_[i]) * sigmoid(L.v0[c] + y_[i]);
  }
  float* heads = st + 2 * C;
  float a[256], b[256];
  for (int t = 0; t < n; ++t)
    for (size_t hd = 0; hd < h.n_head; ++hd) {
      const size_t at = t * C + hd * S;
      double norm2 = 0;
      for (size_t j = 0; j < S; ++j) norm2 += double(kk_[at + j]) * kk_[at + j];
      const float inv = 1.f / std::max(static_cast<float>(std::sqrt(norm2)), 1e-12f);
      for (size_t j = 0; j < S; ++j) {
        const float kkj = kk_[at + j] * inv;
        a[j] = -kkj;
        b[j] = kkj * a_[at + j];
      }
      wkv_v7_head(&r_[at], &w_[at], &k_[at], &v_[at], a, b, heads + hd * S * S, &xe_[at], S);
    }
  heads_output(L, n, 0.125f);
  // + (sum over the head of r k r_k) * v, then * g
  for (int t = 0; t < n; ++t)
    for (size_t hd = 0; hd < h.n_head; ++hd) {
      const size_t at = t * C + hd * S;
      float rk = 0;
      for (size_t j = 0; j < S; ++j) rk += r_[at + j] * k_[at + j] * L.r_k[hd * S + j];
      for (size_t j = 0; j < S; ++j) xe_[at + j] = (xe_[at + j] + rk * v_[at + j]) * g_[at + j];
    }
  matmul(L.att_o, xe_.data(), n, y_.data(), pool_, scratch_, kernels_);
}

}  // namespace wasmlm
