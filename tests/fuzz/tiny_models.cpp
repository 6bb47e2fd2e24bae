#include "tiny_models.h"

#include <cstring>
#include <functional>
#include <string>

namespace wasmlm_fuzz {

namespace {

using wasmlm_test::GgufSpec;
using wasmlm_test::GTensor;
using wasmlm_test::GValue;

constexpr uint64_t kVocab = 16;
constexpr uint64_t kRwkvEmbd = 32, kRwkvFfn = 64;  // rows of whole Q8_0 blocks

// Values in [-0.25, 0.25) from a fixed sequence, or all `fill`.
GTensor f32(const std::string& name, std::vector<uint64_t> dims, float fill = 0.f) {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  std::vector<float> values(n, fill);
  uint32_t state = static_cast<uint32_t>(std::hash<std::string>()(name));
  if (fill == 0.f)
    for (float& v : values) {
      state = state * 1664525u + 1013904223u;
      v = static_cast<float>(state >> 8) / float(1u << 24) / 2.f - 0.25f;
    }
  GTensor t{name, std::move(dims), 0, std::vector<uint8_t>(n * 4), {}};
  std::memcpy(t.data.data(), values.data(), n * 4);
  return t;
}

// Q8_0 blocks (scale 1/64 in F16, values from a fixed sequence).
GTensor q8_0(const std::string& name, std::vector<uint64_t> dims) {
  constexpr uint32_t kQ8_0 = 8;
  const uint64_t blocks = dims[0] * dims[1] / 32;
  GTensor t{name, std::move(dims), kQ8_0, std::vector<uint8_t>(blocks * 34), {}};
  for (uint64_t b = 0; b < blocks; ++b) {
    t.data[b * 34] = 0x00, t.data[b * 34 + 1] = 0x24;  // 2^-6
    for (int j = 0; j < 32; ++j) t.data[b * 34 + 2 + j] = static_cast<uint8_t>((b * 37 + j * 11) % 64 - 32);
  }
  return t;
}

// rwkv.cpp's layer l of version 4, its matrices in Q8_0.
void add_rwkv4_layer(GgufSpec& s, uint64_t l) {
  const std::string p = "blocks." + std::to_string(l) + ".", a = p + "att.", f = p + "ffn.";
  const uint64_t C = kRwkvEmbd, F = kRwkvFfn;
  for (const char* n : {"ln1.weight", "ln2.weight"}) s.tensors.push_back(f32(p + n, {C}, 1.f));
  for (const char* n : {"ln1.bias", "ln2.bias"}) s.tensors.push_back(f32(p + n, {C}));
  for (const char* n : {"time_mix_k", "time_mix_v", "time_mix_r", "time_decay", "time_first"})
    s.tensors.push_back(f32(a + n, {C}));
  for (const char* n : {"key.weight", "value.weight", "receptance.weight", "output.weight"})
    s.tensors.push_back(q8_0(a + n, {C, C}));
  for (const char* n : {"time_mix_k", "time_mix_r"}) s.tensors.push_back(f32(f + n, {C}));
  s.tensors.push_back(q8_0(f + "key.weight", {C, F}));
  s.tensors.push_back(q8_0(f + "value.weight", {F, C}));
  s.tensors.push_back(q8_0(f + "receptance.weight", {C, C}));
}

// rwkv6 / rwkv7 layer l (llama.cpp's names); LoRA ranks 4, head size 4.
void add_gguf_rwkv_layer(GgufSpec& s, uint64_t l, bool v7) {
  const std::string b = "blk." + std::to_string(l) + ".", t = b + "time_mix_", c = b + "channel_mix_";
  const uint64_t C = kRwkvEmbd, F = kRwkvFfn, R = 4;
  for (const char* n : {"attn_norm.weight", "attn_norm_2.weight"}) s.tensors.push_back(f32(b + n, {C}, 1.f));
  for (const char* n : {"attn_norm.bias", "attn_norm_2.bias"}) s.tensors.push_back(f32(b + n, {C}));
  for (const char* n : {"receptance.weight", "key.weight", "value.weight", "output.weight"})
    s.tensors.push_back(f32(t + n, {C, C}));
  s.tensors.push_back(f32(t + "ln.weight", {C}, 1.f));
  s.tensors.push_back(f32(t + "ln.bias", {C}));
  s.tensors.push_back(f32(c + "key.weight", {C, F}));
  s.tensors.push_back(f32(c + "value.weight", {F, C}));
  s.tensors.push_back(f32(c + "lerp_k.weight", {C}));
  if (v7) {
    s.tensors.push_back(f32(t + "lerp_fused.weight", {C, 1, 1, 6}));
    for (const char* part : {"w", "a", "g", "v"}) {
      s.tensors.push_back(f32(t + part + "1.weight", {C, R}));
      s.tensors.push_back(f32(t + part + "2.weight", {R, C}));
    }
    for (const char* n : {"w0.weight", "a0.weight", "v0.weight", "k_k.weight", "k_a.weight", "r_k.weight"})
      s.tensors.push_back(f32(t + n, {C}));
  } else {
    s.tensors.push_back(f32(t + "lerp_x.weight", {C}));
    s.tensors.push_back(f32(t + "lerp_fused.weight", {C, 1, 1, 5}));
    s.tensors.push_back(f32(t + "w1.weight", {C, 5 * R}));
    s.tensors.push_back(f32(t + "w2.weight", {R, C, 5}));
    s.tensors.push_back(f32(t + "decay.weight", {C}));
    s.tensors.push_back(f32(t + "first.weight", {4, C / 4}));
    s.tensors.push_back(f32(t + "decay_w1.weight", {C, R}));
    s.tensors.push_back(f32(t + "decay_w2.weight", {R, C}));
    s.tensors.push_back(f32(t + "gate.weight", {C, C}));
    s.tensors.push_back(f32(c + "lerp_r.weight", {C}));
    s.tensors.push_back(f32(c + "receptance.weight", {C, C}));
  }
}

}  // namespace

GgufSpec tiny_decoder_spec() {
  const uint64_t d = 16, head_dim = 8, n_head = 2, n_head_kv = 1, ff = 32;
  GgufSpec s;
  s.kv = {{"general.architecture", GValue::string("gemma3")},
          {"gemma3.embedding_length", GValue::u32(d)},
          {"gemma3.block_count", GValue::u32(2)},
          {"gemma3.attention.head_count", GValue::u32(n_head)},
          {"gemma3.attention.head_count_kv", GValue::u32(n_head_kv)},
          {"gemma3.attention.key_length", GValue::u32(head_dim)},
          {"gemma3.attention.value_length", GValue::u32(head_dim)},
          {"gemma3.feed_forward_length", GValue::u32(ff)},
          {"gemma3.context_length", GValue::u32(1024)},
          {"gemma3.attention.layer_norm_rms_epsilon", GValue::f32(1e-6f)},
          {"gemma3.rope.freq_base", GValue::f32(1e6f)},
          {"gemma3.attention.sliding_window", GValue::u32(4)},
          {"gemma3.attention.sliding_window_pattern",
           GValue::array(wasmlm_test::kBool, {GValue::boolean(true), GValue::boolean(false)})}};
  s.tensors.push_back(f32("token_embd.weight", {d, kVocab}));
  for (uint64_t l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (const char* n : {"attn_norm.weight", "post_attention_norm.weight", "ffn_norm.weight", "post_ffw_norm.weight"})
      s.tensors.push_back(f32(p + n, {d}, 1.f));
    s.tensors.push_back(f32(p + "attn_q.weight", {d, n_head * head_dim}));
    s.tensors.push_back(f32(p + "attn_k.weight", {d, n_head_kv * head_dim}));
    s.tensors.push_back(f32(p + "attn_v.weight", {d, n_head_kv * head_dim}));
    s.tensors.push_back(f32(p + "attn_q_norm.weight", {head_dim}, 1.f));
    s.tensors.push_back(f32(p + "attn_k_norm.weight", {head_dim}, 1.f));
    s.tensors.push_back(f32(p + "attn_output.weight", {n_head * head_dim, d}));
    s.tensors.push_back(f32(p + "ffn_gate.weight", {d, ff}));
    s.tensors.push_back(f32(p + "ffn_up.weight", {d, ff}));
    s.tensors.push_back(f32(p + "ffn_down.weight", {ff, d}));
  }
  s.tensors.push_back(f32("output_norm.weight", {d}, 1.f));
  return s;
}

GgufSpec tiny_rwkv_spec(int version) {
  const uint64_t C = kRwkvEmbd, V = kVocab;
  GgufSpec s;
  if (version == 4) {
    s.kv = {{"general.architecture", GValue::string("rwkv")},
            {"rwkv.vocab_size", GValue::u32(V)},
            {"rwkv.embedding_length", GValue::u32(C)},
            {"rwkv.block_count", GValue::u32(2)}};
    s.tensors = {f32("emb.weight", {C, V}), f32("head.weight", {C, V}), f32("blocks.0.ln0.weight", {C}, 1.f),
                 f32("blocks.0.ln0.bias", {C}), f32("ln_out.weight", {C}, 1.f), f32("ln_out.bias", {C})};
    for (uint64_t l = 0; l < 2; ++l) add_rwkv4_layer(s, l);
    return s;
  }
  const bool v7 = version == 7;
  const std::string arch = v7 ? "rwkv7" : "rwkv6";
  s.kv = {{"general.architecture", GValue::string(arch)},
          {arch + ".embedding_length", GValue::u32(C)},
          {arch + ".block_count", GValue::u32(2)},
          {arch + ".feed_forward_length", GValue::u32(kRwkvFfn)},
          {arch + ".wkv.head_size", GValue::u32(4)}};
  if (v7) {
    for (const char* k : {".attention.decay_lora_rank", ".attention.iclr_lora_rank",
                          ".attention.value_residual_mix_lora_rank", ".attention.gate_lora_rank"})
      s.kv.emplace_back(arch + k, GValue::u32(4));
  } else {
    s.kv.emplace_back(arch + ".time_mix_extra_dim", GValue::u32(4));
    s.kv.emplace_back(arch + ".time_decay_extra_dim", GValue::u32(4));
  }
  s.tensors = {f32("token_embd.weight", {C, V}), f32("output.weight", {C, V}), f32("token_embd_norm.weight", {C}, 1.f),
               f32("token_embd_norm.bias", {C}), f32("output_norm.weight", {C}, 1.f), f32("output_norm.bias", {C})};
  for (uint64_t l = 0; l < 2; ++l) add_gguf_rwkv_layer(s, l, v7);
  return s;
}

std::vector<uint8_t> write_rwkv_bin(const GgufSpec& spec) {
  std::vector<uint8_t> out;
  const auto put = [&](uint64_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  const auto header = [&](const char* key) {
    for (const auto& [k, v] : spec.kv)
      if (k == key) return v.bits;
    return uint64_t(0);
  };
  for (uint64_t v : {uint64_t(0x67676d66), uint64_t(101), header("rwkv.vocab_size"), header("rwkv.embedding_length"),
                     header("rwkv.block_count"), uint64_t(0)})
    put(v);
  for (const GTensor& t : spec.tensors) {
    put(t.dims.size());
    put(t.name.size());
    put(t.type == 8 ? 9 : 0);  // rwkv.cpp's ids: Q8_0 9, FP32 0
    for (uint64_t d : t.dims) put(d);
    out.insert(out.end(), t.name.begin(), t.name.end());
    out.insert(out.end(), t.data.begin(), t.data.end());
  }
  return out;
}

}  // namespace wasmlm_fuzz
