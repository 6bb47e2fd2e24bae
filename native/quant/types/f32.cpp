#include <cstring>

#include "quant/quant_types.h"

namespace wasmlm {

void dequantize_row_f32(const void* src, float* dst, int64_t n) { std::memcpy(dst, src, n * sizeof(float)); }

void quantize_row_f32(const float* x, void* dst, int64_t n) { std::memcpy(dst, x, n * sizeof(float)); }

}  // namespace wasmlm
