// The registry of tensor types, numbered as ggml/GGUF number them.
//
// One row per type: every reader, kernel, quantizer and the viewer look types
// up here instead of switching on ids (see ggml's type traits).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace wasmlm {

enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3,
  // 4, 5: Q4_2 and Q4_3, removed from ggml in 2023
  Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
  IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23,
  I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30,
  // 31-33: Q4_0_4_4/4_8/8_8, repacked layouts removed from the file format
  TQ1_0 = 34, TQ2_0 = 35,
  // 36-38: IQ4_NL_4_4/4_8/8_8, removed likewise
  MXFP4 = 39,
};

struct GgmlTypeInfo {
  GgmlType type;
  const char* name;
  uint32_t block_size;  // elements per block
  uint32_t type_size;   // bytes per block
  bool quantized;
};

// The row for a type id found in a file, or nullopt if the id is unknown.
const GgmlTypeInfo* ggml_type_info(uint32_t id);
const GgmlTypeInfo& ggml_type_info(GgmlType type);
std::optional<GgmlType> ggml_type_from_name(std::string_view name);

// Bytes needed for `n_elements` elements; nullopt if n_elements is not a whole
// number of blocks or the size overflows.
std::optional<uint64_t> ggml_nbytes(GgmlType type, uint64_t n_elements);

}  // namespace wasmlm
