#include "quant/wide_activations.h"

#include "quant/fp16.h"

namespace wasmlm {

bool has_wide_activations(GgmlType vec_dot_type) {
  return vec_dot_type == GgmlType::Q8_0 || vec_dot_type == GgmlType::Q8_1 || vec_dot_type == GgmlType::Q8_K ||
         vec_dot_type == GgmlType::F32;
}

uint64_t wide_activation_bytes(GgmlType vec_dot_type, int64_t n) {
  if (vec_dot_type == GgmlType::Q8_0) return sizeof(block_q8_0w) * static_cast<uint64_t>(n / QK8_0);
  if (vec_dot_type == GgmlType::Q8_1) return sizeof(block_q8_1w) * static_cast<uint64_t>(n / QK8_1);
  if (vec_dot_type == GgmlType::F32) return sizeof(float) * static_cast<uint64_t>(n);
  return sizeof(block_q8_Kw) * static_cast<uint64_t>(n / QK_K);
}

void widen_activations(GgmlType vec_dot_type, const void* src, void* dst, int64_t n) {
  if (vec_dot_type == GgmlType::Q8_0) {
    const auto* x = static_cast<const block_q8_0*>(src);
    auto* y = static_cast<block_q8_0w*>(dst);
    for (int64_t i = 0; i < n / QK8_0; ++i) {
      for (int k = 0; k < 4; ++k) y[i].sum8[k] = 0;
      for (int j = 0; j < QK8_0; ++j) {
        y[i].qs[j] = x[i].qs[j];
        y[i].sum8[(j % 8) / 2] += 8 * x[i].qs[j];
      }
      y[i].d = fp16_to_fp32(x[i].d);
    }
    return;
  }
  if (vec_dot_type == GgmlType::F32) {
    const auto* x = static_cast<const float*>(src);
    auto* y = static_cast<float*>(dst);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * kF16RawScale;
    return;
  }
  if (vec_dot_type == GgmlType::Q8_1) {
    const auto* x = static_cast<const block_q8_1*>(src);
    auto* y = static_cast<block_q8_1w*>(dst);
    for (int64_t i = 0; i < n / QK8_1; ++i) {
      for (int j = 0; j < QK8_1; ++j) y[i].qs[j] = x[i].qs[j];
      y[i].d = fp16_to_fp32(x[i].d);
      y[i].s = fp16_to_fp32(x[i].s);
    }
    return;
  }
  const auto* x = static_cast<const block_q8_K*>(src);
  auto* y = static_cast<block_q8_Kw*>(dst);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    for (int j = 0; j < QK_K; ++j) y[i].qs[j] = x[i].qs[j];
    for (int g = 0; g < QK_K / 16; ++g) y[i].bsums[g] = x[i].bsums[g];
    for (int g = 0; g < QK_K / 32; ++g) y[i].gsums[g] = static_cast<int16_t>(x[i].bsums[2 * g] + x[i].bsums[2 * g + 1]);
    y[i].d = x[i].d;
  }
}

}  // namespace wasmlm
