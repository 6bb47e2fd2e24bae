#include "core/ggml_type.h"

#include <array>
#include <iterator>

namespace wasmlm {

namespace {

constexpr uint32_t QK_K = 256;

// Block sizes and bytes per block as ggml-common.h lays the blocks out.
constexpr GgmlTypeInfo kTypes[] = {
    {GgmlType::F32, "F32", 1, 4, false},
    {GgmlType::F16, "F16", 1, 2, false},
    {GgmlType::Q4_0, "Q4_0", 32, 2 + 16, true},
    {GgmlType::Q4_1, "Q4_1", 32, 2 + 2 + 16, true},
    {GgmlType::Q5_0, "Q5_0", 32, 2 + 4 + 16, true},
    {GgmlType::Q5_1, "Q5_1", 32, 2 + 2 + 4 + 16, true},
    {GgmlType::Q8_0, "Q8_0", 32, 2 + 32, true},
    {GgmlType::Q8_1, "Q8_1", 32, 2 + 2 + 32, true},
    {GgmlType::Q2_K, "Q2_K", QK_K, QK_K / 16 + QK_K / 4 + 2 + 2, true},
    {GgmlType::Q3_K, "Q3_K", QK_K, QK_K / 8 + QK_K / 4 + 12 + 2, true},
    {GgmlType::Q4_K, "Q4_K", QK_K, 2 + 2 + 12 + QK_K / 2, true},
    {GgmlType::Q5_K, "Q5_K", QK_K, 2 + 2 + 12 + QK_K / 8 + QK_K / 2, true},
    {GgmlType::Q6_K, "Q6_K", QK_K, QK_K / 2 + QK_K / 4 + QK_K / 16 + 2, true},
    {GgmlType::Q8_K, "Q8_K", QK_K, 4 + QK_K + QK_K / 16 * 2, true},
    {GgmlType::IQ2_XXS, "IQ2_XXS", QK_K, 2 + QK_K / 4, true},
    {GgmlType::IQ2_XS, "IQ2_XS", QK_K, 2 + QK_K / 4 + QK_K / 32, true},
    {GgmlType::IQ3_XXS, "IQ3_XXS", QK_K, 2 + 3 * QK_K / 8, true},
    {GgmlType::IQ1_S, "IQ1_S", QK_K, 2 + QK_K / 8 + QK_K / 16, true},
    {GgmlType::IQ4_NL, "IQ4_NL", 32, 2 + 16, true},
    {GgmlType::IQ3_S, "IQ3_S", QK_K, 2 + QK_K / 4 + QK_K / 32 + QK_K / 8 + QK_K / 64, true},
    {GgmlType::IQ2_S, "IQ2_S", QK_K, 2 + QK_K / 4 + QK_K / 32 + QK_K / 32, true},
    {GgmlType::IQ4_XS, "IQ4_XS", QK_K, 2 + 2 + QK_K / 64 + QK_K / 2, true},
    {GgmlType::I8, "I8", 1, 1, false},
    {GgmlType::I16, "I16", 1, 2, false},
    {GgmlType::I32, "I32", 1, 4, false},
    {GgmlType::I64, "I64", 1, 8, false},
    {GgmlType::F64, "F64", 1, 8, false},
    {GgmlType::IQ1_M, "IQ1_M", QK_K, QK_K / 8 + QK_K / 16 + QK_K / 32, true},
    {GgmlType::BF16, "BF16", 1, 2, false},
    {GgmlType::TQ1_0, "TQ1_0", QK_K, (QK_K - 4 * QK_K / 64) / 5 + QK_K / 64 + 2, true},
    {GgmlType::TQ2_0, "TQ2_0", QK_K, QK_K / 4 + 2, true},
    {GgmlType::MXFP4, "MXFP4", 32, 1 + 16, true},
};

constexpr uint32_t kMaxId = 40;

constexpr std::array<int8_t, kMaxId> make_index() {
  std::array<int8_t, kMaxId> index{};
  for (auto& slot : index) slot = -1;
  for (size_t i = 0; i < std::size(kTypes); ++i) index[static_cast<uint32_t>(kTypes[i].type)] = static_cast<int8_t>(i);
  return index;
}

constexpr std::array<int8_t, kMaxId> kIndex = make_index();

}  // namespace

const GgmlTypeInfo* ggml_type_info(uint32_t id) {
  if (id >= kMaxId || kIndex[id] < 0) return nullptr;
  return &kTypes[kIndex[id]];
}

const GgmlTypeInfo& ggml_type_info(GgmlType type) { return *ggml_type_info(static_cast<uint32_t>(type)); }

std::optional<GgmlType> ggml_type_from_name(std::string_view name) {
  for (const auto& t : kTypes)
    if (name == t.name) return t.type;
  return std::nullopt;
}

std::optional<uint64_t> ggml_nbytes(GgmlType type, uint64_t n_elements) {
  const GgmlTypeInfo& info = ggml_type_info(type);
  if (n_elements % info.block_size != 0) return std::nullopt;
  uint64_t bytes;
  if (__builtin_mul_overflow(n_elements / info.block_size, uint64_t(info.type_size), &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace wasmlm
