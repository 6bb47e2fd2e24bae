#include "model_compare.h"

namespace wasmlm_test {

using wasmlm::MetaArray;
using wasmlm::MetaType;
using wasmlm::MetaValue;
using wasmlm::ModelFile;

namespace {

std::string array_diff(const MetaArray& a, const MetaArray& b) {
  if (a.elem_type != b.elem_type)
    return std::string("element type ") + meta_type_name(a.elem_type) + " vs " + meta_type_name(b.elem_type);
  if (a.count != b.count) return "count " + std::to_string(a.count) + " vs " + std::to_string(b.count);
  if (a.packed != b.packed) return "packed elements differ";
  if (a.strings != b.strings) return "string elements differ";
  if (a.arrays.size() != b.arrays.size()) return "nested array count differs";
  for (size_t i = 0; i < a.arrays.size(); ++i) {
    std::string d = meta_value_diff(a.arrays[i], b.arrays[i]);
    if (!d.empty()) return "[" + std::to_string(i) + "]: " + d;
  }
  return "";
}

}  // namespace

std::string meta_value_diff(const MetaValue& a, const MetaValue& b) {
  if (a.type != b.type) return std::string("type ") + meta_type_name(a.type) + " vs " + meta_type_name(b.type);
  if (a.type == MetaType::String) return a.str == b.str ? "" : "string '" + a.str + "' vs '" + b.str + "'";
  if (a.type == MetaType::Array) {
    if (!a.array || !b.array) return "array missing";
    return array_diff(*a.array, *b.array);
  }
  return a.bits == b.bits ? "" : "bits " + std::to_string(a.bits) + " vs " + std::to_string(b.bits);
}

std::string model_diff(const ModelFile& a, const ModelFile& b) {
  if (a.format != b.format) return "format";
  if (a.version != b.version) return "version";
  if (a.big_endian != b.big_endian) return "big_endian";
  if (a.alignment != b.alignment) return "alignment";
  if (a.data_offset != b.data_offset) return "data_offset";
  if (a.file_size != b.file_size) return "file_size";
  if (a.trailing_bytes != b.trailing_bytes) return "trailing_bytes";
  if (a.metadata.size() != b.metadata.size()) return "metadata entry count";
  for (size_t i = 0; i < a.metadata.size(); ++i) {
    const auto& [ka, va] = a.metadata.entries()[i];
    const auto& [kb, vb] = b.metadata.entries()[i];
    if (ka != kb) return "metadata key #" + std::to_string(i) + ": '" + ka + "' vs '" + kb + "'";
    std::string d = meta_value_diff(va, vb);
    if (!d.empty()) return "metadata '" + ka + "': " + d;
  }
  if (a.tensors.size() != b.tensors.size()) return "tensor count";
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const auto& x = a.tensors[i];
    const auto& y = b.tensors[i];
    if (x.name != y.name || x.type != y.type || x.n_dims != y.n_dims || x.ne != y.ne || x.offset != y.offset ||
        x.nbytes != y.nbytes)
      return "tensor #" + std::to_string(i) + " ('" + x.name + "' vs '" + y.name + "')";
  }
  if (a.warnings != b.warnings) return "warnings";
  return "";
}

}  // namespace wasmlm_test
