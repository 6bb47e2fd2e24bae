// A decoder-only transformer's weights (every architecture of
// decoder_arch.h) viewed in a WeightStore, under llama.cpp's tensor names.
// What a layer has depends on its row: a missing tensor the row needs is a
// BadFormat error naming it; biases are used wherever the file has them, as
// llama.cpp does.
#pragma once

#include <cstdint>
#include <vector>

#include "compute/matmul.h"
#include "model/decoder_hparams.h"
#include "model/weight_store.h"

namespace wasmlm {

struct DecoderLayer {
  std::vector<float> attn_norm;       // (n_embd); empty: no pre-norm (NormPlacement::Post)
  bool fused_qkv = false;
  WeightMatrix wqkv{};                // (q_dim + 2 kv_dim, n_embd): q, k, v rows in turn
  WeightMatrix wq{}, wk{}, wv{};      // (q_dim | kv_dim | kv_dim, n_embd)
  std::vector<float> bq, bk, bv;      // (q_dim | kv_dim | kv_dim) or empty
  std::vector<float> q_norm, k_norm;  // (head_dim) per head, or (q_dim | kv_dim) whole; empty: none
  WeightMatrix wo{};                  // (n_embd, q_dim)
  std::vector<float> bo;              // (n_embd) or empty
  std::vector<float> attn_post_norm;  // (n_embd) or empty
  std::vector<float> ffn_norm;        // (n_embd); empty: no pre-norm
  WeightMatrix w_gate{};              // (n_ff, n_embd); none when fused into w_up
  WeightMatrix w_up{};                // (n_ff, n_embd), fused: (2 n_ff, n_embd), gate rows first
  WeightMatrix w_down{};              // (n_embd, n_ff)
  std::vector<float> b_gate, b_up, b_down;
  std::vector<float> ffn_post_norm;   // (n_embd) or empty
};

class DecoderModel {
 public:
  // Views the weights in `store`, which must outlive the model. Throws a
  // typed error naming a missing tensor or a shape that does not fit.
  DecoderModel(const ModelFile& file, const WeightStore& store) : DecoderModel(file, &store) {}
  // The same checks on the directory alone, before any weight is loaded.
  static void check_directory(const ModelFile& file) { DecoderModel(file, nullptr); }

  const DecoderHParams& hparams() const { return hp_; }
  const DecoderArch& arch() const { return *hp_.arch; }
  const std::vector<DecoderLayer>& layers() const { return layers_; }
  const WeightMatrix& token_embd() const { return token_embd_; }   // (n_vocab, n_embd)
  const WeightMatrix& output() const { return output_; }           // token_embd when tied
  bool tied_output() const { return tied_; }
  const std::vector<float>& output_norm() const { return output_norm_; }
  const std::vector<float>& output_bias() const { return output_bias_; }  // (n_vocab) or empty
  // Per-pair RoPE divisors for a context of n_ctx positions (LLaMA 3.1's
  // rope_freqs, or Phi-3's LongRoPE factors: long ones beyond the original
  // context, as llama.cpp chooses); nullptr if the model has none.
  const float* rope_factors(uint32_t n_ctx) const;

 private:
  DecoderModel(const ModelFile& file, const WeightStore* store);  // no store: shapes checked, views empty

  DecoderHParams hp_;
  WeightMatrix token_embd_{};
  std::vector<DecoderLayer> layers_;
  std::vector<float> output_norm_, output_bias_;
  std::vector<float> rope_freqs_, rope_long_, rope_short_;
  WeightMatrix output_{};
  bool tied_ = false;
};

}  // namespace wasmlm
