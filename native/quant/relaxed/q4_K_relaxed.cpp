// Q4_K x Q8_K, one token, with the relaxed 8-bit dot: the nibbles (0..15)
// are the 7-bit operand, the int8 activations the other. Per 32 weights: two
// dots into int16 lanes (|sum| <= 4 * 128 * 15), then one i32x4.dot_i16x8
// with the sub-block's scale. The integer sums are the reference's, and the
// float arithmetic is too: the same bits as vec_dot_q4_K_q8_K. Several
// tokens (prompts): the same per token, each sub-block pair unpacked once.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/relaxed/k_pair_relaxed.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

// One token: the 8 sub-blocks of x against their activations q8, scaled by
// sc16, in 4 int32 lanes. A rolled loop over the 4 sub-block pairs (each
// pair's scales by a relaxed swizzle): unrolled, V8 loaded every
// activation at the top and spilled half of them.
inline v128_t q4_K_sub_dots(const block_q4_K& x, const int8_t* q8, v128_t sc16) {
  v128_t acc = wasm_i32x4_splat(0);
  const uint8_t(*lane)[16] = simd::kSplatIndices.i16;
#pragma clang loop unroll(disable)
  for (const uint8_t *q4 = x.qs, *end = x.qs + QK_K / 2; q4 != end; q4 += 32, q8 += 64, lane += 2) {
    const v128_t m4 = wasm_i8x16_splat(0x0F);
    const v128_t v0 = wasm_v128_load(q4), v1 = wasm_v128_load(q4 + 16);
    const v128_t lo = simd::relaxed_dot32(q8, wasm_v128_and(v0, m4), wasm_v128_and(v1, m4));
    const v128_t hi = simd::relaxed_dot32(q8 + 32, simd::high_nibbles(v0), simd::high_nibbles(v1));
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(lo, simd::relaxed_swizzle(sc16, wasm_v128_load(lane[0]))));
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(hi, simd::relaxed_swizzle(sc16, wasm_v128_load(lane[1]))));
  }
  return acc;
}

struct Q4_KLevels {
  template <int J>
  static simd::PairLevels pair(const block_q4_K& x) {
    const v128_t m4 = wasm_i8x16_splat(0x0F);
    const v128_t v0 = wasm_v128_load(x.qs + 16 * J), v1 = wasm_v128_load(x.qs + 16 * J + 16);
    return {wasm_v128_and(v0, m4), wasm_v128_and(v1, m4), simd::high_nibbles(v0), simd::high_nibbles(v1)};
  }
};

}  // namespace

void vec_dot_q4_K_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                      float* out, int64_t out_stride) {
  simd::k_tokens_relaxed<Q4_KLevels>(n, static_cast<const block_q4_K*>(w), a, act_stride, n_tokens, out, out_stride);
}

float vec_dot_q4_K_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return simd::k_dot_relaxed(n, static_cast<const block_q4_K*>(w), static_cast<const block_q8_K*>(a), q4_K_sub_dots);
}

}  // namespace wasmlm
#endif
