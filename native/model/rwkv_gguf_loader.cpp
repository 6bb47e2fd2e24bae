// RwkvModel from llama.cpp's GGUF files of architecture rwkv6 / rwkv7, as
// convert_hf_to_gguf.py (Rwkv6Model, Rwkv7Model) writes them and
// src/models/rwkv6*.cpp, rwkv7*.cpp read them. Every tensor lands in the same
// RwkvLayer fields the rwkv.cpp .bin loader fills, so one RwkvContext runs both.
//
// Metadata (A = "rwkv6" or "rwkv7"):
//   A.embedding_length -> n_embd        A.block_count -> n_layer
//   A.feed_forward_length -> n_ffn      A.wkv.head_size -> head_size
//   A.attention.layer_norm_epsilon -> norm_eps (optional, 1e-5)
//   A.token_shift_count (optional; llama.cpp requires 2)
//   rwkv6: A.time_mix_extra_dim (token-shift LoRA rank D), A.time_decay_extra_dim
//          (decay LoRA rank), A.rescale_every_n_layers (optional, 0)
//   rwkv7: A.attention.{decay,iclr,value_residual_mix,gate}_lora_rank (w, a, v, g LoRAs)
//   n_vocab: token_embd's rows (the converter writes no A.vocab_size).
//
// Tensors (GGUF ggml shape; "<-" the HF/PyTorch tensor and what the converter did):
//   token_embd [C, V] <- emb                  token_embd_norm.{weight,bias} <- blocks.0.ln0
//   output_norm.{weight,bias} <- ln_out       output [C, V] <- head
//   blk.N.attn_norm.{weight,bias} <- ln1      blk.N.attn_norm_2.{weight,bias} <- ln2
//   blk.N.time_mix_{key,value,receptance,output}[,gate] [C, C] <- att.*.weight
//   blk.N.time_mix_ln.{weight,bias} [C] <- att.ln_x (group norm of the heads)
//   blk.N.channel_mix_key [C, F], channel_mix_value [F, C] (+ rwkv6 channel_mix_receptance)
// rwkv6:
//   time_mix_lerp_x [C] <- time_maa_x, squeezed
//   time_mix_lerp_fused [C, 1, 1, 5] <- time_maa_{w,k,v,r,g} squeezed and stacked in
//     that order (older files: separate time_mix_lerp_{w,k,v,r,g} [C])
//   time_mix_w1 [C, 5D] <- time_maa_w1 [C, 5D] transposed (rows: the 5 LoRA parts)
//   time_mix_w2 [D, C, 5] <- time_maa_w2 [5, D, C] permuted (0, 2, 1)
//   time_mix_decay [C] <- time_decay squeezed, raw: the graph computes
//     w = exp(-exp(time_mix_decay + decay_w2 tanh(decay_w1 xw))) (as rwkv.cpp's v6)
//   time_mix_decay_w1 [C, Dd], decay_w2 [Dd, C] <- time_decay_w1/w2 transposed
//   time_mix_first [S, H] <- time_faaaa [H, S] unchanged (u per channel, head-major)
//   channel_mix_lerp_k/r [C] <- ffn.time_maa_k/r squeezed
//   rescale_every_n_layers = n > 0: time_mix_output and channel_mix_value of block
//     b divided by 2^(b / n); the graph scales the residual by 0.5 after every
//     block b with (b + 1) % n == 0. Mathematically the same model; kept as
//     llama.cpp runs it (RwkvContext honours hp.rescale_every).
// rwkv7:
//   time_mix_lerp_fused [C, 1, 1, 6] <- x_r, x_w, x_k, x_v, x_a, x_g stacked (that order)
//   time_mix_{w,a,v,g}1 [C, R], time_mix_{w,a,v,g}2 [R, C] <- w1/w2 ... transposed
//     (fla-hub checkpoints: their nn.Linear weights, already in this layout)
//   time_mix_{w,a,v}0 [C] <- w0/a0/v0 squeezed (fla-hub: the LoRAs' biases)
//   time_mix_k_k, time_mix_k_a [C] squeezed; time_mix_r_k [C] <- r_k [H, S] flattened
//   block 0 has dummy time_mix_v0/v1/v2 (copies of a0/a1/a2) only so llama.cpp's
//     loader finds them; block 0 has no value-residual mix, they are not read.
//   channel_mix_lerp_k [C] <- ffn.x_k squeezed; no channel_mix_receptance.
//
// llama.cpp's graphs compute what rwkv.cpp's do (rwkv_time_mix.cpp); the only
// differences are float rounding: its group norm uses eps 64e-5 on x where
// rwkv.cpp (and our time mix) uses eps 1e-5 on x / 8, the same value; its v7
// key update is k + (a k k_a - k k_a) for our k (1 + (a - 1) k_a).
#include <initializer_list>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/rwkv_model.h"
#include "model/weight_views.h"

namespace wasmlm {

namespace {

uint32_t required_uint(const Metadata& m, const std::string& key) {
  auto v = m.get_uint(key);
  if (!v || *v == 0 || *v > (1u << 24)) fail(ErrorCode::BadFormat, kNoOffset, "expected a positive integer " + key);
  return static_cast<uint32_t>(*v);
}

uint32_t optional_uint(const Metadata& m, const std::string& key, uint32_t fallback) {
  if (!m.find(key)) return fallback;
  auto v = m.get_uint(key);
  if (!v || *v > (1u << 24)) fail(ErrorCode::BadFormat, kNoOffset, "expected a non-negative integer " + key);
  return static_cast<uint32_t>(*v);
}

float optional_float(const Metadata& m, const std::string& key, float fallback) {
  const MetaValue* v = m.find(key);
  if (!v) return fallback;
  auto n = v->as_number();
  if (!n || !(*n >= 0) || *n > 1) fail(ErrorCode::BadFormat, kNoOffset, "expected a small non-negative number " + key);
  return static_cast<float>(*n);
}

// Splits a fused [C, 1, 1, parts] lerp tensor into its parts.
void split_lerps(const WeightStore& store, const std::string& name, uint64_t C,
                 std::initializer_list<std::vector<float>*> parts) {
  const std::vector<float> fused = vector_f32(store, name, C * parts.size());
  size_t i = 0;
  for (std::vector<float>* p : parts) {
    p->assign(fused.begin() + i * C, fused.begin() + (i + 1) * C);
    ++i;
  }
}

}  // namespace

void RwkvModel::load_gguf(const ModelFile& file, const WeightStore& store) {
  const Metadata& m = file.metadata;
  const std::string arch = *m.get_string("general.architecture");
  const bool v7 = arch == "rwkv7";
  RwkvHParams& h = hp_;
  h.version = v7 ? RwkvVersion::V7 : RwkvVersion::V6;
  h.n_embd = required_uint(m, arch + ".embedding_length");
  h.n_layer = required_uint(m, arch + ".block_count");
  check_block_count(file, "blk.", h.n_layer, arch + ".block_count");
  h.n_ffn = required_uint(m, arch + ".feed_forward_length");
  h.head_size = required_uint(m, arch + ".wkv.head_size");
  h.norm_eps = optional_float(m, arch + ".attention.layer_norm_epsilon", 1e-5f);
  if (optional_uint(m, arch + ".token_shift_count", 2) != 2)
    fail(ErrorCode::Unsupported, kNoOffset, arch + ".token_shift_count other than 2");
  if (h.n_embd % h.head_size)
    fail(ErrorCode::BadFormat, kNoOffset, "the head size " + std::to_string(h.head_size) + " does not divide n_embd");
  if (h.head_size > 256) fail(ErrorCode::Unsupported, kNoOffset, "RWKV head size above 256");
  h.n_head = h.n_embd / h.head_size;
  const TensorInfo* embd = file.find_tensor("token_embd.weight");
  if (!embd) fail(ErrorCode::BadFormat, kNoOffset, "the RWKV model has no tensor 'token_embd.weight'");
  h.n_vocab = static_cast<uint32_t>(embd->ne[1]);
  uint32_t decay_rank = 0, iclr_rank = 0, value_rank = 0, gate_rank = 0;
  if (v7) {
    decay_rank = required_uint(m, arch + ".attention.decay_lora_rank");
    iclr_rank = required_uint(m, arch + ".attention.iclr_lora_rank");
    value_rank = required_uint(m, arch + ".attention.value_residual_mix_lora_rank");
    gate_rank = required_uint(m, arch + ".attention.gate_lora_rank");
  } else {
    h.lora_mix = required_uint(m, arch + ".time_mix_extra_dim");
    decay_rank = required_uint(m, arch + ".time_decay_extra_dim");
    h.rescale_every = optional_uint(m, arch + ".rescale_every_n_layers", 0);
  }

  const uint64_t C = h.n_embd, F = h.n_ffn;
  emb_ = matrix(store, "token_embd.weight", h.n_vocab, C);
  head_ = matrix(store, "output.weight", h.n_vocab, C);
  ln0_w_ = vector_f32(store, "token_embd_norm.weight", C);
  ln0_b_ = vector_f32(store, "token_embd_norm.bias", C);
  ln_out_w_ = vector_f32(store, "output_norm.weight", C);
  ln_out_b_ = vector_f32(store, "output_norm.bias", C);
  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".", t = b + "time_mix_", c = b + "channel_mix_";
    RwkvLayer L;
    L.ln1_w = vector_f32(store, b + "attn_norm.weight", C);
    L.ln1_b = vector_f32(store, b + "attn_norm.bias", C);
    L.ln2_w = vector_f32(store, b + "attn_norm_2.weight", C);
    L.ln2_b = vector_f32(store, b + "attn_norm_2.bias", C);
    L.att_r = matrix(store, t + "receptance.weight", C, C);
    L.att_k = matrix(store, t + "key.weight", C, C);
    L.att_v = matrix(store, t + "value.weight", C, C);
    L.att_o = matrix(store, t + "output.weight", C, C);
    L.ln_x_w = vector_f32(store, t + "ln.weight", C);
    L.ln_x_b = vector_f32(store, t + "ln.bias", C);
    L.ffn_k = matrix(store, c + "key.weight", F, C);
    L.ffn_v = matrix(store, c + "value.weight", C, F);
    L.ffn_mix_k = vector_f32(store, c + "lerp_k.weight", C);
    if (v7) {
      split_lerps(store, t + "lerp_fused.weight", C, {&L.mix_r, &L.mix_w, &L.mix_k, &L.mix_v, &L.mix_a, &L.mix_g});
      auto lora = [&](const char* part, uint64_t rank, WeightMatrix& m1, WeightMatrix& m2) {
        m1 = matrix(store, t + part + "1.weight", rank, C);
        m2 = matrix(store, t + part + "2.weight", C, rank);
      };
      lora("w", decay_rank, L.w1, L.w2);
      lora("a", iclr_rank, L.a1, L.a2);
      lora("g", gate_rank, L.g1, L.g2);
      L.has_v_mix = l > 0;  // block 0's v0/v1/v2 are the converter's dummies
      if (L.has_v_mix) {
        lora("v", value_rank, L.v1, L.v2);
        L.v0 = vector_f32(store, t + "v0.weight", C);
      }
      L.w0 = vector_f32(store, t + "w0.weight", C);
      L.a0 = vector_f32(store, t + "a0.weight", C);
      L.k_k = vector_f32(store, t + "k_k.weight", C);
      L.k_a = vector_f32(store, t + "k_a.weight", C);
      L.r_k = vector_f32(store, t + "r_k.weight", C);
    } else {
      L.maa_x = vector_f32(store, t + "lerp_x.weight", C);
      if (store.find(t + "lerp_fused.weight") || !store.find(t + "lerp_w.weight")) {
        split_lerps(store, t + "lerp_fused.weight", C, {&L.mix_w, &L.mix_k, &L.mix_v, &L.mix_r, &L.mix_g});
      } else {
        L.mix_w = vector_f32(store, t + "lerp_w.weight", C);
        L.mix_k = vector_f32(store, t + "lerp_k.weight", C);
        L.mix_v = vector_f32(store, t + "lerp_v.weight", C);
        L.mix_r = vector_f32(store, t + "lerp_r.weight", C);
        L.mix_g = vector_f32(store, t + "lerp_g.weight", C);
      }
      L.maa_w1 = matrix(store, t + "w1.weight", 5 * uint64_t(h.lora_mix), C);
      L.maa_w2 = matrices(store, t + "w2.weight", C, h.lora_mix, 5);
      L.time_decay = vector_f32(store, t + "decay.weight", C);
      L.time_first = vector_f32(store, t + "first.weight", C);
      L.decay_w1 = matrix(store, t + "decay_w1.weight", decay_rank, C);
      L.decay_w2 = matrix(store, t + "decay_w2.weight", C, decay_rank);
      L.att_g = matrix(store, t + "gate.weight", C, C);
      L.ffn_mix_r = vector_f32(store, c + "lerp_r.weight", C);
      L.ffn_r = matrix(store, c + "receptance.weight", C, C);
    }
    layers_.push_back(std::move(L));
  }
}

}  // namespace wasmlm
