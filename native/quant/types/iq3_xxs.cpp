// IQ3_XXS: 256 weights in 8 groups of 32, each group 8 grid entries of 4
// magnitudes (kIq3xxsGrid) with signs per 8 weights (kIqSigns) and a 4-bit
// scale: w = d * (0.5 + s) / 2 * grid * sign, with s the scale.
#include <array>
#include <cstring>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq_groups_kernel.h"
#include "quant/relaxed/iq_groups_relaxed.h"
#include "quant/relaxed/iq_sign_lanes.h"
#include "quant/relaxed/relaxed_kernels.h"
#include "quant/iq3_grids.h"
#include "quant/iq_signs.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

// The group's uint32: 4 sign indices of 7 bits, the scale in bits 28-31.
inline uint32_t group_word(const block_iq3_xxs& b, int ib) {
  uint32_t aux;
  std::memcpy(&aux, b.qs + QK_K / 4 + 4 * ib, 4);
  return aux;
}

}  // namespace

void dequantize_row_iq3_xxs(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq3_xxs*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    const uint8_t* qs = x[i].qs;
    for (int ib = 0; ib < QK_K / 32; ++ib, qs += 8) {
      const uint32_t aux = group_word(x[i], ib);
      const float db = d * (0.5f + (aux >> 28)) * 0.5f;
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint8_t signs = kIqSigns[(aux >> 7 * l) & 127];
        const uint32_t g1 = kIq3xxsGrid[qs[2 * l]], g2 = kIq3xxsGrid[qs[2 * l + 1]];
        for (int j = 0; j < 4; ++j) {
          y[j] = db * static_cast<float>((g1 >> 8 * j) & 0xFF) * (signs & (1 << j) ? -1.f : 1.f);
          y[j + 4] = db * static_cast<float>((g2 >> 8 * j) & 0xFF) * (signs & (1 << (j + 4)) ? -1.f : 1.f);
        }
      }
    }
  }
}

// ggml's ggml_vec_dot_iq3_xxs_q8_K_generic: scales 2s + 1, the factor 1/4
// applied to the whole sum.
float vec_dot_iq3_xxs_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq3_xxs*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d) * y[i].d;
    const uint8_t* q3 = x[i].qs;
    const int8_t* q8 = y[i].qs;
    int32_t bsum = 0;
    for (int ib = 0; ib < QK_K / 32; ++ib, q3 += 8) {
      const uint32_t aux = group_word(x[i], ib);
      const int32_t ls = 2 * static_cast<int32_t>(aux >> 28) + 1;
      int32_t sumi = 0;
      for (int l = 0; l < 4; ++l, q8 += 8) {
        const uint8_t signs = kIqSigns[(aux >> 7 * l) & 127];
        const uint32_t g1 = kIq3xxsGrid[q3[2 * l]], g2 = kIq3xxsGrid[q3[2 * l + 1]];
        for (int j = 0; j < 4; ++j) {
          sumi += static_cast<int32_t>((g1 >> 8 * j) & 0xFF) * q8[j] * (signs & (1 << j) ? -1 : 1);
          sumi += static_cast<int32_t>((g2 >> 8 * j) & 0xFF) * q8[j + 4] * (signs & (1 << (j + 4)) ? -1 : 1);
        }
      }
      bsum += sumi * ls;
    }
    sum += d * static_cast<float>(bsum);
  }
  return 0.25f * sum;
}

#ifdef __wasm_simd128__
namespace {

// Group ib's 32 signed weights (magnitudes up to 62) as int8: *lo weights
// 0-15, *hi 16-31. Signs: (g ^ m) - m with m all ones where negative.
struct Iq3xxsGroups {
  using Block = block_iq3_xxs;
  static constexpr float kFactor = 0.25f;
  static constexpr int kLevelOffset = 62;  // the largest magnitude
  static const uint32_t* grid(const Block& b, int ib, int k) { return &kIq3xxsGrid[b.qs[8 * ib + k]]; }
  static const uint64_t* sign_row(const Block& b, int ib, int l) {
    return &kSignBytesBy7[(group_word(b, ib) >> 7 * l) & 127];
  }
  static void decode(const Block& b, int ib, v128_t* lo, v128_t* hi) {
    const auto g = [&](int k) { return *grid(b, ib, k); };
    const v128_t g0 = wasm_i32x4_make(g(0), g(1), g(2), g(3)), g1 = wasm_i32x4_make(g(4), g(5), g(6), g(7));
    const v128_t m0 = wasm_i64x2_make(*sign_row(b, ib, 0), *sign_row(b, ib, 1));
    const v128_t m1 = wasm_i64x2_make(*sign_row(b, ib, 2), *sign_row(b, ib, 3));
    *lo = wasm_i8x16_sub(wasm_v128_xor(g0, m0), m0);
    *hi = wasm_i8x16_sub(wasm_v128_xor(g1, m1), m1);
  }
  static int32_t scale(const Block& b, int ib) { return 2 * static_cast<int32_t>(group_word(b, ib) >> 28) + 1; }
};

}  // namespace

float vec_dot_iq3_xxs_q8_K_simd(int64_t n, const void* w, const void* a) {
  return simd::iq_groups_vec_dot<Iq3xxsGroups>(n, w, a);
}

// 1 to kMaxWideTokens tokens of int8 activations on the relaxed 8-bit dot.
void vec_dot_iq3_xxs_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                         float* out, int64_t out_stride) {
  simd::iq_groups_tokens_relaxed<Iq3xxsGroups>(n, w, a, act_stride, n_tokens, out, out_stride);
}

// One token: the 32 octets' sign bytes come from the 7-bit indices of the 8
// group words in vector lanes (iq_sign_lanes.h); the grid entries are read
// by their byte indices as before (offsets found in lanes ran 0.94x).
// The 8 groups are unrolled. Kernel bench, relaxed, 1 thread, alternating
// with the kernel before (scalar sign rows and addresses): in Chromium 1.98-2.01 -> 2.20-2.35 GB/s
// from memory, 2.40 -> 2.95 in cache; in Node 20 (V8 11.3) 2.55 -> 2.30 in
// cache. The magnitudes are the 7-bit operand and the signs go onto the
// activations; the integer sums and the float end are the reference's.
float vec_dot_iq3_xxs_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return Iq3xxsGroups::kFactor *
         simd::iq_sign_groups_dot<block_iq3_xxs, Iq3xxsGroups::kLevelOffset, 1>(
             n, w, a,
             [](const block_iq3_xxs& b, const simd::IqSignLanes* t, v128_t* signs, v128_t* ls) {
               simd::iq_word_lanes(t, wasm_v128_load(b.qs + QK_K / 4), wasm_v128_load(b.qs + QK_K / 4 + 16), signs, ls);
             },
             [](const block_iq3_xxs& b, int g) {
               const auto entry = [&](int e) { return &kIq3xxsGrid[b.qs[4 * g + e]]; };
               v128_t grid = wasm_v128_load32_zero(entry(0));
               grid = wasm_v128_load32_lane(entry(1), grid, 1);
               grid = wasm_v128_load32_lane(entry(2), grid, 2);
               return wasm_v128_load32_lane(entry(3), grid, 3);
             });
}

// Against int16 activations, 1 to 4 tokens (62 * 31 fits in int16).
void vec_dot_iq3_xxs_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                           int64_t out_stride) {
  simd::iq_groups_vec_dot_wide<Iq3xxsGroups>(n, w, a, act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
