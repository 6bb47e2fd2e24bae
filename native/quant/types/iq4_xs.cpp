// IQ4_XS: 256 weights in 8 groups of 32 with IQ4_NL levels and a 6-bit
// scale per group (4 low bits in scales_l, 2 high in scales_h).
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq_groups_kernel.h"
#include "quant/quant_types.h"
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
};

}  // namespace

float vec_dot_iq4_xs_q8_K_simd(int64_t n, const void* w, const void* a) {
  return simd::iq_groups_vec_dot<Iq4xsGroups>(n, w, a);
}

// Against int16 activations, 1 to 4 tokens (127 * 32 fits in int16).
void vec_dot_iq4_xs_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                          int64_t out_stride) {
  simd::iq_groups_vec_dot_wide<Iq4xsGroups>(n, w, a, act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
