// IQ4_XS: 256 weights in 8 groups of 32 with IQ4_NL levels and a 6-bit
// scale per group (4 low bits in scales_l, 2 high in scales_h).
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq_groups_kernel.h"
#include "quant/quant_types.h"
#include "quant/relaxed/iq_groups_relaxed.h"
#include "quant/relaxed/relaxed_kernels.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

// Group ib's scale: 6 bits (4 in scales_l, 2 in scales_h) less 32.
inline int group_scale(const block_iq4_xs& b, int ib) {
  return (((b.scales_l[ib / 2] >> 4 * (ib % 2)) & 0xF) | (((b.scales_h >> 2 * ib) & 3) << 4)) - 32;
}

}  // namespace

void dequantize_row_iq4_xs(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq4_xs*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    const uint8_t* qs = x[i].qs;
    for (int ib = 0; ib < QK_K / 32; ++ib, y += 32, qs += 16) {
      const float dl = d * group_scale(x[i], ib);
      for (int j = 0; j < 16; ++j) {
        y[j] = dl * kValuesIq4nl[qs[j] & 0xF];
        y[j + 16] = dl * kValuesIq4nl[qs[j] >> 4];
      }
    }
  }
}

float vec_dot_iq4_xs_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq4_xs*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const uint8_t* qs = x[i].qs;
    const int8_t* q8 = y[i].qs;
    int isum = 0;
    for (int ib = 0; ib < QK_K / 32; ++ib, qs += 16, q8 += 32) {
      int s = 0;
      for (int j = 0; j < 16; ++j) s += kValuesIq4nl[qs[j] & 0xF] * q8[j] + kValuesIq4nl[qs[j] >> 4] * q8[j + 16];
      isum += group_scale(x[i], ib) * s;
    }
    sum += fp16_to_fp32(x[i].d) * y[i].d * isum;
  }
  return sum;
}

#ifdef __wasm_simd128__
namespace {

// Group ib's 32 weights as int8 levels: *lo weights 0-15 (low nibbles), *hi
// 16-31 (high nibbles).
struct Iq4xsGroups {
  using Block = block_iq4_xs;
  static constexpr float kFactor = 1.0f;
  static void decode(const Block& b, int ib, v128_t* lo, v128_t* hi) {
    const v128_t levels = wasm_v128_load(kValuesIq4nl), v = wasm_v128_load(b.qs + 16 * ib);
    *lo = wasm_i8x16_swizzle(levels, wasm_v128_and(v, wasm_i8x16_splat(0x0F)));
    *hi = wasm_i8x16_swizzle(levels, simd::high_nibbles(v));
  }
  static int32_t scale(const Block& b, int ib) { return group_scale(b, ib); }
  // For the relaxed kernel: the levels' magnitudes (weights 0-15 in mag[0],
  // 16-31 in mag[1]) and sign masks, looked up by relaxed swizzles.
  static constexpr int kLevelOffset = 0;
  struct SignedTables {
    alignas(16) int8_t mag[16];
    alignas(16) int8_t neg[16];
  };
  static constexpr SignedTables kSignedTables = [] {
    SignedTables t{};
    for (int i = 0; i < 16; ++i) {
      t.mag[i] = static_cast<int8_t>(kValuesIq4nl[i] < 0 ? -kValuesIq4nl[i] : kValuesIq4nl[i]);
      t.neg[i] = static_cast<int8_t>(kValuesIq4nl[i] < 0 ? -1 : 0);
    }
    return t;
  }();
  static void magnitudes(const Block& b, int ib, v128_t* mag, v128_t* neg) {
    const v128_t mags = wasm_v128_load(kSignedTables.mag), negs = wasm_v128_load(kSignedTables.neg);
    const v128_t v = wasm_v128_load(b.qs + 16 * ib);
    const v128_t idx[2] = {wasm_v128_and(v, wasm_i8x16_splat(0x0F)), simd::high_nibbles(v)};
    for (int h = 0; h < 2; ++h) {
      mag[h] = simd::relaxed_swizzle(mags, idx[h]);
      neg[h] = simd::relaxed_swizzle(negs, idx[h]);
    }
  }
};

}  // namespace

float vec_dot_iq4_xs_q8_K_simd(int64_t n, const void* w, const void* a) {
  return simd::iq_groups_vec_dot<Iq4xsGroups>(n, w, a);
}

// 1 to kMaxWideTokens tokens of int8 activations on the relaxed 8-bit dot,
// and one token through the same kernel.
void vec_dot_iq4_xs_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                        float* out, int64_t out_stride) {
  simd::iq_groups_tokens_relaxed<Iq4xsGroups>(n, w, a, act_stride, n_tokens, out, out_stride);
}

float vec_dot_iq4_xs_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  float out;
  simd::iq_groups_tokens_relaxed<Iq4xsGroups>(n, w, a, 0, 1, &out, 0);
  return out;
}

// Against int16 activations, 1 to 4 tokens (127 * 32 fits in int16).
void vec_dot_iq4_xs_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                          int64_t out_stride) {
  simd::iq_groups_vec_dot_wide<Iq4xsGroups>(n, w, a, act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
