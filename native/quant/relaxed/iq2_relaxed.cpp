// IQ2_XXS, IQ2_XS and IQ2_S x Q8_K, one token, with the relaxed 8-bit dot:
// the grid magnitudes (8, 25, 43) are the 7-bit operand and the signs go
// onto the activations instead ((a ^ m) - m, m = 0xFF where a weight is
// negative; |a| <= 127 keeps that exact). Per 16 weights: one dot into int16
// lanes, scaled by its ls in one i32x4.dot_i16x8. The integer sum and the
// float arithmetic are iq2_kernel.h's: the same bits as the reference.
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

// Octets l and l + 1 (16 weights) against their 16 activations at q8: the
// int16 lanes of the dot of magnitudes with signed activations.
template <typename Codec>
inline v128_t octet_pair(const Codec& c, int l, const int8_t* q8) {
  const v128_t grid = wasm_v128_load64_lane(c.grid(l + 1), wasm_v128_load64_zero(c.grid(l)), 1);
  return simd::relaxed_dot_i8x16_i7x16(simd::signed_activations(q8, c.sign_bytes(l), c.sign_bytes(l + 1)), grid);
}

template <typename Codec>
float iq2_vec_dot_relaxed(int64_t n, const void* w, const void* activations) {
  const auto* x = static_cast<const typename Codec::Block*>(w);
  const auto* y = static_cast<const block_q8_K*>(activations);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    v128_t isum = wasm_i32x4_splat(0);
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const Codec c(x[i], ib32);
      const int8_t* q8 = y[i].qs + 32 * ib32;
      // int16 lanes: two products of at most 43 * 127 each (twice that for one scale).
      const v128_t p1 = octet_pair(c, 0, q8), p2 = octet_pair(c, 2, q8 + 16);
      if (Codec::kOneScale) {
        isum = wasm_i32x4_add(isum, wasm_i32x4_dot_i16x8(wasm_i16x8_add(p1, p2), wasm_i16x8_splat(c.ls1)));
      } else {
        isum = wasm_i32x4_add(isum, wasm_i32x4_add(wasm_i32x4_dot_i16x8(p1, wasm_i16x8_splat(c.ls1)),
                                                   wasm_i32x4_dot_i16x8(p2, wasm_i16x8_splat(c.ls2))));
      }
    }
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * static_cast<float>(simd::hsum_i32(isum));
  }
  return 0.125f * sum;
}

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

// IQ2_XS, one token: a block's 32 indices are unpacked 8 at a time in vector
// lanes before its dots. The grid entries' addresses go to a buffer that the
// 64-bit lane loads read, and the sign bytes come from the 7-bit indices
// (iq_sign_lanes.h). In Chromium this ran 1.25-1.4x the codec kernel above.
float iq2_xs_vec_dot_relaxed(int64_t n, const void* w, const void* activations) {
  const auto* x = static_cast<const block_iq2_xs*>(w);
  const auto* y = static_cast<const block_q8_K*>(activations);
  const simd::IqSignLanes* t = simd::unseen(&simd::kIqSignLanes);
  const simd::SplatIndices* splat = simd::unseen(&simd::kSplatIndices);
  // Stored and loaded back (through a pointer clang cannot see into), not
  // extracted lane by lane.
  alignas(16) uint32_t addr_buffer[QK_K / 8];
  uint32_t* addr = simd::unseen(addr_buffer);
  const v128_t grid_base = wasm_i32x4_splat(static_cast<int32_t>(reinterpret_cast<uintptr_t>(kIq2xsGrid.data())));
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    // ls = 2 s + 1 of the 16 groups of 16 weights (scales[ib32] low nibble, then high), as int16 lanes.
    const v128_t sc = wasm_v128_load64_zero(x[i].scales);
    const v128_t m4 = wasm_i8x16_splat(0x0F);
    const v128_t nib = wasm_i8x16_shuffle(wasm_v128_and(sc, m4), wasm_v128_and(wasm_u16x8_shr(sc, 4), m4), 0, 16, 1, 17,
                                          2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const v128_t ls8 = wasm_v128_or(wasm_i8x16_add(nib, nib), wasm_i8x16_splat(1));
    const v128_t ls16[2] = {wasm_u16x8_extend_low_u8x16(ls8), wasm_u16x8_extend_high_u8x16(ls8)};
    v128_t signs[2];  // the sign bytes of octets 0-15 and 16-31
    for (int h = 0; h < 2; ++h) {
      v128_t sign_lanes[2];
      for (int j = 0; j < 2; ++j) {
        const v128_t q = wasm_v128_load(x[i].qs + 16 * h + 8 * j);
        const v128_t offset = wasm_i16x8_shl(wasm_v128_and(q, wasm_i16x8_splat(511)), 3);
        wasm_v128_store(addr + 16 * h + 8 * j, wasm_i32x4_add(wasm_u32x4_extend_low_u16x8(offset), grid_base));
        wasm_v128_store(addr + 16 * h + 8 * j + 4, wasm_i32x4_add(wasm_u32x4_extend_high_u16x8(offset), grid_base));
        sign_lanes[j] = simd::iq_sign_bytes(t, wasm_u16x8_shr(q, 9));  // in the low byte of each int16 lane
      }
      signs[h] = wasm_u8x16_narrow_i16x8(sign_lanes[0], sign_lanes[1]);
    }
    __asm__ volatile("" ::"r"(addr) : "memory");  // the stores above are read below
    v128_t isum = wasm_i32x4_splat(0);
    // Unrolled, every table row's offset is a constant (rolled, V8 computed them per group).
#pragma clang loop unroll(full)
    for (int g = 0; g < QK_K / 16; ++g) {
      const v128_t a = simd::iq_signed_activations(t, signs[g >> 3], g & 7, y[i].qs + 16 * g);
      const v128_t grid = wasm_v128_load64_lane(reinterpret_cast<const void*>(uintptr_t{addr[2 * g + 1]}),
                                                wasm_v128_load64_zero(reinterpret_cast<const void*>(uintptr_t{addr[2 * g]})), 1);
      const v128_t ls = simd::splat_i16_lane(ls16[g >> 3], g & 7, *splat);
      // int16 lanes: two products of at most 43 * 127 each.
      isum = wasm_i32x4_add(isum, wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(a, grid), ls));
    }
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * static_cast<float>(simd::hsum_i32(isum));
  }
  return 0.125f * sum;
}

}  // namespace

float vec_dot_iq2_xxs_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  // A group's 8 bytes: 4 grid indices, then its word (iq_sign_lanes.h).
  const auto bytes = [](const block_iq2_xxs& b) { return reinterpret_cast<const uint8_t*>(b.qs); };
  const auto words = [&](const block_iq2_xxs& b, int h) {
    return wasm_i32x4_shuffle(wasm_v128_load(bytes(b) + 32 * h), wasm_v128_load(bytes(b) + 32 * h + 16), 1, 3, 5, 7);
  };
  return 0.125f * simd::iq_sign_groups_dot<block_iq2_xxs, 43>(
                      n, w, a,
                      [&](const block_iq2_xxs& b, const simd::IqSignLanes* t, v128_t* signs, v128_t* ls16) {
                        simd::iq_word_lanes(t, words(b, 0), words(b, 1), signs, ls16);
                      },
                      [&](const block_iq2_xxs& b, int g) {
                        const uint8_t* index = bytes(b) + 8 * (g / 2) + 2 * (g % 2);
                        return wasm_v128_load64_lane(&kIq2xxsGrid[index[1]], wasm_v128_load64_zero(&kIq2xxsGrid[index[0]]), 1);
                      });
}
float vec_dot_iq2_xs_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return iq2_xs_vec_dot_relaxed(n, w, a);
}
float vec_dot_iq2_s_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return iq2_vec_dot_relaxed<Iq2sCodec>(n, w, a);
}

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
