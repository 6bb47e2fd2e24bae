// IQ2_XXS, IQ2_XS and IQ2_S x Q8_K, one token, with the relaxed 8-bit dot:
// the grid magnitudes (8, 25, 43) are the 7-bit operand and the signs go
// onto the activations instead ((a ^ m) - m, m = 0xFF where a weight is
// negative; |a| <= 127 keeps that exact); and their prompt kernels. The
// integer sums and the float arithmetic are iq2_kernel.h's: the same bits as
// the reference.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include <cstddef>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq2_codecs.h"
#include "quant/quant_types.h"
#include "quant/relaxed/iq_sign_lanes.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm {

namespace {

// Several tokens: the signed grid values plus 43 (0..86) are the 7-bit
// operand, unpacked once per block for every token; the 43 of every weight
// comes out at once as 43 * (the scales times the Q8_K block's sums of 16).
// The integer sums equal the one-token kernel's, the float end is the same.
template <typename Codec>
void iq2_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride, int n_tokens,
                        float* out, int64_t out_stride) {
  const auto* x = static_cast<const typename Codec::Block*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum[kMaxWideTokens / 4], isum[kMaxWideTokens];
  simd::start_quads(sum, n_tokens, {isum});
  const v128_t offset = wasm_i8x16_splat(43);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    alignas(16) int16_t ls[QK_K / 16];  // the scale of each 16 weights
    for (int ib32 = 0; ib32 < QK_K / 32; ib32 += 2) {
      v128_t l[4], sc[4];  // 64 weights: 4 x 16 levels and their scales
      for (int h = 0; h < 2; ++h) {
        const Codec c(x[i], ib32 + h);
        for (int k = 0; k < 2; ++k) {
          const v128_t grid = wasm_v128_load64_lane(c.grid(2 * k + 1), wasm_v128_load64_zero(c.grid(2 * k)), 1);
          const v128_t m = wasm_v128_load64_lane(c.sign_bytes(2 * k + 1), wasm_v128_load64_zero(c.sign_bytes(2 * k)), 1);
          l[2 * h + k] = wasm_i8x16_add(wasm_i8x16_sub(wasm_v128_xor(grid, m), m), offset);
          const int16_t s = static_cast<int16_t>(k ? c.ls2 : c.ls1);
          ls[2 * (ib32 + h) + k] = s;
          sc[2 * h + k] = wasm_i16x8_splat(s);
        }
      }
      const uint8_t* first = a + i * sizeof(block_q8_K) + offsetof(block_q8_K, qs) + 32 * ib32;
      simd::for_tokens(n_tokens, first, act_stride, [&](int t, const uint8_t* q8) {
        v128_t p[4];
        for (int k = 0; k < 4; ++k)
          p[k] = wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16 * k), l[k]), sc[k]);
        const v128_t s = wasm_i32x4_add(wasm_i32x4_add(p[0], p[1]), wasm_i32x4_add(p[2], p[3]));
        isum[t] = ib32 ? wasm_i32x4_add(isum[t], s) : s;
      });
    }
    simd::sub_level_offsets(isum, n_tokens, ls, 43, a, act_stride, i);
    simd::add_block_d(sum, n_tokens, isum, fp16_to_fp32_fast(x[i].d), a, act_stride, i);
  }
  simd::store_quads(sum, n_tokens, out, out_stride, 0.125f);
}

// The one-token kernels of IQ2_XS and IQ2_S (and IQ2_XXS below) run on sign
// lanes (iq_sign_lanes.h): a block's 32 grid entries' byte offsets (8 x
// index) are found 8 at a time in vector lanes and stored, leaving one
// scalar load per entry; the sign bytes too are found or loaded per block.
// In Chromium, 1 thread, this ran 1.25-1.4x the codec kernel before it
// (IQ2_XS), 1.4-1.45x (IQ2_S: 1.59-1.63 -> 2.31-2.33 GB/s).

// IQ2_XS: each uint16 of qs is a 9-bit index and a 7-bit sign index.
float iq2_xs_vec_dot_relaxed(int64_t n, const void* w, const void* activations) {
  alignas(16) uint16_t off_buffer[QK_K / 8];
  uint16_t* off = simd::unseen(off_buffer);  // stored and loaded back, not extracted lane by lane
  return 0.125f * simd::iq_sign_groups_dot<block_iq2_xs, 43, 2>(
      n, w, activations,
      [&](const block_iq2_xs& b, const simd::IqSignLanes* t, v128_t* signs, v128_t* ls) {
        simd::iq_nibble_scale_lanes(wasm_v128_load64_zero(b.scales), ls);
        for (int h = 0; h < 2; ++h) {
          v128_t sign_lanes[2];
          for (int j = 0; j < 2; ++j) {
            const v128_t q = wasm_v128_load(b.qs + 16 * h + 8 * j);
            wasm_v128_store(off + 16 * h + 8 * j, wasm_i16x8_shl(wasm_v128_and(q, wasm_i16x8_splat(511)), 3));
            sign_lanes[j] = simd::iq_sign_bytes(t, wasm_u16x8_shr(q, 9));  // in the low byte of each int16 lane
          }
          signs[h] = wasm_u8x16_narrow_i16x8(sign_lanes[0], sign_lanes[1]);
        }
      },
      [&](const block_iq2_xs&, int g) { return simd::iq_grid_pair(kIq2xsGrid.data(), off, g); });
}

// IQ2_S: qs[0..31] the low 8 bits of the 10-bit indices, qs[32..63] the sign
// bytes as they are, qh[ib32] the indices' high 2 bits (bits 2l, 2l + 1:
// entry l). Entry k's qh byte, in both bytes of uint16 lane k % 8, times
// kIq2sQhMul[k % 8] brings its 2 bits to bits 11-12 of the offset (through
// simd::unseen, so that the multiply stays one).
alignas(16) constexpr int16_t kIq2sQhMul[8] = {2048, 512, 128, 32, 2048, 512, 128, 32};

float iq2_s_vec_dot_relaxed(int64_t n, const void* w, const void* activations) {
  alignas(16) uint16_t off_buffer[QK_K / 8];
  uint16_t* off = simd::unseen(off_buffer);
  const int16_t* qh_mul = simd::unseen(kIq2sQhMul);
  return 0.125f * simd::iq_sign_groups_dot<block_iq2_s, 43, 2>(
      n, w, activations,
      [&](const block_iq2_s& b, const simd::IqSignLanes* t, v128_t* signs, v128_t* ls) {
        simd::iq_nibble_scale_lanes(wasm_v128_load64_zero(b.scales), ls);
        signs[0] = wasm_v128_load(b.qs + QK_K / 8);
        signs[1] = wasm_v128_load(b.qs + QK_K / 8 + 16);
        const v128_t qh = wasm_v128_load64_zero(b.qh), mul = wasm_v128_load(qh_mul);
        for (int h = 0; h < 2; ++h) {
          const v128_t qs = wasm_v128_load(b.qs + 16 * h);
          for (int j = 0; j < 2; ++j) {
            const int e = 2 * h + j;  // entries 8e..8e+7: qh bytes 2e (lanes 0-3), 2e + 1 (4-7)
            const v128_t lo = wasm_i16x8_shl(j ? wasm_u16x8_extend_high_u8x16(qs) : wasm_u16x8_extend_low_u8x16(qs), 3);
            const v128_t bytes = simd::relaxed_swizzle(qh, wasm_v128_load(t->spread[e]));
            const v128_t hi = wasm_v128_and(wasm_i16x8_mul(bytes, mul), wasm_i16x8_splat(0x1800));
            wasm_v128_store(off + 8 * e, wasm_v128_or(lo, hi));
          }
        }
      },
      [&](const block_iq2_s&, int g) { return simd::iq_grid_pair(kIq2sGrid.data(), off, g); });
}

}  // namespace

float vec_dot_iq2_xxs_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  // A group's 8 bytes: 4 grid indices, then its word (iq_sign_lanes.h). The
  // entries are read by their byte indices (offsets found in lanes ran 0.97x).
  const auto bytes = [](const block_iq2_xxs& b) { return reinterpret_cast<const uint8_t*>(b.qs); };
  const auto words = [&](const block_iq2_xxs& b, int h) {
    return wasm_i32x4_shuffle(wasm_v128_load(bytes(b) + 32 * h), wasm_v128_load(bytes(b) + 32 * h + 16), 1, 3, 5, 7);
  };
  return 0.125f * simd::iq_sign_groups_dot<block_iq2_xxs, 43, 1>(
                      n, w, a,
                      [&](const block_iq2_xxs& b, const simd::IqSignLanes* t, v128_t* signs, v128_t* ls) {
                        simd::iq_word_lanes(t, words(b, 0), words(b, 1), signs, ls);
                      },
                      [&](const block_iq2_xxs& b, int g) {
                        const uint8_t* index = bytes(b) + 8 * (g / 2) + 2 * (g % 2);
                        return wasm_v128_load64_lane(&kIq2xxsGrid[index[1]], wasm_v128_load64_zero(&kIq2xxsGrid[index[0]]), 1);
                      });
}
float vec_dot_iq2_xs_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return iq2_xs_vec_dot_relaxed(n, w, a);
}
float vec_dot_iq2_s_q8_K_relaxed(int64_t n, const void* w, const void* a) { return iq2_s_vec_dot_relaxed(n, w, a); }

void vec_dot_iq2_xxs_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                         float* out, int64_t out_stride) {
  iq2_tokens_relaxed<Iq2xxsCodec>(n, w, a, act_stride, n_tokens, out, out_stride);
}
void vec_dot_iq2_xs_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                        float* out, int64_t out_stride) {
  iq2_tokens_relaxed<Iq2xsCodec>(n, w, a, act_stride, n_tokens, out, out_stride);
}
void vec_dot_iq2_s_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                       float* out, int64_t out_stride) {
  iq2_tokens_relaxed<Iq2sCodec>(n, w, a, act_stride, n_tokens, out, out_stride);
}

}  // namespace wasmlm
#endif
