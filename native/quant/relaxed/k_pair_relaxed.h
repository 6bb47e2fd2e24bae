// Pieces the relaxed Q4_K and Q5_K kernels share: both store 8 sub-blocks of
// 32 weights with 6-bit scales and mins (k_scales.h) and differ only in how
// the levels of a sub-block pair are unpacked, so the block loop is shared too.
#pragma once
#ifdef __wasm_simd128__

#include <cstddef>
#include <cstdint>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/k_scales.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm::simd {

// sum_j m_j (bsums[2j] + bsums[2j + 1]) in 4 lanes: each of the 8 mins (m16)
// applies to two 16-value sums of the activations.
inline v128_t mins_dot(v128_t m16, const int16_t* bsums) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_v128_load(bsums), wasm_i16x8_shuffle(m16, m16, 0, 0, 1, 1, 2, 2, 3, 3)),
                        wasm_i32x4_dot_i16x8(wasm_v128_load(bsums + 8), wasm_i16x8_shuffle(m16, m16, 4, 4, 5, 5, 6, 6, 7, 7)));
}

// The one-token dot of Q4_K or Q5_K weights x with Q8_K activations y:
// pairs(block, q8, sc16) returns a block's scaled sub-block dots (4 int32
// lanes); the mins and the float arithmetic are the
// reference's, so the result has its bits.
template <typename Block, typename Pairs>
inline float k_dot_relaxed(int64_t n, const Block* x, const block_q8_K* y, Pairs&& pairs) {
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const v128_t scales_mins = unpack_k_scales_simd(x[i].scales);
    const v128_t sc16 = wasm_u16x8_extend_low_u8x16(scales_mins), m16 = wasm_u16x8_extend_high_u8x16(scales_mins);
    // Both horizontal sums at once: lane 0 the scaled dots', lane 1 the mins'.
    const v128_t folded = fold_pair(pairs(x[i], y[i].qs, sc16), mins_dot(m16, y[i].bsums));
    const v128_t sums = wasm_i32x4_add(folded, wasm_i32x4_shuffle(folded, folded, 2, 3, 0, 1));
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * static_cast<float>(wasm_i32x4_extract_lane(sums, 0)) -
                     fp16_to_fp32_fast(x[i].dmin) * static_cast<float>(wasm_i32x4_extract_lane(sums, 1)));
  }
  return sum;
}

// The levels of sub-blocks J (lo0, lo1: weights 0-15, 16-31) and J + 1
// (hi0, hi1), as bytes.
struct PairLevels {
  v128_t lo0, lo1, hi0, hi1;
};

// One token: a super-block's 8 sub-blocks against their activations q8,
// scaled by sc16, in 4 int32 lanes. pairs.next() gives the levels of the
// next sub-block pair. A rolled loop (each pair's scales by a relaxed
// swizzle): unrolled, V8 loaded every activation at the top and spilled half.
template <typename Pairs>
inline v128_t k_sub_dots(Pairs pairs, const int8_t* q8, v128_t sc16) {
  v128_t acc = wasm_i32x4_splat(0);
#pragma clang loop unroll(disable)
  for (int j = 0; j < 8; j += 2, q8 += 64) {
    const PairLevels l = pairs.next();
    const v128_t lo = relaxed_dot32(q8, l.lo0, l.lo1), hi = relaxed_dot32(q8 + 32, l.hi0, l.hi1);
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(lo, splat_i16_lane(sc16, j)));
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(hi, splat_i16_lane(sc16, j + 1)));
  }
  return acc;
}

// Sub-blocks J and J + 1 of super-block i against every token's activations
// (Q8_K rows act_stride bytes apart from a): the pair is unpacked
// (Levels::pair<J>) and its scales splatted once, and each token's integer
// sum gains the pair's two sub-block dots, each (two relaxed dots summed in
// int16, |sum| <= 4 * 128 * 31) scaled by its lane of sc16 with one
// i32x4.dot_i16x8 (kFirst: is set to them).
template <int J, typename Levels, bool kFirst = false, typename Block>
inline void pair_tokens(const Block& x, int64_t i, v128_t sc16, const uint8_t* a, int64_t act_stride, int n_tokens,
                        v128_t* isum) {
  const PairLevels l = Levels::template pair<J>(x);
  const v128_t s0 = wasm_i16x8_shuffle(sc16, sc16, J, J, J, J, J, J, J, J);
  const v128_t s1 = wasm_i16x8_shuffle(sc16, sc16, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1, J + 1);
  const uint8_t* first = a + i * sizeof(block_q8_K) + offsetof(block_q8_K, qs) + 32 * J;
  for_tokens(n_tokens, first, act_stride, [&](int t, const uint8_t* row) {
    const auto* q8 = reinterpret_cast<const int8_t*>(row);
    const v128_t lo = relaxed_dot32(q8, l.lo0, l.lo1), hi = relaxed_dot32(q8 + 32, l.hi0, l.hi1);
    const v128_t pair = wasm_i32x4_add(wasm_i32x4_dot_i16x8(lo, s0), wasm_i32x4_dot_i16x8(hi, s1));
    isum[t] = kFirst ? pair : wasm_i32x4_add(isum[t], pair);
  });
}

// 1 to kMaxWideTokens tokens of Q4_K or Q5_K weights x against Q8_K
// activations as they are (WideForm::Q8_KAsIs), a row's super-blocks
// unpacked once for all of them. Every token gets k_dot_relaxed's integer
// sums and float arithmetic: the reference's bits, as one token alone.
template <typename Levels, typename Block>
inline void k_tokens_relaxed(int64_t n, const Block* x, const void* activations, int64_t act_stride, int n_tokens,
                             float* out, int64_t out_stride) {
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum[kMaxWideTokens / 4], isum[kMaxWideTokens], mins[kMaxWideTokens];
  start_quads(sum, n_tokens, {isum, mins});
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const v128_t scales_mins = unpack_k_scales_simd(x[i].scales);
    const v128_t sc16 = wasm_u16x8_extend_low_u8x16(scales_mins), m16 = wasm_u16x8_extend_high_u8x16(scales_mins);
    for_tokens(n_tokens, a + i * sizeof(block_q8_K), act_stride, [&](int t, const uint8_t* y) {
      mins[t] = mins_dot(m16, reinterpret_cast<const block_q8_K*>(y)->bsums);
    });
    pair_tokens<0, Levels, true>(x[i], i, sc16, a, act_stride, n_tokens, isum);
    pair_tokens<2, Levels>(x[i], i, sc16, a, act_stride, n_tokens, isum);
    pair_tokens<4, Levels>(x[i], i, sc16, a, act_stride, n_tokens, isum);
    pair_tokens<6, Levels>(x[i], i, sc16, a, act_stride, n_tokens, isum);
    add_block_dmin(sum, n_tokens, isum, mins, fp16_to_fp32_fast(x[i].d), fp16_to_fp32_fast(x[i].dmin), a, act_stride,
                   i);
  }
  store_quads(sum, n_tokens, out, out_stride);
}

}  // namespace wasmlm::simd
#endif
