// One sequence of a decoder (any row of decoder_arch.h): the KV cache,
// scratch buffers, and the forward pass that evaluates tokens.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "compute/matmul.h"
#include "model/decoder_attention.h"
#include "model/decoder_model.h"
#include "model/kv_cache.h"

namespace wasmlm {

class DecoderContext {
 public:
  // F16 (llama.cpp's default) halves the cache and computes attention as
  // llama.cpp does with it: queries and attention weights rounded to F16 too.
  // kernels: Reference computes with the scalar code only (matrix kernels,
  // activation quantizers, attention), which the SIMD code is tested against.
  DecoderContext(const DecoderModel& model, uint32_t n_ctx, ThreadPool& pool, KvCacheType kv_type = KvCacheType::F16,
                 KernelChoice kernels = KernelChoice::Best);

  // Evaluates tokens at positions n_past() onwards, in batches of up to
  // kMaxBatch through the matrix x matrix kernels; returns the logits
  // (n_vocab floats) after the last one. A batch gives the same results as
  // evaluating its tokens one by one. Throws TooLarge past n_ctx.
  const float* eval(const int32_t* tokens, int n_tokens);
  // A batch reads every weight once and joins the threads ~11 times a
  // layer: in batches of 32, a 128-token prompt on 2 threads waited at
  // those joins for 2.3-3.6% of its time (1.4-1.6% in one batch). The
  // buffers take kMaxBatch rows of the widest activations (~10 MB at 1B).
  static constexpr int kMaxBatch = 128;
  uint32_t n_ctx() const { return n_ctx_; }
  uint32_t n_past() const { return n_past_; }
  const float* logits() const { return logits_.data(); }  // after the last evaluated token
  uint64_t kv_cache_bytes() const { return kv_.bytes(); }
  const KvCache& kv_cache() const { return kv_; }
  void reset() {
    n_past_ = 0;
    kv_.reset();
  }
  // Forgets every position from n on (n_past() becomes min(n_past(), n)), so
  // a prompt sharing the first n tokens goes on from there; false (and
  // nothing forgotten) if a sliding-window ring no longer holds what the
  // window at n needs: then the caller starts over.
  bool truncate(uint32_t n);

  // The sequence so far (the positions the cache holds, the last logits) as
  // bytes, and back into a context of the same model and cache type with
  // room for them (decoder_state.cpp). load_state throws BadFormat /
  // TooLarge with the offset of what does not fit.
  std::vector<uint8_t> save_state() const;
  void load_state(const uint8_t* data, size_t size);

 private:
  void forward(const int32_t* tokens, int n_tokens, uint32_t pos0, bool logits);
  void project_qkv(const DecoderLayer& L, const float* in, int n, const ActivationBatch* prepared);
  void position_qk(uint32_t layer, int n, uint32_t pos0);
  void feed_forward(const DecoderLayer& L, const float* in, int n, const ActivationBatch* prepared);
  void attention(uint32_t layer, uint32_t pos0, int n_tokens);

  const DecoderModel& model_;
  const DecoderHParams& hp_;
  ThreadPool& pool_;
  uint32_t n_ctx_;
  uint32_t n_past_ = 0;
  KernelChoice kernels_;
  KvCache kv_;
  float kq_scale_;  // of the query-key products inside attention (1 when the query was scaled first)
  const float* rope_factors_;
  // Activations of the current batch, one row per token.
  std::vector<float> x_, xb_, xb2_, q_, k_, v_, qkv_, hb_, hb2_, logits_;
  // RoPE's cos/sin per token of the batch: global layers, windowed layers.
  std::vector<float> rope_cs_, rope_cs_window_;
  AttentionBuffers attn_;
  MatmulScratch scratch_;
};

}  // namespace wasmlm
