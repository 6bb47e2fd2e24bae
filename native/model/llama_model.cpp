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

namespace wasmlm {

namespace {

// Floats of padding after the caches and scratch rows (SIMD over-reads).
constexpr uint64_t kPad = 16;

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

// Appends the batch's k and v rows to the layer's cache (K transposed).
void LlamaContext::store_kv(uint32_t l, uint32_t pos0, int n) {
  const LlamaHParams& h = model_.hparams();
  const uint64_t hd = h.head_dim, kv_dim = uint64_t(h.n_head_kv) * hd;
  const uint64_t k_at = uint64_t(l) * kv_dim * k_stride_ + pos0;  // + (head * hd + i) * k_stride_ + t
  const uint64_t v_at = (uint64_t(l) * n_ctx_ + pos0) * kv_dim;
  const bool f16 = kv_type_ == KvCacheType::F16;
  for (int t = 0; t < n; ++t)
    for (uint64_t i = 0; i < kv_dim; ++i) {
      const float k = k_[t * kv_dim + i], v = v_[t * kv_dim + i];
      if (f16) {
        k_cache16_[k_at + i * k_stride_ + t] = fp32_to_fp16(k);
        v_cache16_[v_at + t * kv_dim + i] = fp32_to_fp16(v);
      } else {
        k_cache_[k_at + i * k_stride_ + t] = k;
        v_cache_[v_at + t * kv_dim + i] = v;
      }
    }
}

namespace {

// dst[i] = src[i] as f32 for i < n (rounded up to 8: the caller pads).
void f16_to_f32_row(const uint16_t* src, float* dst, uint64_t n, bool use_simd) {
#ifdef __wasm_simd128__
  if (!use_simd) {
    for (uint64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32_fast(src[i]);
    return;
  }
  v128_t special = wasm_i16x8_splat(0);
  for (uint64_t i = 0; i < n; i += 8) {
    const v128_t h = wasm_v128_load(src + i);
    v128_t lo, hi;
    simd::fp16x8_to_f32_finite(h, &lo, &hi);
    special = wasm_v128_or(special, simd::fp16x8_special(h));
    wasm_v128_store(dst + i, lo);
    wasm_v128_store(dst + i + 4, hi);
  }
  if (!wasm_v128_any_true(special)) return;
  // Rare: inf or NaN somewhere (or in the padding): the exact converter.
  for (uint64_t i = 0; i < n; i += 8) {
    const v128_t h = wasm_v128_load(src + i);
    wasm_v128_store(dst + i, simd::fp16x4_to_f32(wasm_u32x4_extend_low_u16x8(h)));
    wasm_v128_store(dst + i + 4, simd::fp16x4_to_f32(wasm_u32x4_extend_high_u16x8(h)));
  }
#else
  for (uint64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32_fast(src[i]);
#endif
}

}  // namespace

// softmax(q k / sqrt(d)) v for every (token, query head) of the batch into
// xb2_, causally: the token at pos0 + t sees positions 0..pos0 + t. One task
// per key/value head (spread over the thread pool), which serves its group of
// query heads for every token of the batch; an F16 cache is converted to f32
// once per task.
void LlamaContext::attention(uint32_t l, uint32_t pos0, int n) {
  const LlamaHParams& h = model_.hparams();
  if (h.head_dim > 512) fail(ErrorCode::Unsupported, kNoOffset, "head size above 512");
  const uint64_t hd = h.head_dim, q_dim = uint64_t(h.n_head) * hd, kv_dim = uint64_t(h.n_head_kv) * hd;
  const uint32_t group = h.n_head / h.n_head_kv;  // query heads per key/value head
  const uint64_t n_pos = uint64_t(pos0) + n;
  pool_.parallel_for(static_cast<int>(h.n_head_kv), [&](int kvh, int thread) {
    const uint64_t k_at = (uint64_t(l) * kv_dim + uint64_t(kvh) * hd) * k_stride_;
    const uint64_t v_at = uint64_t(l) * n_ctx_ * kv_dim + uint64_t(kvh) * hd;
    const float *k, *v;
    uint64_t k_stride = k_stride_, v_stride;
    const bool use_simd = kernels_ == KernelChoice::Best;
    if (kv_type_ == KvCacheType::F16) {
      // Rows of the converted keys only as long as needed (n_ctx-long rows
      // would put all of them in the same cache sets), + 8 against 4K aliasing.
      k_stride = (n_pos + 7) / 8 * 8 + 8;
      float* kf = &kv_f32_[uint64_t(thread) * (2 * hd * (k_stride_ + 16) + kPad)];
      float* vf = kf + hd * k_stride;
      for (uint64_t i = 0; i < hd; ++i) f16_to_f32_row(&k_cache16_[k_at + i * k_stride_], kf + i * k_stride, n_pos, use_simd);
      for (uint64_t t = 0; t < n_pos; ++t) f16_to_f32_row(&v_cache16_[v_at + t * kv_dim], vf + t * hd, hd, use_simd);
      k = kf, v = vf, v_stride = hd;
    } else {
      k = &k_cache_[k_at], v = &v_cache_[v_at], v_stride = kv_dim;
    }
    float* att = &att_[uint64_t(thread) * (k_stride_ + kPad)];
    for (uint32_t head = kvh * group; head < (kvh + 1) * group; ++head)
      for (int t = 0; t < n; ++t)
        attend(k, k_stride, v, v_stride, pos0 + t, &q_[t * q_dim + head * hd], att, &xb2_[t * q_dim + head * hd]);
  });
}

// One query head at position pos against the cached positions 0..pos: k is
// the head's keys transposed (k[i * k_stride + t]), v its values (v[t *
// v_stride + i]), both f32.
void LlamaContext::attend(const float* k, uint64_t k_stride, const float* v, uint64_t v_stride, uint32_t pos,
                          const float* q_head, float* att, float* out) const {
  const int hd = static_cast<int>(model_.hparams().head_dim);
  const float att_scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const bool f16 = kv_type_ == KvCacheType::F16;
  // Rounds to F16 and back where llama.cpp's F16 cache makes it round.
  auto r16 = [f16](float x) { return f16 ? fp16_to_fp32(fp32_to_fp16(x)) : x; };
  float q[512];
  for (int i = 0; i < hd; ++i) q[i] = r16(q_head[i]);
  // Scores, 4 positions per SIMD vector, each summed over i in order.
  const bool use_simd = kernels_ == KernelChoice::Best;
  (void)use_simd;
#ifdef __wasm_simd128__
  if (use_simd) {
  const v128_t scale = wasm_f32x4_splat(att_scale);
  uint32_t t = 0;
  for (; t + 16 <= pos + 1; t += 16) {
    v128_t s0 = wasm_f32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (int i = 0; i < hd; ++i) {
      const v128_t qi = wasm_f32x4_splat(q[i]);
      const float* kr = k + i * k_stride + t;
      s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(qi, wasm_v128_load(kr)));
      s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(qi, wasm_v128_load(kr + 4)));
      s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(qi, wasm_v128_load(kr + 8)));
      s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(qi, wasm_v128_load(kr + 12)));
    }
    wasm_v128_store(att + t, wasm_f32x4_mul(s0, scale));
    wasm_v128_store(att + t + 4, wasm_f32x4_mul(s1, scale));
    wasm_v128_store(att + t + 8, wasm_f32x4_mul(s2, scale));
    wasm_v128_store(att + t + 12, wasm_f32x4_mul(s3, scale));
  }
  for (; t <= pos; t += 4) {  // lanes past pos are computed and ignored
    v128_t s = wasm_f32x4_splat(0);
    for (int i = 0; i < hd; ++i)
      s = wasm_f32x4_add(s, wasm_f32x4_mul(wasm_f32x4_splat(q[i]), wasm_v128_load(k + i * k_stride + t)));
    wasm_v128_store(att + t, wasm_f32x4_mul(s, scale));
  }
  } else
#endif
  for (uint32_t t = 0; t <= pos; ++t) {
    float score = 0;
    for (int i = 0; i < hd; ++i) score += q[i] * k[i * k_stride + t];
    att[t] = score * att_scale;
  }
  softmax(att, pos + 1);
  std::fill(out, out + hd, 0.f);
  int i0 = 0;
#ifdef __wasm_simd128__
  // out[i] += a * v[t][i] over t in order, 16 then 4 lanes of i at a time.
  for (; use_simd && i0 + 16 <= hd; i0 += 16) {
    v128_t o0 = wasm_f32x4_splat(0), o1 = o0, o2 = o0, o3 = o0;
    for (uint32_t t = 0; t <= pos; ++t) {
      const v128_t a = wasm_f32x4_splat(r16(att[t]));
      const float* vr = v + t * v_stride + i0;
      o0 = wasm_f32x4_add(o0, wasm_f32x4_mul(a, wasm_v128_load(vr)));
      o1 = wasm_f32x4_add(o1, wasm_f32x4_mul(a, wasm_v128_load(vr + 4)));
      o2 = wasm_f32x4_add(o2, wasm_f32x4_mul(a, wasm_v128_load(vr + 8)));
      o3 = wasm_f32x4_add(o3, wasm_f32x4_mul(a, wasm_v128_load(vr + 12)));
    }
    wasm_v128_store(out + i0, o0);
    wasm_v128_store(out + i0 + 4, o1);
    wasm_v128_store(out + i0 + 8, o2);
    wasm_v128_store(out + i0 + 12, o3);
  }
#endif
  for (uint32_t t = 0; t <= pos; ++t) {
    const float a = r16(att[t]);
    for (int i = i0; i < hd; ++i) out[i] += a * v[t * v_stride + i];
  }
}

}  // namespace wasmlm
