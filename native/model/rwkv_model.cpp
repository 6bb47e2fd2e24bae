#include "model/rwkv_model.h"

#include <cstring>
#include <string>

#include "core/error.h"
#include "model/weight_views.h"

namespace wasmlm {

const char* rwkv_version_name(RwkvVersion v) {
  switch (v) {
    case RwkvVersion::V4: return "4";
    case RwkvVersion::V5_1: return "5.1";
    case RwkvVersion::V5_2: return "5.2";
    case RwkvVersion::V6: return "6";
    case RwkvVersion::V7: return "7";
  }
  return "?";
}

namespace {

uint32_t required(const Metadata& m, const std::string& key) {
  auto v = m.get_uint(key);
  if (!v || *v == 0 || *v > (1u << 24)) fail(ErrorCode::BadFormat, kNoOffset, "expected a positive integer " + key);
  return static_cast<uint32_t>(*v);
}

const TensorInfo& info(const ModelFile& file, const std::string& name) {
  const TensorInfo* t = file.find_tensor(name);
  if (!t) fail(ErrorCode::BadFormat, kNoOffset, "the RWKV model has no tensor '" + name + "'");
  return *t;
}

// The version from the first block's tensors, as rwkv.cpp tells them apart.
RwkvHParams read_hparams(const ModelFile& file) {
  const Metadata& m = file.metadata;
  if (m.get_string("general.architecture").value_or("") != "rwkv")
    fail(ErrorCode::Unsupported, kNoOffset, "expected an RWKV model (rwkv.cpp .bin file, or GGUF rwkv6/rwkv7)");
  RwkvHParams h;
  h.n_vocab = required(m, "rwkv.vocab_size");
  h.n_embd = required(m, "rwkv.embedding_length");
  h.n_layer = required(m, "rwkv.block_count");
  const std::string b = "blocks.0.att.";
  if (file.find_tensor(b + "x_rwkvag")) {
    h.version = RwkvVersion::V7;
    const TensorInfo& r_k = info(file, b + "r_k");
    h.head_size = static_cast<uint32_t>(r_k.ne[0]);
  } else if (file.find_tensor(b + "time_maa_x")) {
    h.version = RwkvVersion::V6;
    h.head_size = static_cast<uint32_t>(info(file, b + "time_faaaa").ne[1]);
    h.lora_mix = static_cast<uint32_t>(info(file, b + "time_maa_w1").ne[1] / 5);
  } else if (file.find_tensor(b + "time_faaaa")) {
    h.version = RwkvVersion::V5_2;
    h.head_size = static_cast<uint32_t>(info(file, b + "time_faaaa").ne[1]);
  } else if (file.find_tensor(b + "ln_x.weight")) {
    h.version = RwkvVersion::V5_1;
    const uint64_t heads = info(file, b + "time_decay").n_elements();
    if (heads == 0 || h.n_embd % heads) fail(ErrorCode::BadFormat, kNoOffset, "v5.1 time_decay must have one value per head");
    h.head_size = static_cast<uint32_t>(h.n_embd / heads);
  } else {
    h.version = RwkvVersion::V4;
    h.head_size = h.n_embd;
  }
  if (h.head_size == 0 || h.n_embd % h.head_size)
    fail(ErrorCode::BadFormat, kNoOffset, "the head size " + std::to_string(h.head_size) + " does not divide n_embd");
  h.n_head = h.n_embd / h.head_size;
  if (h.version != RwkvVersion::V4 && h.head_size > 256)
    fail(ErrorCode::Unsupported, kNoOffset, "RWKV head size above 256");
  h.n_ffn = static_cast<uint32_t>(info(file, "blocks.0.ffn.key.weight").ne[1]);
  return h;
}

// A per-head vector (v5.1's time_first/time_decay) repeated for each channel.
std::vector<float> per_channel(std::vector<float> per_head, uint32_t head_size) {
  std::vector<float> out;
  for (float x : per_head) out.insert(out.end(), head_size, x);
  return out;
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

bool rwkv_quantizes(const TensorInfo& t) {
  if (t.n_dims != 2 || t.ne[1] == 1 || t.name == "emb.weight" || t.name == "head.weight") return false;
  if (t.name.compare(0, 4, "blk.") == 0) {  // GGUF: the projections only
    static const char* const kProjections[] = {
        ".time_mix_key.weight",   ".time_mix_value.weight",     ".time_mix_receptance.weight",
        ".time_mix_gate.weight",  ".time_mix_output.weight",    ".channel_mix_key.weight",
        ".channel_mix_value.weight", ".channel_mix_receptance.weight"};
    for (const char* suffix : kProjections)
      if (ends_with(t.name, suffix)) return true;
    return false;
  }
  if (t.name == "token_embd.weight" || t.name == "output.weight") return false;
  static const char* const kV7Lora[] = {".att.w1", ".att.w2", ".att.a1", ".att.a2", ".att.v1", ".att.v2", ".att.g1", ".att.g2"};
  for (const char* suffix : kV7Lora)
    if (ends_with(t.name, suffix)) return false;
  return true;
}

void RwkvModel::check_directory(const ModelFile& file) {
  const std::string arch = file.metadata.get_string("general.architecture").value_or("");
  if (is_gguf_architecture(arch)) {
    const uint32_t n_embd = required(file.metadata, arch + ".embedding_length");
    check_block_count(file, "blk.", required(file.metadata, arch + ".block_count"), arch + ".block_count");
    const TensorInfo& embd = directory_tensor(file, "token_embd.weight");
    check_matrices(embd, "token_embd.weight", embd.ne[1], n_embd);
    return;
  }
  const RwkvHParams h = read_hparams(file);
  check_block_count(file, "blocks.", h.n_layer, "rwkv.block_count");
  check_matrices(directory_tensor(file, "emb.weight"), "emb.weight", h.n_vocab, h.n_embd);
}

RwkvModel::RwkvModel(const ModelFile& file, const WeightStore& store) {
  if (is_gguf_architecture(file.metadata.get_string("general.architecture").value_or("")))
    load_gguf(file, store);
  else
    load_bin(file, store);
}

void RwkvModel::load_bin(const ModelFile& file, const WeightStore& store) {
  hp_ = read_hparams(file);
  check_block_count(file, "blocks.", hp_.n_layer, "rwkv.block_count");
  const uint64_t C = hp_.n_embd, F = hp_.n_ffn;
  const RwkvVersion ver = hp_.version;
  emb_ = matrix(store, "emb.weight", hp_.n_vocab, C);
  head_ = matrix(store, "head.weight", hp_.n_vocab, C);
  ln0_w_ = vector_f32(store, "blocks.0.ln0.weight", C);
  ln0_b_ = vector_f32(store, "blocks.0.ln0.bias", C);
  ln_out_w_ = vector_f32(store, "ln_out.weight", C);
  ln_out_b_ = vector_f32(store, "ln_out.bias", C);
  auto rows_of = [&](const std::string& name) { return static_cast<uint64_t>(tensor(store, name).info.ne[1]); };
  for (uint32_t l = 0; l < hp_.n_layer; ++l) {
    const std::string p = "blocks." + std::to_string(l) + ".", a = p + "att.", f = p + "ffn.";
    RwkvLayer L;
    L.ln1_w = vector_f32(store, p + "ln1.weight", C);
    L.ln1_b = vector_f32(store, p + "ln1.bias", C);
    L.ln2_w = vector_f32(store, p + "ln2.weight", C);
    L.ln2_b = vector_f32(store, p + "ln2.bias", C);
    L.att_r = matrix(store, a + "receptance.weight", C, C);
    L.att_k = matrix(store, a + "key.weight", C, C);
    L.att_v = matrix(store, a + "value.weight", C, C);
    L.att_o = matrix(store, a + "output.weight", C, C);
    L.ffn_k = matrix(store, f + "key.weight", F, C);
    L.ffn_v = matrix(store, f + "value.weight", C, F);
    if (ver != RwkvVersion::V4) {
      L.ln_x_w = vector_f32(store, a + "ln_x.weight", C);
      L.ln_x_b = vector_f32(store, a + "ln_x.bias", C);
    }
    switch (ver) {
      case RwkvVersion::V4:
      case RwkvVersion::V5_1:
      case RwkvVersion::V5_2:
        L.mix_k = vector_f32(store, a + "time_mix_k", C);
        L.mix_v = vector_f32(store, a + "time_mix_v", C);
        L.mix_r = vector_f32(store, a + "time_mix_r", C);
        if (ver == RwkvVersion::V4) {
          L.time_decay = vector_f32(store, a + "time_decay", C);
          L.time_first = vector_f32(store, a + "time_first", C);
        } else if (ver == RwkvVersion::V5_1) {
          L.time_decay = per_channel(vector_f32(store, a + "time_decay", hp_.n_head), hp_.head_size);
          L.time_first = per_channel(vector_f32(store, a + "time_first", hp_.n_head), hp_.head_size);
        } else {
          L.time_decay = vector_f32(store, a + "time_decay", C);
          L.time_first = vector_f32(store, a + "time_faaaa", C);
          L.mix_g = vector_f32(store, a + "time_mix_g", C);
          L.att_g = matrix(store, a + "gate.weight", C, C);
        }
        L.ffn_mix_k = vector_f32(store, f + "time_mix_k", C);
        L.ffn_mix_r = vector_f32(store, f + "time_mix_r", C);
        L.ffn_r = matrix(store, f + "receptance.weight", C, C);
        break;
      case RwkvVersion::V6: {
        L.maa_x = vector_f32(store, a + "time_maa_x", C);
        L.mix_w = vector_f32(store, a + "time_maa_w", C);
        L.mix_k = vector_f32(store, a + "time_maa_k", C);
        L.mix_v = vector_f32(store, a + "time_maa_v", C);
        L.mix_r = vector_f32(store, a + "time_maa_r", C);
        L.mix_g = vector_f32(store, a + "time_maa_g", C);
        L.maa_w1 = matrix(store, a + "time_maa_w1", 5 * uint64_t(hp_.lora_mix), C);
        L.maa_w2 = matrices(store, a + "time_maa_w2", C, hp_.lora_mix, 5);
        L.time_decay = vector_f32(store, a + "time_decay", C);
        L.time_first = vector_f32(store, a + "time_faaaa", C);
        const uint64_t d = rows_of(a + "time_decay_w1");
        L.decay_w1 = matrix(store, a + "time_decay_w1", d, C);
        L.decay_w2 = matrix(store, a + "time_decay_w2", C, d);
        L.att_g = matrix(store, a + "gate.weight", C, C);
        L.ffn_mix_k = vector_f32(store, f + "time_maa_k", C);
        L.ffn_mix_r = vector_f32(store, f + "time_maa_r", C);
        L.ffn_r = matrix(store, f + "receptance.weight", C, C);
        break;
      }
      case RwkvVersion::V7: {
        const std::vector<float> mix = vector_f32(store, a + "x_rwkvag", 6 * C);
        std::vector<float>* parts[6] = {&L.mix_r, &L.mix_w, &L.mix_k, &L.mix_v, &L.mix_a, &L.mix_g};
        for (int i = 0; i < 6; ++i) parts[i]->assign(mix.begin() + i * C, mix.begin() + (i + 1) * C);
        auto lora = [&](const std::string& n1, const std::string& n2, WeightMatrix& m1, WeightMatrix& m2) {
          const uint64_t d = rows_of(a + n1);
          m1 = matrix(store, a + n1, d, C);
          m2 = matrix(store, a + n2, C, d);
        };
        lora("w1", "w2", L.w1, L.w2);
        lora("a1", "a2", L.a1, L.a2);
        lora("g1", "g2", L.g1, L.g2);
        L.has_v_mix = l > 0;
        if (L.has_v_mix) {
          lora("v1", "v2", L.v1, L.v2);
          L.v0 = vector_f32(store, a + "v0", C);
        }
        L.w0 = vector_f32(store, a + "w0", C);
        L.a0 = vector_f32(store, a + "a0", C);
        L.k_k = vector_f32(store, a + "k_k", C);
        L.k_a = vector_f32(store, a + "k_a", C);
        L.r_k = vector_f32(store, a + "r_k", C);
        L.ffn_mix_k = vector_f32(store, f + "x_k", C);
        break;
      }
    }
    layers_.push_back(std::move(L));
  }
}

}  // namespace wasmlm
