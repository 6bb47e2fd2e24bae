// TQ2_0 x Q8_K, one token, with the relaxed 8-bit dot: each weight's stored
// t + 1 (0..2) is the 7-bit operand, so the dot of t with the activations is
// dot(t + 1, a) - sum(a), the sum from the Q8_K block's bsums. The integer
// sum and the float arithmetic are the reference's: the same bits as
// vec_dot_tq2_0_q8_K. Prompts: the same per token, each half block unpacked
// once for all tokens.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/relaxed/k16_relaxed.h"
#include "quant/token_quads.h"

namespace wasmlm {

namespace {

// A block's integer dot in 4 int32 lanes: the relaxed dots of t + 1 (acc's
// int16 lanes) less the sum of its 256 activations (from the bsums).
inline v128_t block_dot(v128_t acc, const block_q8_K& y) {
  const v128_t ones = wasm_i16x8_splat(1);
  const v128_t all = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_v128_load(y.bsums), ones),
                                    wasm_i32x4_dot_i16x8(wasm_v128_load(y.bsums + 8), ones));
  return wasm_i32x4_sub(wasm_i32x4_extadd_pairwise_i16x8(acc), all);
}

}  // namespace

float vec_dot_tq2_0_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_tq2_0*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    // int16 lanes: 16 dots of 2 products of at most 128 * 2 each stay below 2^15.
    v128_t acc = wasm_i16x8_splat(0);
    for (int half = 0; half < 2; ++half) {
      const v128_t v0 = wasm_v128_load(x[i].qs + 32 * half), v1 = wasm_v128_load(x[i].qs + 32 * half + 16);
      for (int l = 0; l < 4; ++l, q8 += 32) {
        acc = wasm_i16x8_add(acc, simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8), simd::crumbs(v0, 2 * l)));
        acc = wasm_i16x8_add(acc, simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16), simd::crumbs(v1, 2 * l)));
      }
    }
    sum += static_cast<float>(simd::hsum_i32(block_dot(acc, y[i]))) * (y[i].d * fp16_to_fp32_fast(x[i].d));
  }
  return sum;
}

// Several tokens: each half block's levels unpacked once; each token's
// block sums reduced four tokens at a time (hsum4_i32) and its float
// arithmetic done in the lanes of four tokens (token_quads.h).
void vec_dot_tq2_0_q8_K_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride,
                                       int n_tokens, float* out, int64_t out_stride) {
  const auto* x = static_cast<const block_tq2_0*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  auto row = [&](int t, int64_t i) -> const block_q8_K& { return reinterpret_cast<const block_q8_K*>(a + t * act_stride)[i]; };
  const int n_quads = (n_tokens + 3) / 4;
  v128_t sum[kMaxWideTokens / 4];
  v128_t acc[kMaxWideTokens], part[kMaxWideTokens];
  for (int q = 0; q < n_quads; ++q) sum[q] = wasm_f32x4_splat(0);
  for (int t = n_tokens; t < 4 * n_quads; ++t) part[t] = wasm_i32x4_splat(0);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    for (int half = 0; half < 2; ++half) {
      const v128_t v0 = wasm_v128_load(x[i].qs + 32 * half), v1 = wasm_v128_load(x[i].qs + 32 * half + 16);
      const v128_t l[8] = {simd::crumbs(v0, 0), simd::crumbs(v1, 0), simd::crumbs(v0, 2), simd::crumbs(v1, 2),
                           simd::crumbs(v0, 4), simd::crumbs(v1, 4), simd::crumbs(v0, 6), simd::crumbs(v1, 6)};
#pragma clang loop unroll(disable)
      for (int t = 0; t < n_tokens; ++t) {
        const block_q8_K& y = row(t, i);
        const int8_t* q8 = y.qs + 128 * half;
        v128_t s = half ? acc[t] : wasm_i16x8_splat(0);
        for (int k = 0; k < 8; ++k) s = wasm_i16x8_add(s, simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16 * k), l[k]));
        if (half)
          part[t] = block_dot(s, y);
        else
          acc[t] = s;
      }
    }
    simd::add_block_d(sum, n_tokens, part, fp16_to_fp32_fast(x[i].d), a, act_stride, i);
  }
  simd::store_quads(sum, n_tokens, out, out_stride);
}

}  // namespace wasmlm
#endif
