// The relaxed kernels of the i-quants made of 8 groups of 32 signed weights
// with one scale each (iq_groups_kernel.h's Groups: IQ3_XXS, IQ3_S, IQ4_XS)
// on the relaxed 8-bit dot (wasm builds only). The prompt kernel takes up to
// kMaxWideTokens tokens of int8 Q8_K activations as they are, the weights
// decoded once per block. The weights must become the dot's 7-bit operand:
// - IQ3 (Groups::kLevelOffset > 0): the weights plus kLevelOffset (their
//   largest magnitude); the offset of every weight comes out at once as
//   kLevelOffset * (the scales times the block's sums of 16 activations).
// - IQ4_XS (kLevelOffset == 0, levels up to 127 in magnitude): their
//   magnitudes, Groups::magnitudes(block, ib, mag, neg), and each token's
//   activations take the weights' signs, (a ^ neg) - neg.
// The integer sums are the reference's, the float end is
// iq_groups_vec_dot_wide's: the same bits.
#pragma once
#ifdef __wasm_simd128__

#include <cstddef>
#include <cstdint>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm::simd {

template <typename Groups>
void iq_groups_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride, int n_tokens,
                              float* out, int64_t out_stride) {
  constexpr bool kSigned = Groups::kLevelOffset == 0;
  // int16 lanes: a dot's two products of at most 2 kLevelOffset * 127 each
  // (127 * 127 signed); a group's two dots are added in int16 where that
  // fits too.
  static_assert(4 * Groups::kLevelOffset * 127 < 32768);
  constexpr bool kGroupInInt16 = !kSigned && 8 * Groups::kLevelOffset * 127 < 32768;
  const auto* x = static_cast<const typename Groups::Block*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum[kMaxWideTokens / 4], isum[kMaxWideTokens];
  start_quads(sum, n_tokens, {isum});
  const v128_t offset = wasm_i8x16_splat(Groups::kLevelOffset);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    alignas(16) int16_t ls[QK_K / 16];  // each group's scale, once per 16 weights
    for (int ib = 0; ib < QK_K / 32; ib += 2) {
      v128_t l[4], neg[4], sc[2];  // 64 weights: 4 x 16 levels (and signs) and their groups' scales
      for (int h = 0; h < 2; ++h) {
        if constexpr (kSigned) {
          Groups::magnitudes(x[i], ib + h, &l[2 * h], &neg[2 * h]);
        } else {
          Groups::decode(x[i], ib + h, &l[2 * h], &l[2 * h + 1]);
          l[2 * h] = wasm_i8x16_add(l[2 * h], offset);
          l[2 * h + 1] = wasm_i8x16_add(l[2 * h + 1], offset);
        }
        const auto s = static_cast<int16_t>(Groups::scale(x[i], ib + h));
        ls[2 * (ib + h)] = ls[2 * (ib + h) + 1] = s;
        sc[h] = wasm_i16x8_splat(s);
      }
      const uint8_t* first = a + i * sizeof(block_q8_K) + offsetof(block_q8_K, qs) + 32 * ib;
      for_tokens(n_tokens, first, act_stride, [&](int t, const uint8_t* q8) {
        v128_t p[4];
        for (int k = 0; k < 4; ++k) {
          v128_t q = wasm_v128_load(q8 + 16 * k);
          if constexpr (kSigned) q = wasm_i8x16_sub(wasm_v128_xor(q, neg[k]), neg[k]);
          p[k] = relaxed_dot_i8x16_i7x16(q, l[k]);
        }
        v128_t s;
        if constexpr (kGroupInInt16) {
          s = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_add(p[0], p[1]), sc[0]),
                             wasm_i32x4_dot_i16x8(wasm_i16x8_add(p[2], p[3]), sc[1]));
        } else {
          s = wasm_i32x4_add(wasm_i32x4_add(wasm_i32x4_dot_i16x8(p[0], sc[0]), wasm_i32x4_dot_i16x8(p[1], sc[0])),
                             wasm_i32x4_add(wasm_i32x4_dot_i16x8(p[2], sc[1]), wasm_i32x4_dot_i16x8(p[3], sc[1])));
        }
        isum[t] = ib ? wasm_i32x4_add(isum[t], s) : s;
      });
    }
    if constexpr (!kSigned) sub_level_offsets(isum, n_tokens, ls, Groups::kLevelOffset, a, act_stride, i);
    add_block_d(sum, n_tokens, isum, fp16_to_fp32_fast(x[i].d), a, act_stride, i);
  }
  store_quads(sum, n_tokens, out, out_stride, Groups::kFactor);
}

}  // namespace wasmlm::simd
#endif
