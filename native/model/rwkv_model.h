// RWKV v4, v5.1, v5.2, v6 and v7 language models as rwkv.cpp runs them,
// from rwkv.cpp's .bin files (tensor names of the PyTorch checkpoints; the
// version recognised from which tensors exist, as rwkv.cpp does) and from
// llama.cpp's GGUF files of architecture rwkv6 / rwkv7 (rwkv_gguf_loader.cpp),
// and a context holding one sequence's recurrent state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/matmul.h"
#include "model/weight_store.h"

namespace wasmlm {

enum class RwkvVersion { V4, V5_1, V5_2, V6, V7 };
const char* rwkv_version_name(RwkvVersion v);

struct RwkvHParams {
  RwkvVersion version = RwkvVersion::V4;
  uint32_t n_vocab = 0, n_embd = 0, n_layer = 0;
  uint32_t n_ffn = 0;      // channel-mix width
  uint32_t n_head = 1;     // v5+: heads of head_size channels (v4: 1)
  uint32_t head_size = 0;
  uint32_t lora_mix = 0;   // v6: width of the token-shift LoRA (time_maa_w1 / 5)
  float norm_eps = 1e-5f;  // the layer norms' epsilon (GGUF: <arch>.attention.layer_norm_epsilon)
  // GGUF rwkv6: llama.cpp halves the residual after every rescale_every-th
  // layer (its converter divided those layers' output weights to match); 0: never.
  uint32_t rescale_every = 0;
};

struct RwkvLayer {
  std::vector<float> ln1_w, ln1_b, ln2_w, ln2_b;
  // Time mix. Token-shift interpolation factors: v4/v5 mix_*; v6 maa_* and
  // its LoRA; v7 mix_* (x_rwkvag).
  std::vector<float> mix_r, mix_w, mix_k, mix_v, mix_a, mix_g, maa_x;
  WeightMatrix maa_w1{};                 // v6: (5 * lora_mix) x n_embd
  std::vector<WeightMatrix> maa_w2;      // v6: 5 of n_embd x lora_mix (w, k, v, r, g)
  std::vector<float> time_decay;         // v4: -exp(decay); v5: exp(-exp(decay)) per channel; v6: base decay
  std::vector<float> time_first;         // v4: bonus per channel; v5/v6: u per channel (v5.1 repeated per head)
  WeightMatrix decay_w1{}, decay_w2{};   // v6: decay LoRA
  // v7
  std::vector<float> w0, a0, v0, k_k, k_a, r_k;
  WeightMatrix w1{}, w2{}, a1{}, a2{}, v1{}, v2{}, g1{}, g2{};
  bool has_v_mix = false;                // v7: every layer but the first
  WeightMatrix att_r{}, att_k{}, att_v{}, att_o{}, att_g{};
  std::vector<float> ln_x_w, ln_x_b;     // v5+: group norm of the heads' outputs
  // Channel mix
  std::vector<float> ffn_mix_k, ffn_mix_r;
  WeightMatrix ffn_k{}, ffn_v{}, ffn_r{};  // ffn_r: not in v7
};

// Which tensors rwkv.cpp's quantizer quantizes (use with
// WeightStore::quantize_on_load): the 2-D matrices except the embedding and
// the head (and v7's small LoRA matrices, which it keeps in float). For GGUF
// names: the time-mix and channel-mix projections (key, value, receptance,
// gate, output), not token_embd/output nor the LoRAs, lerps or time_mix_first.
bool rwkv_quantizes(const TensorInfo& t);

class RwkvModel {
 public:
  // Views the weights in `store` (which must outlive the model). Throws a
  // typed error naming a missing tensor or a shape that does not fit.
  // general.architecture "rwkv": an rwkv.cpp .bin file; "rwkv6"/"rwkv7": GGUF.
  RwkvModel(const ModelFile& file, const WeightStore& store);

  const RwkvHParams& hparams() const { return hp_; }
  const std::vector<RwkvLayer>& layers() const { return layers_; }
  const WeightMatrix& emb() const { return emb_; }
  const WeightMatrix& head() const { return head_; }
  const std::vector<float>& ln0_w() const { return ln0_w_; }
  const std::vector<float>& ln0_b() const { return ln0_b_; }
  const std::vector<float>& ln_out_w() const { return ln_out_w_; }
  const std::vector<float>& ln_out_b() const { return ln_out_b_; }

  static bool is_gguf_architecture(const std::string& arch) { return arch == "rwkv6" || arch == "rwkv7"; }
  // Before any weight is loaded: the hyperparameters fit the directory (the
  // blocks, the embedding's shape).
  static void check_directory(const ModelFile& file);

 private:
  void load_bin(const ModelFile& file, const WeightStore& store);
  void load_gguf(const ModelFile& file, const WeightStore& store);  // rwkv_gguf_loader.cpp

  RwkvHParams hp_;
  WeightMatrix emb_{}, head_{};
  std::vector<float> ln0_w_, ln0_b_, ln_out_w_, ln_out_b_;
  std::vector<RwkvLayer> layers_;
};

// One sequence: the recurrent state (per layer: the two token-shift vectors,
// and v4's aa/bb/pp or v5+'s per-head n_head x head_size x head_size matrix)
// and scratch buffers.
class RwkvContext {
 public:
  RwkvContext(const RwkvModel& model, ThreadPool& pool, KernelChoice kernels = KernelChoice::Best);

  // Feeds tokens in order from the current state; returns the logits
  // (n_vocab floats) after the last one. The same (up to the matrix
  // kernels' batching) whether fed one by one or together.
  const float* eval(const int32_t* tokens, int n_tokens);
  const float* logits() const { return logits_.data(); }
  void reset();  // the fresh state

  // The state as floats (state_size() of them), and back (with the logits
  // that go with it, when known).
  const std::vector<float>& state() const { return state_; }
  void set_state(const float* values, size_t n, const float* logits = nullptr);
  size_t state_size() const { return state_.size(); }

 private:
  void forward(const int32_t* tokens, int n);
  void rkv_lerp_projections(const RwkvLayer& L, int n);
  void time_mix_v4(const RwkvLayer& L, float* state, int n);
  void time_mix_v5(const RwkvLayer& L, float* state, int n);
  void time_mix_v6(const RwkvLayer& L, float* state, int n);
  void time_mix_v7(const RwkvLayer& L, float* state, int n, bool first_layer);
  void channel_mix(const RwkvLayer& L, int n);
  void heads_output(const RwkvLayer& L, int n, float pre_scale);
  size_t layer_state_size() const;

  const RwkvModel& model_;
  ThreadPool& pool_;
  KernelChoice kernels_;
  MatmulScratch scratch_;
  std::vector<float> state_;
  std::vector<float> logits_;
  // Per-token activations of a batch: x (residual), xn (normed), prev (shifted), and work rows.
  std::vector<float> x_, xn_, prev_, xa_, xb_, xc_, xd_, xe_, xf_;
  std::vector<float> r_, k_, v_, g_, w_, a_, kk_, v_first_, y_, ffn_;
};

}  // namespace wasmlm
