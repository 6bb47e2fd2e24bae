#include "model/meta_checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/checked_math.h"
#include "core/error.h"
#include "format/pth_checkpoint.h"
#include "format/pth_read_at.h"

namespace wasmlm {

namespace {

enum class Split { Rows, Columns, Replicated };  // torch dim 0, dim 1, none

struct NameMap {
  const char* meta;  // suffix after "layers.N." (or the whole name)
  const char* gguf;  // suffix after "blk.N." (or the whole name)
  Split split;
};

constexpr NameMap kLayerNames[] = {
    {"attention.wq.weight", "attn_q.weight", Split::Rows},      {"attention.wk.weight", "attn_k.weight", Split::Rows},
    {"attention.wv.weight", "attn_v.weight", Split::Rows},      {"attention.wo.weight", "attn_output.weight", Split::Columns},
    {"feed_forward.w1.weight", "ffn_gate.weight", Split::Rows}, {"feed_forward.w3.weight", "ffn_up.weight", Split::Rows},
    {"feed_forward.w2.weight", "ffn_down.weight", Split::Columns},
    {"attention_norm.weight", "attn_norm.weight", Split::Replicated},
    {"ffn_norm.weight", "ffn_norm.weight", Split::Replicated},
};
constexpr NameMap kModelNames[] = {
    {"tok_embeddings.weight", "token_embd.weight", Split::Columns},
    {"norm.weight", "output_norm.weight", Split::Replicated},
    {"output.weight", "output.weight", Split::Rows},
};

GgmlType ggml_type_of(PthDtype d, const std::string& name) {
  switch (d) {
    case PthDtype::F32: return GgmlType::F32;
    case PthDtype::F16: return GgmlType::F16;
    case PthDtype::BF16: return GgmlType::BF16;
    default:
      fail(ErrorCode::Unsupported, kNoOffset,
           "tensor '" + name + "' is " + pth_dtype_name(d) + ": only F32, F16 and BF16 weights can run");
  }
}

// The output projection is absent when it is tied to the embedding (LLaMA 3.2 1B/3B).
bool optional_tensor(const std::string& meta_name) { return meta_name == "output.weight"; }

const PthTensor& tensor_in(const PthCheckpoint& c, const std::string& name, size_t shard) {
  const PthTensor* t = c.find(name);
  if (!t) fail(ErrorCode::BadFormat, kNoOffset, "consolidated." + std::to_string(shard) + " has no tensor '" + name + "'");
  if (!t->contiguous())
    fail(ErrorCode::Unsupported, kNoOffset, "tensor '" + name + "' is not contiguous (a view): re-save the checkpoint");
  return *t;
}

}  // namespace

MetaCheckpointPlan plan_meta_checkpoint(const std::string& params_json, const std::vector<PthCheckpoint>& parts,
                                        const std::vector<uint64_t>& shard_sizes) {
  if (parts.empty()) fail(ErrorCode::BadFormat, kNoOffset, "a Meta checkpoint needs at least one consolidated.NN.pth");
  if (shard_sizes.size() != parts.size()) fail(ErrorCode::Internal, kNoOffset, "plan_meta_checkpoint: one size per shard");
  nlohmann::json params;
  try {
    params = nlohmann::json::parse(params_json);
  } catch (const std::exception& e) {
    fail(ErrorCode::BadFormat, kNoOffset, std::string("params.json: ") + e.what());
  }
  auto number = [&](const char* key, double fallback, bool required) {
    auto it = params.find(key);
    if (it == params.end() || it->is_null()) {
      if (required) fail(ErrorCode::BadFormat, kNoOffset, std::string("params.json has no \"") + key + "\"");
      return fallback;
    }
    if (!it->is_number()) fail(ErrorCode::BadFormat, kNoOffset, std::string("params.json: \"") + key + "\" is not a number");
    return it->get<double>();
  };
  // A whole number from 0 to `max`, checked before it is converted.
  auto count = [&](const char* key, double fallback, bool required, uint32_t max) {
    const double v = number(key, fallback, required);
    if (!(v >= 0 && v <= max) || v != std::floor(v))
      fail(ErrorCode::BadFormat, kNoOffset,
           std::string("params.json: \"") + key + "\" must be a whole number from 0 to " + std::to_string(max));
    return static_cast<uint32_t>(v);
  };
  const uint32_t n_embd = count("dim", 0, true, 1u << 20);
  const uint32_t n_layer = count("n_layers", 0, true, 4096);
  const uint32_t n_head = count("n_heads", 0, true, 4096);
  const uint32_t n_head_kv = count("n_kv_heads", n_head, false, 4096);
  const uint32_t max_seq_len = count("max_seq_len", 2048, false, 1u << 24);
  if (n_embd == 0 || n_layer == 0 || n_head == 0)
    fail(ErrorCode::BadFormat, kNoOffset, "params.json: dim, n_layers and n_heads must be sane positive integers");

  MetaCheckpointPlan plan;
  ModelFile& file = plan.file;
  file.format = FileFormat::Gguf;
  file.file_size = 0;
  for (uint64_t size : shard_sizes) file.file_size += size;
  Metadata& m = file.metadata;
  m.add("general.architecture", MetaValue::of_string("llama"));
  m.add("llama.embedding_length", MetaValue::of_u32(n_embd));
  m.add("llama.block_count", MetaValue::of_u32(n_layer));
  m.add("llama.attention.head_count", MetaValue::of_u32(n_head));
  m.add("llama.attention.head_count_kv", MetaValue::of_u32(n_head_kv));
  m.add("llama.attention.layer_norm_rms_epsilon", MetaValue::of_f32(static_cast<float>(number("norm_eps", 1e-5, false))));
  m.add("llama.rope.freq_base", MetaValue::of_f32(static_cast<float>(number("rope_theta", 10000, false))));
  m.add("llama.context_length", MetaValue::of_u32(max_seq_len));

  // Every GGUF tensor: its Meta name and how the shards split it.
  std::vector<std::pair<std::string, NameMap>> wanted;
  for (const NameMap& n : kModelNames) wanted.push_back({n.meta, n});
  for (uint32_t l = 0; l < n_layer; ++l)
    for (const NameMap& n : kLayerNames) wanted.push_back({"layers." + std::to_string(l) + "." + n.meta, n});

  for (size_t index = 0; index < wanted.size(); ++index) {
    const std::string& meta_name = wanted[index].first;
    const NameMap& map = wanted[index].second;
    std::string gguf_name = map.gguf;
    if (meta_name.rfind("layers.", 0) == 0)
      gguf_name = "blk." + meta_name.substr(7, meta_name.find('.', 7) - 7) + "." + map.gguf;
    if (optional_tensor(meta_name) && !parts[0].find(meta_name)) continue;
    const PthTensor& first = tensor_in(parts[0], meta_name, 0);
    const Split split = parts.size() == 1 ? Split::Replicated : map.split;
    TensorInfo info;
    info.name = gguf_name;
    info.type = ggml_type_of(first.dtype, meta_name);
    info.n_dims = static_cast<int>(first.shape.size());
    if (info.n_dims < 1 || info.n_dims > 2) fail(ErrorCode::BadFormat, kNoOffset, "tensor '" + meta_name + "' is not 1-D or 2-D");
    const uint64_t esize = pth_dtype_size(first.dtype);
    const size_t n_pieces = split == Split::Replicated ? 1 : parts.size();
    uint64_t rows = 0, cols = 0;
    for (size_t k = 0; k < n_pieces; ++k) {
      const PthTensor& t = tensor_in(parts[k], meta_name, k);
      const uint64_t t_rows = info.n_dims == 2 ? t.shape[0] : 1, t_cols = t.shape.back();
      const bool fits = t.dtype == first.dtype && t.shape.size() == first.shape.size() &&
                        (split == Split::Columns ? t_rows == static_cast<uint64_t>(first.shape[0])
                                                 : t_cols == static_cast<uint64_t>(first.shape.back()));
      if (!fits || t_rows * t_cols == 0) fail(ErrorCode::BadFormat, kNoOffset, "the shards of '" + meta_name + "' do not fit together");
      MetaRead r;
      r.shard = static_cast<uint32_t>(k);
      r.offset = parts[k].data_offset(t);
      r.length = t_rows * t_cols * esize;
      r.tensor = static_cast<uint32_t>(file.tensors.size());
      r.row_bytes = t_cols * esize;
      r.column_byte = split == Split::Columns ? cols * esize : 0;
      r.first_row = split == Split::Columns ? 0 : rows;
      if (r.offset + r.length > shard_sizes[k])
        fail(ErrorCode::Truncated, r.offset, "consolidated." + std::to_string(k) + " ends inside tensor '" + meta_name + "'");
      plan.reads.push_back(r);
      if (split == Split::Columns) {
        rows = t_rows;
        cols += t_cols;
      } else {
        rows += t_rows;
        cols = t_cols;
      }
    }
    info.ne = {cols, info.n_dims == 2 ? rows : 1, 1, 1};
    info.nbytes = checked_mul(checked_mul(rows, cols, kNoOffset, "'" + meta_name + "' elements"), esize, kNoOffset,
                              "'" + meta_name + "' bytes");
    info.offset = parts[0].data_offset(first);
    file.tensors.push_back(info);
  }
  if (auto it = params.find("use_scaled_rope"); it != params.end() && it->is_boolean() && it->get<bool>()) {
    const std::vector<float> factors = llama3_rope_factors(n_embd / n_head, number("rope_theta", 10000, false),
                                                           number("rope_scaling_factor", 8, false),
                                                           number("rope_high_freq_factor", 4, false));
    TensorInfo info;
    info.name = "rope_freqs.weight";
    info.type = GgmlType::F32;
    info.n_dims = 1;
    info.ne = {factors.size(), 1, 1, 1};
    info.nbytes = factors.size() * sizeof(float);
    std::vector<uint8_t> bytes(info.nbytes);
    std::memcpy(bytes.data(), factors.data(), bytes.size());
    plan.made.push_back({static_cast<uint32_t>(file.tensors.size()), std::move(bytes)});
    file.tensors.push_back(info);
  }
  // The feed-forward width (params.json's multiple_of / ffn_dim_multiplier rule) as the tensors have it.
  m.add("llama.feed_forward_length", MetaValue::of_u32(static_cast<uint32_t>(file.find_tensor("blk.0.ffn_gate.weight")->ne[1])));
  return plan;
}

std::vector<float> llama3_rope_factors(uint32_t head_dim, double theta, double scale_factor, double high_freq_factor) {
  constexpr double kLowFreqFactor = 1, kOldContext = 8192;  // LLaMA 3's original context
  const double low_freq_wavelen = kOldContext / kLowFreqFactor, high_freq_wavelen = kOldContext / high_freq_factor;
  std::vector<float> factors(head_dim / 2);
  for (uint32_t i = 0; i < factors.size(); ++i) {
    const double freq = 1.0 / std::pow(theta, 2.0 * i / head_dim);
    const double wavelen = 2 * M_PI / freq;
    if (wavelen < high_freq_wavelen) {
      factors[i] = 1;
    } else if (wavelen > low_freq_wavelen) {
      factors[i] = static_cast<float>(scale_factor);
    } else {
      const double smooth = (kOldContext / wavelen - kLowFreqFactor) / (high_freq_factor - kLowFreqFactor);
      factors[i] = static_cast<float>(1 / ((1 - smooth) / scale_factor + smooth));
    }
  }
  return factors;
}

MetaCheckpointFeed::MetaCheckpointFeed(const MetaCheckpointPlan& plan, WeightStore& store) : plan_(plan), store_(store) {
  for (const auto& [index, bytes] : plan.made) store_.tensor_bytes(index, plan.file.tensors[index], 0, bytes.data(), bytes.size());
}

void MetaCheckpointFeed::push(const uint8_t* data, size_t n) {
  while (n > 0) {
    if (done()) fail(ErrorCode::Internal, kNoOffset, "more bytes than the checkpoint's tensors hold");
    const MetaRead& r = plan_.reads[read_];
    const size_t take = static_cast<size_t>(std::min<uint64_t>(n, r.length - in_read_));
    place(r, data, take);
    data += take, n -= take, in_read_ += take;
    if (in_read_ < r.length) continue;
    in_read_ = 0;
    ++read_;
    const bool tensor_done = done() || plan_.reads[read_].tensor != r.tensor;
    if (tensor_done && !merged_.empty()) {
      store_.tensor_bytes(r.tensor, plan_.file.tensors[r.tensor], 0, merged_.data(), merged_.size());
      std::vector<uint8_t>().swap(merged_);
    }
  }
}

void MetaCheckpointFeed::place(const MetaRead& r, const uint8_t* data, size_t n) {
  const TensorInfo& info = plan_.file.tensors[r.tensor];
  const uint64_t row_bytes = info.nbytes / info.ne[1];
  if (r.row_bytes == row_bytes) {  // whole rows: straight to the store
    store_.tensor_bytes(r.tensor, info, r.first_row * row_bytes + in_read_, data, n);
    return;
  }
  if (merged_.empty()) merged_.assign(info.nbytes, 0);
  for (uint64_t at = in_read_; n > 0;) {
    const uint64_t row = at / r.row_bytes, within = at % r.row_bytes;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(n, r.row_bytes - within));
    std::memcpy(merged_.data() + row * row_bytes + r.column_byte + within, data, take);
    data += take, n -= take, at += take;
  }
}

ModelFile load_meta_checkpoint(const std::string& params_json, const std::vector<MetaShard>& shards, WeightStore& store) {
  std::vector<PthCheckpoint> parts;
  std::vector<uint64_t> sizes;
  for (const MetaShard& s : shards) {
    parts.push_back(read_pth_checkpoint(s.size, s.read_at));
    sizes.push_back(s.size);
  }
  MetaCheckpointPlan plan = plan_meta_checkpoint(params_json, parts, sizes);
  MetaCheckpointFeed feed(plan, store);
  std::vector<uint8_t> buffer(1u << 22);
  for (const MetaRead& r : plan.reads)
    for (uint64_t at = 0; at < r.length;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), r.length - at));
      read_exact(shards[r.shard].read_at, r.offset + at, buffer.data(), n, "a tensor");
      feed.push(buffer.data(), n);
      at += n;
    }
  return std::move(plan.file);
}

bool meta_checkpoint_quantizes(const TensorInfo& t) { return t.n_dims == 2; }

}  // namespace wasmlm
