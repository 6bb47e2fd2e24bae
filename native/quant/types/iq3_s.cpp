// IQ3_S: 256 weights in 8 groups of 32, each group 8 grid entries of 4
// magnitudes (kIq3sGrid, 9-bit indices: qs plus one bit of qh), one sign bit
// per weight and a 4-bit scale s: w = d * (1 + 2s) * grid * sign.
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq_groups_kernel.h"
#include "quant/relaxed/iq_groups_relaxed.h"
#include "quant/relaxed/iq_sign_lanes.h"
#include "quant/relaxed/relaxed_kernels.h"
#include "quant/iq3_grids.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

// Grid entry k (0-7) of group ib.
inline uint32_t grid_entry(const block_iq3_s& b, int ib, int k) {
  return kIq3sGrid[b.qs[8 * ib + k] | (((b.qh[ib] >> k) & 1) << 8)];
}

inline int group_scale(const block_iq3_s& b, int ib) { return 1 + 2 * ((b.scales[ib / 2] >> 4 * (ib % 2)) & 0xF); }

}  // namespace

void dequantize_row_iq3_s(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq3_s*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const float db = d * group_scale(x[i], ib);
      const uint8_t* signs = x[i].signs + 4 * ib;
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint32_t g1 = grid_entry(x[i], ib, 2 * l), g2 = grid_entry(x[i], ib, 2 * l + 1);
        for (int j = 0; j < 4; ++j) {
          y[j] = db * static_cast<float>((g1 >> 8 * j) & 0xFF) * (signs[l] & (1 << j) ? -1.f : 1.f);
          y[j + 4] = db * static_cast<float>((g2 >> 8 * j) & 0xFF) * (signs[l] & (1 << (j + 4)) ? -1.f : 1.f);
        }
      }
    }
  }
}

// ggml's ggml_vec_dot_iq3_s_q8_K_generic.
float vec_dot_iq3_s_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq3_s*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d) * y[i].d;
    const int8_t* q8 = y[i].qs;
    int32_t bsum = 0;
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const uint8_t* signs = x[i].signs + 4 * ib;
      int32_t sumi = 0;
      for (int l = 0; l < 4; ++l, q8 += 8) {
        const uint32_t g1 = grid_entry(x[i], ib, 2 * l), g2 = grid_entry(x[i], ib, 2 * l + 1);
        for (int j = 0; j < 4; ++j) {
          sumi += static_cast<int32_t>((g1 >> 8 * j) & 0xFF) * q8[j] * (signs[l] & (1 << j) ? -1 : 1);
          sumi += static_cast<int32_t>((g2 >> 8 * j) & 0xFF) * q8[j + 4] * (signs[l] & (1 << (j + 4)) ? -1 : 1);
        }
      }
      bsum += sumi * group_scale(x[i], ib);
    }
    sum += d * static_cast<float>(bsum);
  }
  return sum;
}

#ifdef __wasm_simd128__
namespace {

// Group ib's 32 signed weights as int8: *lo weights 0-15, *hi 16-31.
struct Iq3sGroups {
  using Block = block_iq3_s;
  static constexpr float kFactor = 1.0f;
  static constexpr int kLevelOffset = 15;  // the largest magnitude
  // Entry k's 9-bit index: qs[8 ib + k] and bit k of qh[ib].
  static const uint32_t* grid(const Block& b, int ib, int k) {
    return &kIq3sGrid[b.qs[8 * ib + k] | ((b.qh[ib] << (8 - k)) & 256)];
  }
  static const uint64_t* sign_row(const Block& b, int ib, int l) { return &kSignBytes[b.signs[4 * ib + l]]; }
  static void decode(const Block& b, int ib, v128_t* lo, v128_t* hi) {
    const auto g = [&](int k) { return *grid(b, ib, k); };
    const v128_t g0 = wasm_i32x4_make(g(0), g(1), g(2), g(3)), g1 = wasm_i32x4_make(g(4), g(5), g(6), g(7));
    const v128_t m0 = wasm_i64x2_make(*sign_row(b, ib, 0), *sign_row(b, ib, 1));
    const v128_t m1 = wasm_i64x2_make(*sign_row(b, ib, 2), *sign_row(b, ib, 3));
    *lo = wasm_i8x16_sub(wasm_v128_xor(g0, m0), m0);
    *hi = wasm_i8x16_sub(wasm_v128_xor(g1, m1), m1);
  }
  static int32_t scale(const Block& b, int ib) { return group_scale(b, ib); }
};

// For the relaxed one-token kernel: qh[ib] in uint16 lane k times
// kIq3sQhMul[k] brings its bit k to bit 10 (through simd::unseen, so that
// the multiply stays one).
alignas(16) constexpr int16_t kIq3sQhMul[8] = {1024, 512, 256, 128, 64, 32, 16, 8};

}  // namespace

// With relaxed SIMD, one token: the signs are bits already, one sign byte
// per octet; the 64 grid entries' byte offsets (4 x index: qs[8 ib + k]
// times 4 with bit k of qh[ib] at bit 10) are found per block in lanes,
// leaving one scalar load per entry (iq_sign_lanes.h).
float vec_dot_iq3_s_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  const int16_t* qh_mul = simd::unseen(kIq3sQhMul);
  const simd::SplatIndices* splat = simd::unseen(&simd::kSplatIndices);
  alignas(16) uint16_t off_buffer[QK_K / 4];
  uint16_t* off = simd::unseen(off_buffer);
  return simd::iq_sign_groups_dot<block_iq3_s, Iq3sGroups::kLevelOffset, 1>(
      n, w, a,
      [&](const block_iq3_s& b, const simd::IqSignLanes*, v128_t* signs, v128_t* ls) {
        signs[0] = wasm_v128_load(b.signs);
        signs[1] = wasm_v128_load(b.signs + 16);
        simd::iq_nibble_scale_lanes(wasm_v128_load32_zero(b.scales), ls);
        const v128_t qh = wasm_v128_load64_zero(b.qh), mul = wasm_v128_load(qh_mul);
        for (int h = 0; h < 4; ++h) {
          const v128_t qs = wasm_v128_load(b.qs + 16 * h);
          for (int half = 0; half < 2; ++half) {
            const int ib = 2 * h + half;
            const v128_t lo = wasm_i16x8_shl(half ? wasm_u16x8_extend_high_u8x16(qs) : wasm_u16x8_extend_low_u8x16(qs), 2);
            const v128_t hi = wasm_v128_and(wasm_i16x8_mul(simd::splat_i8_lane(qh, ib, *splat), mul), wasm_i16x8_splat(0x400));
            wasm_v128_store(off + 8 * ib, wasm_v128_or(lo, hi));
          }
        }
      },
      [&](const block_iq3_s&, int g) { return simd::iq_grid_quad(kIq3sGrid.data(), off, g); });
}

float vec_dot_iq3_s_q8_K_simd(int64_t n, const void* w, const void* a) {
  return simd::iq_groups_vec_dot<Iq3sGroups>(n, w, a);
}

// 1 to kMaxWideTokens tokens of int8 activations on the relaxed 8-bit dot.
void vec_dot_iq3_s_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                       float* out, int64_t out_stride) {
  simd::iq_groups_tokens_relaxed<Iq3sGroups>(n, w, a, act_stride, n_tokens, out, out_stride);
}

// Against int16 activations, 1 to 4 tokens (15 * 31 fits in int16).
void vec_dot_iq3_s_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                         int64_t out_stride) {
  simd::iq_groups_vec_dot_wide<Iq3sGroups>(n, w, a, act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
