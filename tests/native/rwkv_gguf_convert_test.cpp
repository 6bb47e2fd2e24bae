// GGUF rwkv6 / rwkv7 files as llama.cpp's convert_hf_to_gguf.py writes them,
// made here from rwkv.cpp's tiny FP32 .bin models: each tensor is first put
// back into the HF/PyTorch layout (undoing rwkv.cpp's converter: its LoRA
// transposes and reshapes), then the llama.cpp converter's steps are applied
// (names, transposes, permutes, squeezes, fused lerps, rwkv6's rescale
// division, rwkv7's dummy block-0 value LoRA). The GGUF model must give the
// .bin model's logits and meet rwkv.cpp's pass rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "gguf_writer.h"
#include "model/rwkv_model.h"
#include "model/sequence_model.h"
#include "model/weight_views.h"
#include "testdata.h"

using namespace wasmlm;
using namespace wasmlm_test;

namespace {

// A tensor in PyTorch order (shape[0] outermost), row-major.
struct Pt {
  std::vector<uint64_t> shape;
  std::vector<float> data;
};

// The .bin tensor as rwkv.cpp stored it (its ggml dims reversed).
Pt from_bin(const WeightStore& store, const std::string& name) {
  const WeightStore::Tensor& t = tensor(store, name);
  Pt p;
  for (int d = t.info.n_dims - 1; d >= 0; --d) p.shape.push_back(t.info.ne[d]);
  p.data.resize(t.info.n_elements());
  std::memcpy(p.data.data(), t.data.get(), p.data.size() * 4);  // FP32 files only
  return p;
}

Pt reshaped(Pt p, std::vector<uint64_t> shape) {
  p.shape = std::move(shape);
  return p;
}

// torch.permute for up to 3 dimensions (2-D: perm {1, 0} is the transpose).
Pt permuted(const Pt& p, std::vector<int> perm) {
  std::vector<uint64_t> in = p.shape;
  while (in.size() < 3) in.insert(in.begin(), 1);
  const int pad = 3 - static_cast<int>(p.shape.size());
  std::vector<int> full = {0, 1, 2};
  for (size_t i = 0; i < perm.size(); ++i) full[pad + i] = perm[i] + pad;
  Pt out;
  for (size_t i = 0; i < perm.size(); ++i) out.shape.push_back(p.shape[perm[i]]);
  out.data.resize(p.data.size());
  const uint64_t on[3] = {in[full[0]], in[full[1]], in[full[2]]};
  size_t k = 0;
  for (uint64_t a = 0; a < on[0]; ++a)
    for (uint64_t b = 0; b < on[1]; ++b)
      for (uint64_t c = 0; c < on[2]; ++c) {
        uint64_t idx[3];
        idx[full[0]] = a;
        idx[full[1]] = b;
        idx[full[2]] = c;
        out.data[k++] = p.data[(idx[0] * in[1] + idx[1]) * in[2] + idx[2]];
      }
  return out;
}
Pt transposed(const Pt& p) { return permuted(p, {1, 0}); }

Pt squeezed(Pt p) {
  std::vector<uint64_t> s;
  for (uint64_t d : p.shape)
    if (d != 1) s.push_back(d);
  p.shape = s.empty() ? std::vector<uint64_t>{1} : s;
  return p;
}

// torch.stack(parts, dim=0)
Pt stacked(const std::vector<Pt>& parts) {
  Pt out;
  out.shape = parts[0].shape;
  out.shape.insert(out.shape.begin(), parts.size());
  for (const Pt& p : parts) out.data.insert(out.data.end(), p.data.begin(), p.data.end());
  return out;
}

Pt divided(Pt p, float by) {
  for (float& x : p.data) x /= by;
  return p;
}

// gguf-py writes the PyTorch shape reversed as the ggml dims.
GTensor gguf_tensor(const std::string& name, const Pt& p) {
  GTensor t;
  t.name = name;
  t.dims.assign(p.shape.rbegin(), p.shape.rend());
  t.type = 0;
  t.data.resize(p.data.size() * 4);
  std::memcpy(t.data.data(), p.data.data(), t.data.size());
  return t;
}

using Bin = LoadedModel;

void load_bin(Bin& b, const std::string& version) {
  load_into(b, read_file(testdata_dir() + "/rwkv/tiny-rwkv-" + version + "-FP32.bin"));
}

// The tensors every RWKV GGUF has, from the .bin.
void add_common(GgufSpec& s, const WeightStore& w, uint64_t C, uint32_t n_layer) {
  const uint64_t V = tensor(w, "emb.weight").info.ne[1];
  s.tensors.push_back(gguf_tensor("token_embd.weight", reshaped(from_bin(w, "emb.weight"), {V, C})));
  s.tensors.push_back(gguf_tensor("token_embd_norm.weight", from_bin(w, "blocks.0.ln0.weight")));
  s.tensors.push_back(gguf_tensor("token_embd_norm.bias", from_bin(w, "blocks.0.ln0.bias")));
  s.tensors.push_back(gguf_tensor("output_norm.weight", from_bin(w, "ln_out.weight")));
  s.tensors.push_back(gguf_tensor("output_norm.bias", from_bin(w, "ln_out.bias")));
  s.tensors.push_back(gguf_tensor("output.weight", from_bin(w, "head.weight")));
  for (uint32_t l = 0; l < n_layer; ++l) {
    const std::string p = "blocks." + std::to_string(l) + ".", b = "blk." + std::to_string(l) + ".";
    for (const char* wb : {"weight", "bias"}) {
      s.tensors.push_back(gguf_tensor(b + "attn_norm." + wb, from_bin(w, p + "ln1." + wb)));
      s.tensors.push_back(gguf_tensor(b + "attn_norm_2." + wb, from_bin(w, p + "ln2." + wb)));
      s.tensors.push_back(gguf_tensor(b + "time_mix_ln." + wb, from_bin(w, p + "att.ln_x." + wb)));
    }
    for (const char* m : {"key", "value", "receptance"})
      s.tensors.push_back(gguf_tensor(b + "time_mix_" + m + ".weight", from_bin(w, p + "att." + m + ".weight")));
    s.tensors.push_back(gguf_tensor(b + "channel_mix_key.weight", from_bin(w, p + "ffn.key.weight")));
  }
}

// rwkv6 as Rwkv6Model.modify_tensors writes it; rescale_every as the HF
// config's rescale_every (0: none).
GgufSpec rwkv6_gguf(const Bin& bin, uint32_t rescale_every, float eps = 1e-5f) {
  const WeightStore& w = bin.store;
  const uint64_t C = bin.file.metadata.get_uint("rwkv.embedding_length").value();
  const uint32_t n_layer = static_cast<uint32_t>(bin.file.metadata.get_uint("rwkv.block_count").value());
  const uint64_t D = tensor(w, "blocks.0.att.time_maa_w1").info.ne[1] / 5;
  const uint64_t Dd = tensor(w, "blocks.0.att.time_decay_w1").info.ne[1];
  const uint64_t S = tensor(w, "blocks.0.att.time_faaaa").info.ne[1], H = C / S;
  const uint64_t F = tensor(w, "blocks.0.ffn.key.weight").info.ne[1];
  GgufSpec s;
  s.kv = {{"general.architecture", GValue::string("rwkv6")},
          {"rwkv6.context_length", GValue::u32(1048576)},
          {"rwkv6.embedding_length", GValue::u32(uint32_t(C))},
          {"rwkv6.block_count", GValue::u32(n_layer)},
          {"rwkv6.attention.layer_norm_epsilon", GValue::f32(eps)},
          {"rwkv6.rescale_every_n_layers", GValue::u32(rescale_every)},
          {"rwkv6.wkv.head_size", GValue::u32(uint32_t(S))},
          {"rwkv6.time_mix_extra_dim", GValue::u32(uint32_t(D))},
          {"rwkv6.time_decay_extra_dim", GValue::u32(uint32_t(Dd))},
          {"rwkv6.feed_forward_length", GValue::u32(uint32_t(F))},
          {"general.file_type", GValue::u32(0)},
          {"rwkv6.attention.head_count", GValue::u32(0)}};
  add_common(s, w, C, n_layer);
  for (uint32_t l = 0; l < n_layer; ++l) {
    const std::string a = "blocks." + std::to_string(l) + ".att.", f = "blocks." + std::to_string(l) + ".ffn.";
    const std::string t = "blk." + std::to_string(l) + ".time_mix_", c = "blk." + std::to_string(l) + ".channel_mix_";
    // HF layout: time_maa_* [1, 1, C], time_maa_w1 [C, 5D], time_maa_w2 [5, D, C],
    // time_decay [1, 1, C], time_decay_w1 [C, Dd], time_decay_w2 [Dd, C], time_faaaa [H, S].
    auto hf_vec = [&](const std::string& n) { return reshaped(from_bin(w, n), {1, 1, C}); };
    const Pt maa_w1 = transposed(from_bin(w, a + "time_maa_w1"));
    const Pt maa_w2 = permuted(from_bin(w, a + "time_maa_w2"), {0, 2, 1});
    const Pt decay_w1 = transposed(from_bin(w, a + "time_decay_w1"));
    const Pt decay_w2 = transposed(from_bin(w, a + "time_decay_w2"));
    EXPECT_EQ(maa_w1.shape, (std::vector<uint64_t>{C, 5 * D}));
    EXPECT_EQ(maa_w2.shape, (std::vector<uint64_t>{5, D, C}));
    // llama.cpp's converter:
    s.tensors.push_back(gguf_tensor(t + "lerp_x.weight", squeezed(hf_vec(a + "time_maa_x"))));
    std::vector<Pt> lerps;
    for (const char* i : {"w", "k", "v", "r", "g"})
      lerps.push_back(reshaped(squeezed(hf_vec(a + "time_maa_" + i)), {1, C}));  // .unsqueeze(0)
    Pt fused = stacked(lerps);
    fused.shape.insert(fused.shape.begin() + 1, 1);  // .unsqueeze(1)
    s.tensors.push_back(gguf_tensor(t + "lerp_fused.weight", fused));
    s.tensors.push_back(gguf_tensor(t + "w1.weight", transposed(maa_w1)));
    s.tensors.push_back(gguf_tensor(t + "w2.weight", permuted(maa_w2, {0, 2, 1})));
    s.tensors.push_back(gguf_tensor(t + "decay.weight", squeezed(hf_vec(a + "time_decay"))));
    s.tensors.push_back(gguf_tensor(t + "decay_w1.weight", transposed(decay_w1)));
    s.tensors.push_back(gguf_tensor(t + "decay_w2.weight", transposed(decay_w2)));
    s.tensors.push_back(gguf_tensor(t + "first.weight", reshaped(from_bin(w, a + "time_faaaa"), {H, S})));
    s.tensors.push_back(gguf_tensor(t + "gate.weight", from_bin(w, a + "gate.weight")));
    const float scale = rescale_every ? float(1u << (l / rescale_every)) : 1.f;
    s.tensors.push_back(gguf_tensor(t + "output.weight", divided(from_bin(w, a + "output.weight"), scale)));
    s.tensors.push_back(gguf_tensor(c + "value.weight", divided(from_bin(w, f + "value.weight"), scale)));
    s.tensors.push_back(gguf_tensor(c + "lerp_k.weight", squeezed(hf_vec(f + "time_maa_k"))));
    s.tensors.push_back(gguf_tensor(c + "lerp_r.weight", squeezed(hf_vec(f + "time_maa_r"))));
    s.tensors.push_back(gguf_tensor(c + "receptance.weight", from_bin(w, f + "receptance.weight")));
  }
  return s;
}

// rwkv7 as Rwkv7Model.modify_tensors writes it (lora_needs_transpose: the
// RWKV-LM layout, LoRA matrices [C, R] / [R, C]).
GgufSpec rwkv7_gguf(const Bin& bin) {
  const WeightStore& w = bin.store;
  const uint64_t C = bin.file.metadata.get_uint("rwkv.embedding_length").value();
  const uint32_t n_layer = static_cast<uint32_t>(bin.file.metadata.get_uint("rwkv.block_count").value());
  const uint64_t S = tensor(w, "blocks.0.att.r_k").info.ne[0], H = C / S;
  const uint64_t F = tensor(w, "blocks.0.ffn.key.weight").info.ne[1];
  auto rank = [&](const std::string& n) { return uint32_t(tensor(w, "blocks.1.att." + n).info.ne[1]); };
  GgufSpec s;
  s.kv = {{"general.architecture", GValue::string("rwkv7")},
          {"rwkv7.context_length", GValue::u32(1048576)},
          {"rwkv7.embedding_length", GValue::u32(uint32_t(C))},
          {"rwkv7.block_count", GValue::u32(n_layer)},
          {"rwkv7.attention.layer_norm_epsilon", GValue::f32(1e-5f)},
          {"rwkv7.wkv.head_size", GValue::u32(uint32_t(S))},
          {"rwkv7.attention.decay_lora_rank", GValue::u32(rank("w1"))},
          {"rwkv7.attention.iclr_lora_rank", GValue::u32(rank("a1"))},
          {"rwkv7.attention.value_residual_mix_lora_rank", GValue::u32(rank("v1"))},
          {"rwkv7.attention.gate_lora_rank", GValue::u32(rank("g1"))},
          {"rwkv7.feed_forward_length", GValue::u32(uint32_t(F))},
          {"general.file_type", GValue::u32(0)},
          {"rwkv7.attention.head_count", GValue::u32(0)}};
  add_common(s, w, C, n_layer);
  for (uint32_t l = 0; l < n_layer; ++l) {
    const std::string a = "blocks." + std::to_string(l) + ".att.", f = "blocks." + std::to_string(l) + ".ffn.";
    const std::string t = "blk." + std::to_string(l) + ".time_mix_";
    // HF layout: x_r ... x_g, w0, a0, v0, k_k, k_a [1, 1, C]; w1 [C, R], w2 [R, C]; r_k [H, S].
    const Pt x = from_bin(w, a + "x_rwkvag");
    std::vector<Pt> lerps;
    for (int i = 0; i < 6; ++i) {
      Pt p{{1, 1, C}, std::vector<float>(x.data.begin() + i * C, x.data.begin() + (i + 1) * C)};
      lerps.push_back(p);
    }
    s.tensors.push_back(gguf_tensor(t + "lerp_fused.weight", stacked(lerps)));  // x_r, x_w, x_k, x_v, x_a, x_g
    std::vector<std::string> parts = {"w", "a", "g"};
    if (l > 0) parts.push_back("v");
    for (const std::string& p : parts) {
      const Pt m1 = transposed(from_bin(w, a + p + "1")), m2 = transposed(from_bin(w, a + p + "2"));
      EXPECT_EQ(m1.shape[0], C);
      s.tensors.push_back(gguf_tensor(t + p + "1.weight", transposed(squeezed(m1))));
      s.tensors.push_back(gguf_tensor(t + p + "2.weight", transposed(squeezed(m2))));
      if (p == "a" && l == 0) {  // the converter's dummy v1/v2 for block 0
        s.tensors.push_back(gguf_tensor(t + "v1.weight", transposed(squeezed(m1))));
        s.tensors.push_back(gguf_tensor(t + "v2.weight", transposed(squeezed(m2))));
      }
    }
    for (const std::string& v : {"w0", "a0", "k_k", "k_a"})
      s.tensors.push_back(gguf_tensor(t + v + ".weight", squeezed(reshaped(from_bin(w, a + v), {1, 1, C}))));
    const std::string v0 = l == 0 ? "a0" : "v0";  // block 0: dummy v0 = a0
    s.tensors.push_back(gguf_tensor(t + "v0.weight", squeezed(reshaped(from_bin(w, a + v0), {1, 1, C}))));
    s.tensors.push_back(gguf_tensor(t + "r_k.weight", reshaped(from_bin(w, a + "r_k"), {H * S})));  // flatten
    s.tensors.push_back(gguf_tensor(t + "output.weight", from_bin(w, a + "output.weight")));
    const std::string c = "blk." + std::to_string(l) + ".channel_mix_";
    s.tensors.push_back(gguf_tensor(c + "lerp_k.weight", squeezed(reshaped(from_bin(w, f + "x_k"), {1, 1, C}))));
    s.tensors.push_back(gguf_tensor(c + "value.weight", from_bin(w, f + "value.weight")));
  }
  return s;
}

using Gguf = LoadedModel;

void load_gguf(Gguf& g, const GgufSpec& spec, const GgmlType* quantize_to = nullptr) {
  if (quantize_to) g.store.quantize_on_load(*quantize_to, rwkv_quantizes);
  load_into(g, write_gguf(spec).bytes);
}

// Logits after [34, 105, 110] fed one by one, then fed as one sequence.
std::vector<std::vector<float>> logits_of(const RwkvModel& model) {
  ThreadPool pool(1);
  RwkvContext one_by_one(model, pool), sequence(model, pool);
  const std::vector<int32_t> prompt = {34, 105, 110};
  const float* a = nullptr;
  for (int32_t id : prompt) a = one_by_one.eval(&id, 1);
  const float* b = sequence.eval(prompt.data(), 3);
  const uint32_t V = model.hparams().n_vocab;
  return {std::vector<float>(a, a + V), std::vector<float>(b, b + V)};
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
  return m;
}

std::vector<float> expected_logits(const std::string& version) {
  const std::vector<uint8_t> bytes = read_file(testdata_dir() + "/rwkv/expected-logits-" + version + ".bin");
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

// rwkv.cpp's FP32 pass rule: |sum(logits - expected)| <= 0.001 * 1.05, max |diff| <= 2e-3.
void expect_rwkv_cpp_pass(const std::vector<float>& logits, const std::vector<float>& expected) {
  ASSERT_EQ(logits.size(), expected.size());
  double sum = 0;
  for (size_t i = 0; i < logits.size(); ++i) sum += logits[i] - expected[i];
  EXPECT_LE(std::fabs(sum), 0.001 * 1.05);
  EXPECT_LE(max_abs_diff(logits, expected), 2e-3);
}

// Compares the GGUF model's logits with the .bin model's; returns the max |diff|.
double compare_with_bin(const RwkvModel& gguf, const RwkvModel& bin, const std::string& version) {
  const auto g = logits_of(gguf), b = logits_of(bin);
  const std::vector<float> expected = expected_logits(version);
  double worst = 0;
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i == 0 ? "one by one" : "as a sequence");
    worst = std::max(worst, max_abs_diff(g[i], b[i]));
    expect_rwkv_cpp_pass(g[i], expected);
  }
  return worst;
}

std::string error_of(const GgufSpec& spec) {
  try {
    Gguf g;
    load_gguf(g, spec);
    RwkvModel model(g.file, g.store);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BadFormat) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

GTensor* find(GgufSpec& s, const std::string& name) {
  for (GTensor& t : s.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace

TEST(RwkvGguf, Rwkv6GivesTheBinModelsLogits) {
  WASMLM_REQUIRE_TESTDATA();
  Bin bin;
  load_bin(bin, "6v0-1m");
  Gguf gguf;
  load_gguf(gguf, rwkv6_gguf(bin, 0));
  RwkvModel g(gguf.file, gguf.store), b(bin.file, bin.store);
  EXPECT_EQ(g.hparams().version, RwkvVersion::V6);
  EXPECT_EQ(g.hparams().n_vocab, 256u);
  EXPECT_EQ(g.hparams().lora_mix, b.hparams().lora_mix);
  EXPECT_EQ(g.hparams().head_size, b.hparams().head_size);
  EXPECT_EQ(compare_with_bin(g, b, "6v0-1m"), 0.0);  // the same floats in the same order
}

// rescale_every_n_layers (HF RWKV6 configs: 6): weights divided by powers of
// two and the residual halved, as llama.cpp runs such files. The same model
// but for the layer norms' eps, which the smaller residual feels more: this
// tiny model's residual is small, so the logits move by a few 1e-4 (real
// models' residuals are far larger than eps).
TEST(RwkvGguf, Rwkv6RescaledResidualStaysClose) {
  WASMLM_REQUIRE_TESTDATA();
  Bin bin;
  load_bin(bin, "6v0-1m");
  RwkvModel b(bin.file, bin.store);
  for (uint32_t every : {6u, 2u}) {
    SCOPED_TRACE("rescale_every_n_layers " + std::to_string(every));
    Gguf gguf;
    load_gguf(gguf, rwkv6_gguf(bin, every));
    RwkvModel g(gguf.file, gguf.store);
    EXPECT_EQ(g.hparams().rescale_every, every);
    const auto lg = logits_of(g), lb = logits_of(b);
    const double diff = std::max(max_abs_diff(lg[0], lb[0]), max_abs_diff(lg[1], lb[1]));
    printf("[ NOTE     ] rwkv6 rescale_every_n_layers=%u: max |logit diff| vs .bin %.3g\n", every, diff);
    if (every == 6) {
      // rwkv.cpp's sum rule (0.00105) is tighter than the eps effect summed
      // over 256 logits (0.0029 here): only the per-logit bound is asserted.
      EXPECT_LE(diff, 1e-4);
      const std::vector<float> expected = expected_logits("6v0-1m");
      for (const auto& l : lg) EXPECT_LE(max_abs_diff(l, expected), 2e-3);
    }
  }
  // With an eps far below the residual's variance the rescaled model gives
  // the unscaled one's logits up to float rounding: the difference is eps's.
  Gguf plain, rescaled;
  load_gguf(plain, rwkv6_gguf(bin, 0, 1e-12f));
  load_gguf(rescaled, rwkv6_gguf(bin, 2, 1e-12f));
  RwkvModel p(plain.file, plain.store), r(rescaled.file, rescaled.store);
  const auto lp = logits_of(p), lr = logits_of(r);
  const double diff = std::max(max_abs_diff(lp[0], lr[0]), max_abs_diff(lp[1], lr[1]));
  printf("[ NOTE     ] eps 1e-12: rescale_every_n_layers=2 vs none: max |logit diff| %.3g\n", diff);
  EXPECT_LE(diff, 1e-5);
}

TEST(RwkvGguf, Rwkv7GivesTheBinModelsLogits) {
  WASMLM_REQUIRE_TESTDATA();
  Bin bin;
  load_bin(bin, "7v0-834K");
  Gguf gguf;
  load_gguf(gguf, rwkv7_gguf(bin));
  RwkvModel g(gguf.file, gguf.store), b(bin.file, bin.store);
  EXPECT_EQ(g.hparams().version, RwkvVersion::V7);
  EXPECT_EQ(g.hparams().head_size, b.hparams().head_size);
  EXPECT_EQ(compare_with_bin(g, b, "7v0-834K"), 0.0);
}

// The same tensors are quantized in both files' naming: Q8_0 on load gives
// the same logits.
TEST(RwkvGguf, Rwkv7QuantizedOnLoadLikeTheBin) {
  WASMLM_REQUIRE_TESTDATA();
  const GgmlType q8 = GgmlType::Q8_0;
  Bin bin;
  Bin plain;
  load_bin(plain, "7v0-834K");
  bin.store.quantize_on_load(q8, rwkv_quantizes);
  load_bin(bin, "7v0-834K");
  Gguf gguf;
  load_gguf(gguf, rwkv7_gguf(plain), &q8);
  int quantized = 0;
  for (const TensorInfo& t : gguf.file.tensors) quantized += rwkv_quantizes(t);
  EXPECT_EQ(quantized, 12 * 6);  // key, value, receptance, output, channel key, value
  EXPECT_EQ(tensor(gguf.store, "blk.3.time_mix_key.weight").info.type, q8);
  EXPECT_EQ(tensor(gguf.store, "blk.3.time_mix_w1.weight").info.type, GgmlType::F32);
  EXPECT_EQ(tensor(gguf.store, "output.weight").info.type, GgmlType::F32);
  RwkvModel g(gguf.file, gguf.store), b(bin.file, bin.store);
  const auto lg = logits_of(g), lb = logits_of(b);
  EXPECT_EQ(max_abs_diff(lg[0], lb[0]), 0.0);
  EXPECT_EQ(max_abs_diff(lg[1], lb[1]), 0.0);
}

TEST(RwkvGguf, QuantizesOnlyTheProjections) {
  auto info = [](const std::string& name, uint64_t ne0, uint64_t ne1) {
    TensorInfo t;
    t.name = name;
    t.n_dims = 2;
    t.ne = {ne0, ne1, 1, 1};
    return t;
  };
  EXPECT_TRUE(rwkv_quantizes(info("blk.0.time_mix_key.weight", 768, 768)));
  EXPECT_TRUE(rwkv_quantizes(info("blk.0.time_mix_gate.weight", 768, 768)));
  EXPECT_TRUE(rwkv_quantizes(info("blk.0.channel_mix_receptance.weight", 768, 768)));
  EXPECT_TRUE(rwkv_quantizes(info("blk.11.channel_mix_value.weight", 2688, 768)));
  EXPECT_FALSE(rwkv_quantizes(info("token_embd.weight", 768, 65536)));
  EXPECT_FALSE(rwkv_quantizes(info("output.weight", 768, 65536)));
  EXPECT_FALSE(rwkv_quantizes(info("blk.0.time_mix_w1.weight", 768, 160)));
  EXPECT_FALSE(rwkv_quantizes(info("blk.0.time_mix_decay_w2.weight", 64, 768)));
  EXPECT_FALSE(rwkv_quantizes(info("blk.0.time_mix_first.weight", 64, 12)));
  EXPECT_FALSE(rwkv_quantizes(info("blk.0.time_mix_g2.weight", 128, 768)));
  // rwkv.cpp names as before
  EXPECT_TRUE(rwkv_quantizes(info("blocks.0.att.key.weight", 768, 768)));
  EXPECT_FALSE(rwkv_quantizes(info("blocks.0.att.w1", 768, 64)));
}

TEST(RwkvGguf, SequenceModelOpensRwkv6AndRwkv7) {
  WASMLM_REQUIRE_TESTDATA();
  Bin b6, b7;
  load_bin(b6, "6v0-1m");
  load_bin(b7, "7v0-834K");
  for (const GgufSpec& spec : {rwkv6_gguf(b6, 0), rwkv7_gguf(b7)}) {
    Gguf g;
    load_gguf(g, spec);
    ThreadPool pool(1);
    auto seq = open_sequence_model(g.file, g.store, pool, SequenceOptions{});
    EXPECT_EQ(seq->n_vocab(), 256u);
    const int32_t id = 34;
    EXPECT_NE(seq->eval(&id, 1), nullptr);
  }
}

TEST(RwkvGguf, MissingTensorOrWrongShapeIsABadFormatNamingIt) {
  WASMLM_REQUIRE_TESTDATA();
  Bin b6, b7;
  load_bin(b6, "6v0-1m");
  load_bin(b7, "7v0-834K");
  for (const char* name : {"blk.3.time_mix_first.weight", "blk.0.time_mix_lerp_fused.weight", "output_norm.bias",
                           "blk.11.channel_mix_receptance.weight"}) {
    GgufSpec s = rwkv6_gguf(b6, 0);
    s.tensors.erase(std::remove_if(s.tensors.begin(), s.tensors.end(), [&](const GTensor& t) { return t.name == name; }),
                    s.tensors.end());
    EXPECT_NE(error_of(s).find(name), std::string::npos) << name;
  }
  for (const char* name : {"blk.5.time_mix_v2.weight", "blk.2.time_mix_r_k.weight"}) {
    GgufSpec s = rwkv7_gguf(b7);
    s.tensors.erase(std::remove_if(s.tensors.begin(), s.tensors.end(), [&](const GTensor& t) { return t.name == name; }),
                    s.tensors.end());
    EXPECT_NE(error_of(s).find(name), std::string::npos) << name;
  }
  {  // time_mix_w2 not permuted: [C, D, 5] instead of [D, C, 5]
    GgufSpec s = rwkv6_gguf(b6, 0);
    GTensor* t = find(s, "blk.4.time_mix_w2.weight");
    std::swap(t->dims[0], t->dims[1]);
    EXPECT_NE(error_of(s).find("blk.4.time_mix_w2.weight"), std::string::npos);
  }
  {  // a LoRA rank that does not match the metadata
    GgufSpec s = rwkv7_gguf(b7);
    for (auto& kv : s.kv)
      if (kv.first == "rwkv7.attention.gate_lora_rank") kv.second = GValue::u32(16);
    EXPECT_NE(error_of(s).find("blk.0.time_mix_g1.weight"), std::string::npos);
  }
  {  // a lerp_fused of 5 parts in an rwkv7 file
    GgufSpec s = rwkv7_gguf(b7);
    GTensor* t = find(s, "blk.1.time_mix_lerp_fused.weight");
    t->dims.back() = 5;
    t->data.resize(t->data.size() / 6 * 5);
    EXPECT_NE(error_of(s).find("blk.1.time_mix_lerp_fused.weight"), std::string::npos);
  }
}

// With WASMLM_RWKV_GGUF_OUT=DIR: writes the converted tiny models (with a
// 256-token byte vocabulary as llama.cpp's rwkv tokenizer stores it) for a
// check against llama.cpp, and prints our 8 greedy tokens after [34, 105, 110].
TEST(RwkvGguf, WritesFilesForLlamaCppWhenAsked) {
  const char* dir = std::getenv("WASMLM_RWKV_GGUF_OUT");
  if (!dir) GTEST_SKIP() << "set WASMLM_RWKV_GGUF_OUT to write the files";
  WASMLM_REQUIRE_TESTDATA();
  Bin b6, b7;
  load_bin(b6, "6v0-1m");
  load_bin(b7, "7v0-834K");
  const std::pair<const char*, GgufSpec> files[] = {{"tiny-rwkv6.gguf", rwkv6_gguf(b6, 0)},
                                                    {"tiny-rwkv7.gguf", rwkv7_gguf(b7)}};
  for (const auto& [name, spec0] : files) {
    GgufSpec spec = spec0;
    std::vector<GValue> tokens, types;
    for (int i = 0; i < 256; ++i) {
      char hex[8];
      snprintf(hex, sizeof hex, "\\x%02x", i);
      tokens.push_back(GValue::string(hex));
      types.push_back(GValue::i32(1));
    }
    spec.kv.push_back({"tokenizer.ggml.model", GValue::string("rwkv")});
    spec.kv.push_back({"tokenizer.ggml.tokens", GValue::array(kString, tokens)});
    spec.kv.push_back({"tokenizer.ggml.token_type", GValue::array(kI32, types)});
    const std::vector<uint8_t> bytes = write_gguf(spec).bytes;
    FILE* f = std::fopen((std::string(dir) + "/" + name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    Gguf g;
    load_gguf(g, spec);
    RwkvModel model(g.file, g.store);
    ThreadPool pool(1);
    RwkvContext ctx(model, pool);
    const std::vector<int32_t> prompt = {34, 105, 110};
    const float* l = ctx.eval(prompt.data(), 3);
    printf("[ NOTE     ] %s greedy:", name);
    for (int i = 0; i < 8; ++i) {
      const int32_t next = static_cast<int32_t>(std::max_element(l, l + 256) - l);
      printf(" %d", next);
      l = ctx.eval(&next, 1);
    }
    printf("\n");
  }
}
