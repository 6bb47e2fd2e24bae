#include "model/quantize_choice.h"

#include <initializer_list>
#include <string>
#include <string_view>

#include "model/rwkv_model.h"

namespace wasmlm {

namespace {

bool rows_hold(GgmlType type, const TensorInfo& t) { return t.ne[0] % ggml_type_info(type).block_size == 0; }

// llama-quantize's replacement for a type whose blocks do not fit the rows
// (llama_tensor_get_type's incompatible-shape fallback).
std::optional<GgmlType> fallback(GgmlType type) {
  switch (type) {
    case GgmlType::TQ1_0: case GgmlType::TQ2_0: return GgmlType::Q4_0;
    case GgmlType::Q2_K: case GgmlType::Q3_K: case GgmlType::IQ4_XS: return GgmlType::IQ4_NL;
    case GgmlType::Q4_K: return GgmlType::Q5_0;
    case GgmlType::Q5_K: return GgmlType::Q5_1;
    case GgmlType::Q6_K: return GgmlType::Q8_0;
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<GgmlType> quantize_choice(GgmlType requested, const TensorInfo& t) {
  if (t.type != GgmlType::F32 && t.type != GgmlType::F16 && t.type != GgmlType::BF16) return std::nullopt;
  if (rows_hold(requested, t)) return requested;
  if (const auto other = fallback(requested); other && rows_hold(*other, t)) return other;
  if (t.type == GgmlType::F32 && requested != GgmlType::F32) return GgmlType::F16;
  return std::nullopt;
}

bool quantize_on_load_picks(const std::string& architecture, FileFormat format, const TensorInfo& t) {
  if (format == FileFormat::RwkvBin || RwkvModel::is_gguf_architecture(architecture)) return rwkv_quantizes(t);
  return t.n_dims == 2 && t.ne[1] > 1;
}

bool repack_on_load_picks(const std::string& architecture, FileFormat format, const TensorInfo& t) {
  if (format == FileFormat::RwkvBin || RwkvModel::is_gguf_architecture(architecture) || t.n_dims != 2) return false;
  if (t.name == "output.weight") return true;
  if (t.name.compare(0, 4, "blk.") != 0) return false;
  const size_t dot = t.name.find('.', 4);
  if (dot == std::string::npos) return false;
  const std::string_view kind = std::string_view(t.name).substr(dot + 1);
  for (const std::string_view m : {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_qkv.weight",
                                   "attn_output.weight", "ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"})
    if (kind == m) return true;
  return false;
}

}  // namespace wasmlm
