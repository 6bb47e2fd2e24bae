#include "model/decoder_model.h"

#include <string>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "model/weight_views.h"

namespace wasmlm {

namespace {

// Views of one file's tensors: `optional` ones are empty when the file has
// no tensor of that name. Without a store only the directory's shapes are
// checked, and every view is empty.
class Tensors {
 public:
  // Names are looked up in a hash map: a file of many layers asks for each
  // layer's tensors, and a scan per lookup would be quadratic.
  Tensors(const ModelFile& file, const WeightStore* store) : file_(file), store_(store) {
    for (const TensorInfo& t : file.tensors) by_name_.emplace(t.name, &t);
  }
  bool has(const std::string& name) const { return by_name_.count(name) != 0; }
  std::vector<float> vec(const std::string& name, uint64_t n) const {
    if (store_) return vector_f32(*store_, name, n);
    check_vector(info(name), name, n);
    return {};
  }
  std::vector<float> optional_vec(const std::string& name, uint64_t n) const {
    return has(name) ? vec(name, n) : std::vector<float>();
  }
  WeightMatrix mat(const std::string& name, uint64_t rows, uint64_t cols) const {
    if (store_) return matrix(*store_, name, rows, cols);
    check_matrices(info(name), name, rows, cols);
    return {};
  }

 private:
  const TensorInfo& info(const std::string& name) const {
    const auto it = by_name_.find(name);
    return it != by_name_.end() ? *it->second : directory_tensor(file_, name);  // which fails naming it
  }

  const ModelFile& file_;
  const WeightStore* store_;
  std::unordered_map<std::string_view, const TensorInfo*> by_name_;
};

std::vector<float> slice(const std::vector<float>& v, uint64_t from, uint64_t n) {
  return std::vector<float>(v.begin() + from, v.begin() + from + n);
}

}  // namespace

DecoderModel::DecoderModel(const ModelFile& file, const WeightStore* store) : hp_(read_decoder_hparams(file)) {
  const Tensors t(file, store);
  const DecoderArch& a = *hp_.arch;
  check_block_count(file, "blk.", hp_.n_layer, std::string(a.name) + ".block_count");
  const uint64_t d = hp_.n_embd, q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim(), ff = hp_.n_ff;
  token_embd_ = t.mat("token_embd.weight", hp_.n_vocab, d);
  if (token_embd_.quads) fail(ErrorCode::Internal, kNoOffset, "token_embd.weight is looked up by rows: not in quads");
  for (uint32_t l = 0; l < hp_.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    DecoderLayer L;
    if (a.norms != NormPlacement::Post) L.attn_norm = t.vec(p + "attn_norm.weight", d);
    L.fused_qkv = t.has(p + "attn_qkv.weight");
    if (L.fused_qkv) {
      L.wqkv = t.mat(p + "attn_qkv.weight", q_dim + 2 * kv_dim, d);
      const std::vector<float> b = t.optional_vec(p + "attn_qkv.bias", q_dim + 2 * kv_dim);
      if (!b.empty()) L.bq = slice(b, 0, q_dim), L.bk = slice(b, q_dim, kv_dim), L.bv = slice(b, q_dim + kv_dim, kv_dim);
    } else {
      L.wq = t.mat(p + "attn_q.weight", q_dim, d);
      L.wk = t.mat(p + "attn_k.weight", kv_dim, d);
      L.wv = t.mat(p + "attn_v.weight", kv_dim, d);
    }
    if (L.bq.empty()) {
      L.bq = t.optional_vec(p + "attn_q.bias", q_dim);
      L.bk = t.optional_vec(p + "attn_k.bias", kv_dim);
      L.bv = t.optional_vec(p + "attn_v.bias", kv_dim);
    }
    if (a.qk_norm != QkNorm::None) {
      const bool per_head = a.qk_norm == QkNorm::PerHead;
      L.q_norm = t.vec(p + "attn_q_norm.weight", per_head ? hp_.head_dim : q_dim);
      L.k_norm = t.vec(p + "attn_k_norm.weight", per_head ? hp_.head_dim : kv_dim);
    }
    L.wo = t.mat(p + "attn_output.weight", d, q_dim);
    L.bo = t.optional_vec(p + "attn_output.bias", d);
    if (a.norms != NormPlacement::Pre) {
      L.attn_post_norm = t.vec(p + "post_attention_norm.weight", d);
      L.ffn_post_norm = t.vec(p + "post_ffw_norm.weight", d);
    }
    if (a.norms != NormPlacement::Post) L.ffn_norm = t.vec(p + "ffn_norm.weight", d);
    if (a.fused_gate_up) {
      L.w_up = t.mat(p + "ffn_up.weight", 2 * ff, d);
    } else {
      L.w_gate = t.mat(p + "ffn_gate.weight", ff, d);
      L.w_up = t.mat(p + "ffn_up.weight", ff, d);
      L.b_gate = t.optional_vec(p + "ffn_gate.bias", ff);
      L.b_up = t.optional_vec(p + "ffn_up.bias", ff);
    }
    L.w_down = t.mat(p + "ffn_down.weight", d, ff);
    L.b_down = t.optional_vec(p + "ffn_down.bias", d);
    layers_.push_back(std::move(L));
  }
  output_norm_ = t.vec("output_norm.weight", d);
  rope_freqs_ = t.optional_vec("rope_freqs.weight", hp_.n_rot / 2);
  rope_long_ = t.optional_vec("rope_factors_long.weight", hp_.n_rot / 2);
  rope_short_ = t.optional_vec("rope_factors_short.weight", hp_.n_rot / 2);
  // Tied embeddings: without output.weight the embedding matrix is reused.
  tied_ = !t.has("output.weight");
  if (tied_ && a.output_required) fail(ErrorCode::BadFormat, kNoOffset, "the model has no tensor 'output.weight'");
  output_ = tied_ ? token_embd_ : t.mat("output.weight", hp_.n_vocab, d);
  output_bias_ = t.optional_vec("output.bias", hp_.n_vocab);
}

const float* DecoderModel::rope_factors(uint32_t n_ctx) const {
  if (!rope_freqs_.empty()) return rope_freqs_.data();
  // llama.cpp compares its context, rounded up to 256, with the original one.
  const uint64_t padded = (uint64_t(n_ctx) + 255) / 256 * 256;
  const std::vector<float>& f = padded > hp_.n_ctx_orig ? rope_long_ : rope_short_;
  return f.empty() ? nullptr : f.data();
}

}  // namespace wasmlm
