#include "model/quantize_choice.h"

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

}  // namespace wasmlm
