#include "quant/wide_activations.h"

#include <cstring>

#include "quant/fp16.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

// A block's 32 qs (zeros where q is null) copied to out (int8 or int16);
// returns their sum.
template <typename Out>
int32_t copy_block(const int8_t* q, Out* out) {
  int32_t sum = 0;
#ifdef __wasm_simd128__
  if constexpr (sizeof(Out) == 1) {
    const v128_t lo = q ? wasm_v128_load(q) : wasm_i8x16_splat(0), hi = q ? wasm_v128_load(q + 16) : lo;
    wasm_v128_store(out, lo);
    wasm_v128_store(out + 16, hi);
    // |a sum of 4| <= 512: the pairs' sums add in int16 lanes
    return simd::hsum_i32(wasm_i32x4_extadd_pairwise_i16x8(
        wasm_i16x8_add(wasm_i16x8_extadd_pairwise_i8x16(lo), wasm_i16x8_extadd_pairwise_i8x16(hi))));
  }
#endif
  for (int j = 0; j < QK8_0; ++j) {
    out[j] = q ? q[j] : 0;
    sum += out[j];
  }
  return sum;
}

// The grouped forms: the qs of blocks 4g..4g+3 side by side in group g
// (zeros past the last block), then scales(block or nullptr, group, b, sum).
template <typename Block, typename Group, typename Scales>
void widen_groups(const void* src, void* dst, int64_t n, Scales&& scales) {
  const auto* x = static_cast<const Block*>(src);
  auto* y = static_cast<Group*>(dst);
  const int64_t nb = n / QK8_0;
  for (int64_t g = 0; g < (nb + 3) / 4; ++g)
    for (int b = 0; b < 4; ++b) {
      const int64_t i = 4 * g + b;
      const int32_t sum = copy_block(i < nb ? x[i].qs : nullptr, y[g].qs + QK8_0 * b);
      scales(i < nb ? &x[i] : nullptr, y[g], b, sum);
    }
}

}  // namespace

WideForm default_wide_form(GgmlType vec_dot_type) {
  switch (vec_dot_type) {
    case GgmlType::Q8_0: return WideForm::Q8_0;
    case GgmlType::Q8_1: return WideForm::Q8_1;
    case GgmlType::Q8_K: return WideForm::Q8_K;
    case GgmlType::F32: return WideForm::F32;
    default: return WideForm::None;
  }
}

uint64_t wide_activation_bytes(WideForm form, int64_t n) {
  switch (form) {
    case WideForm::Q8_0: return sizeof(block_q8_0w) * static_cast<uint64_t>(n / QK8_0);
    case WideForm::Q8_1: return sizeof(block_q8_1w) * static_cast<uint64_t>(n / QK8_1);
    case WideForm::Q8_K: return sizeof(block_q8_Kw) * static_cast<uint64_t>(n / QK_K);
    case WideForm::F32: return sizeof(float) * static_cast<uint64_t>(n);
    case WideForm::Q8_0Groups: return sizeof(group_q8_0r) * static_cast<uint64_t>((n / QK8_0 + 3) / 4);
    case WideForm::Q8_0WideGroups: return sizeof(group_q8_0w) * static_cast<uint64_t>((n / QK8_0 + 3) / 4);
    case WideForm::Q8_1Groups: return sizeof(group_q8_1r) * static_cast<uint64_t>((n / QK8_1 + 3) / 4);
    case WideForm::Q8_KAsIs: return sizeof(block_q8_K) * static_cast<uint64_t>(n / QK_K);
    case WideForm::F32AsIs: return sizeof(float) * static_cast<uint64_t>(n);
    case WideForm::None: break;
  }
  return 0;
}

void widen_activations(WideForm form, const void* src, void* dst, int64_t n, int level_offset) {
  if (read_as_quantized(form)) {
    std::memcpy(dst, src, wide_activation_bytes(form, n));
    return;
  }
  if (form == WideForm::Q8_0Groups) {
    widen_groups<block_q8_0, group_q8_0r>(src, dst, n, [=](const block_q8_0* x, group_q8_0r& y, int b, int32_t sum) {
      y.d[b] = x ? fp16_to_fp32(x->d) : 0.0f;
      y.offset_sums[b] = -level_offset * sum;
    });
    return;
  }
  if (form == WideForm::Q8_0WideGroups) {
    widen_groups<block_q8_0, group_q8_0w>(src, dst, n, [](const block_q8_0* x, group_q8_0w& y, int b, int32_t) {
      y.d[b] = x ? fp16_to_fp32(x->d) : 0.0f;
    });
    return;
  }
  if (form == WideForm::Q8_1Groups) {
    widen_groups<block_q8_1, group_q8_1r>(src, dst, n, [](const block_q8_1* x, group_q8_1r& y, int b, int32_t) {
      y.d[b] = x ? fp16_to_fp32(x->d) : 0.0f;
      y.s[b] = x ? fp16_to_fp32(x->s) : 0.0f;
    });
    return;
  }
  if (form == WideForm::Q8_0) {
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
  if (form == WideForm::F32) {
    const auto* x = static_cast<const float*>(src);
    auto* y = static_cast<float*>(dst);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * kF16RawScale;
    return;
  }
  if (form == WideForm::Q8_1) {
    const auto* x = static_cast<const block_q8_1*>(src);
    auto* y = static_cast<block_q8_1w*>(dst);
    for (int64_t i = 0; i < n / QK8_1; ++i) {
      for (int j = 0; j < QK8_1; ++j) y[i].qs[j] = x[i].qs[j];
      y[i].d = fp16_to_fp32(x[i].d);
      y[i].s = fp16_to_fp32(x[i].s);
    }
    return;
  }
  if (form != WideForm::Q8_K) return;
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
