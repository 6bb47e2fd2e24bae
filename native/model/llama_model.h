// A LLaMA-family transformer (LLaMA 1/2/3, Mistral, TinyLlama, SmolLM ...)
// over weights in a WeightStore, and a context that evaluates tokens with a
// KV cache.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "compute/matmul.h"
#include "model/llama_hparams.h"
#include "model/weight_store.h"

namespace wasmlm {

struct LlamaLayer {
  std::vector<float> attn_norm;  // (n_embd)
  WeightMatrix wq;               // (n_head * head_dim, n_embd): rows x cols
  WeightMatrix wk;               // (n_head_kv * head_dim, n_embd)
  WeightMatrix wv;               // (n_head_kv * head_dim, n_embd)
  WeightMatrix wo;               // (n_embd, n_head * head_dim)
  std::vector<float> ffn_norm;   // (n_embd)
  WeightMatrix w_gate;           // (n_ff, n_embd)
  WeightMatrix w_up;             // (n_ff, n_embd)
  WeightMatrix w_down;           // (n_embd, n_ff)
};

class LlamaModel {
 public:
  // Views the weights in `store`, which must outlive the model. Throws a
  // typed error naming a missing tensor or a shape that does not fit.
  LlamaModel(const ModelFile& file, const WeightStore& store);

  const LlamaHParams& hparams() const { return hp_; }
  const std::vector<LlamaLayer>& layers() const { return layers_; }
  const WeightMatrix& token_embd() const { return token_embd_; }
  const WeightMatrix& output() const { return output_; }  // token_embd when tied
  const std::vector<float>& output_norm() const { return output_norm_; }
  // LLaMA-3.1+ per-dimension RoPE divisors (rope_freqs.weight); nullptr if none.
  const float* rope_freqs() const { return rope_freqs_.empty() ? nullptr : rope_freqs_.data(); }

 private:
  LlamaHParams hp_;
  WeightMatrix token_embd_;   // (n_vocab, n_embd)
  std::vector<LlamaLayer> layers_;
  std::vector<float> output_norm_;
  std::vector<float> rope_freqs_;
  WeightMatrix output_;       // (n_vocab, n_embd)
};

enum class KvCacheType { F32, F16 };

// One sequence: the KV cache and scratch buffers.
class LlamaContext {
 public:
  // F16 (llama.cpp's default) halves the cache and computes attention as
  // llama.cpp does with it: queries and attention weights rounded to F16 too.
  // kernels: Reference computes with the scalar code only (matrix kernels,
  // activation quantizers, attention), which the SIMD code is tested against.
  LlamaContext(const LlamaModel& model, uint32_t n_ctx, ThreadPool& pool, KvCacheType kv_type = KvCacheType::F16,
               KernelChoice kernels = KernelChoice::Best);

  // Evaluates tokens at positions n_past() onwards, in batches of up to
  // kMaxBatch through the matrix x matrix kernels; returns the logits
  // (n_vocab floats) after the last one. A batch gives the same results as
  // evaluating its tokens one by one. Throws TooLarge past n_ctx.
  const float* eval(const int32_t* tokens, int n_tokens);
  static constexpr int kMaxBatch = 32;
  uint32_t n_past() const { return n_past_; }
  const float* logits() const { return logits_.data(); }  // after the last evaluated token
  uint64_t kv_cache_bytes() const {
    return (k_cache_.size() + v_cache_.size()) * sizeof(float) + (k_cache16_.size() + v_cache16_.size()) * sizeof(uint16_t);
  }
  void reset() { n_past_ = 0; }
  // Forgets every position from n on (n_past() becomes min(n_past(), n));
  // a prompt sharing the first n tokens goes on from there.
  void truncate(uint32_t n) { n_past_ = std::min(n_past_, n); }

  // The sequence so far (KV cache of n_past() positions, the last logits) as
  // bytes, and back into a context of the same model and cache type with
  // room for them (llama_state_save.cpp). load_state throws BadFormat /
  // TooLarge with the offset of what does not fit.
  std::vector<uint8_t> save_state() const;
  void load_state(const uint8_t* data, size_t size);

 private:
  void forward(const int32_t* tokens, int n_tokens, uint32_t pos0);
  void store_kv(uint32_t layer, uint32_t pos0, int n_tokens);
  void attention(uint32_t layer, uint32_t pos0, int n_tokens);
  void attend(const float* k, uint64_t k_stride, const float* v, uint64_t v_stride, uint32_t pos, const float* q,
              float* att, float* out) const;
  bool attend_f16_direct(const uint16_t* k, const uint16_t* v, uint32_t pos, const float* q, float* att,
                         float* out) const;

  // Floats of padding after the caches and scratch rows (SIMD over-reads).
  static constexpr uint64_t kPad = 16;

  const LlamaModel& model_;
  ThreadPool& pool_;
  uint32_t n_ctx_;
  uint32_t n_past_ = 0;
  KvCacheType kv_type_;
  KernelChoice kernels_;
  // K: (n_layer, n_head_kv, head_dim, n_ctx), transposed so that attention
  // computes the scores of 4 positions at once in SIMD lanes, each summed in
  // the same order as one position at a time; V: (n_layer, n_ctx, n_head_kv *
  // head_dim). F32 or F16 (k_cache16_, v_cache16_), plus padding at the end.
  std::vector<float> k_cache_, v_cache_;
  std::vector<uint16_t> k_cache16_, v_cache16_;
  uint64_t k_stride_;  // n_ctx rounded up to 4
  // Activations of the current batch, one row per token.
  std::vector<float> x_, xb_, xb2_, q_, k_, v_, hb_, hb2_, logits_;
  std::vector<float> rope_cs_;  // RoPE cos/sin per token of the batch
  std::vector<float> att_;  // attention scores, n_ctx (+ padding) per thread
  // F16 cache: one key/value head's K and V as f32, per thread.
  std::vector<float> kv_f32_;
  MatmulScratch scratch_;
};

}  // namespace wasmlm
