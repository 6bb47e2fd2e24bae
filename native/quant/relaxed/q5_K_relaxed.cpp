// Q5_K x Q8_K, one token, with the relaxed 8-bit dot: the 5-bit levels
// (0..31) are the 7-bit operand, as in q4_K_relaxed.cpp with the fifth bit
// of each weight from qh. Exact integers and the reference's float
// arithmetic: the same bits as vec_dot_q5_K_q8_K. Several tokens (prompts):
// the same per token, each sub-block pair unpacked once.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/relaxed/k_pair_relaxed.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

// Bit B of every byte of h, moved to bit 4 (16-bit shifts; the mask drops
// what crosses from the neighbour byte).
template <int B>
inline v128_t bit_to_16(v128_t h) {
  const v128_t m = wasm_i8x16_splat(0x10);
  if constexpr (B < 4) return wasm_v128_and(wasm_i16x8_shl(h, 4 - B), m);
  else if constexpr (B == 4) return wasm_v128_and(h, m);
  else return wasm_v128_and(wasm_u16x8_shr(h, B - 4), m);
}

// Sub-blocks J and J + 1: 32 bytes of nibbles and their fifth bits (bits J
// and J + 1 of qh) against 64 activations.
template <int J>
inline v128_t q5_K_pair(const block_q5_K& x, const int8_t* q8, v128_t h0, v128_t h1, v128_t sc16, v128_t acc) {
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  const v128_t v0 = wasm_v128_load(x.qs + 16 * J), v1 = wasm_v128_load(x.qs + 16 * J + 16);
  return simd::scaled_pair_dot<J>(q8 + 32 * J, wasm_v128_or(wasm_v128_and(v0, m4), bit_to_16<J>(h0)),
                                  wasm_v128_or(wasm_v128_and(v1, m4), bit_to_16<J>(h1)),
                                  wasm_v128_or(simd::high_nibbles(v0), bit_to_16<J + 1>(h0)),
                                  wasm_v128_or(simd::high_nibbles(v1), bit_to_16<J + 1>(h1)), sc16, acc);
}

struct Q5_KLevels {
  template <int J>
  static simd::PairLevels pair(const block_q5_K& x) {
    const v128_t m4 = wasm_i8x16_splat(0x0F);
    const v128_t h0 = wasm_v128_load(x.qh), h1 = wasm_v128_load(x.qh + 16);
    const v128_t v0 = wasm_v128_load(x.qs + 16 * J), v1 = wasm_v128_load(x.qs + 16 * J + 16);
    return {wasm_v128_or(wasm_v128_and(v0, m4), bit_to_16<J>(h0)), wasm_v128_or(wasm_v128_and(v1, m4), bit_to_16<J>(h1)),
            wasm_v128_or(simd::high_nibbles(v0), bit_to_16<J + 1>(h0)), wasm_v128_or(simd::high_nibbles(v1), bit_to_16<J + 1>(h1))};
  }
};

}  // namespace

void vec_dot_q5_K_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                      float* out, int64_t out_stride) {
  simd::k_tokens_relaxed<Q5_KLevels>(n, static_cast<const block_q5_K*>(w), a, act_stride, n_tokens, out, out_stride);
}

float vec_dot_q5_K_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return simd::k_dot_relaxed(n, static_cast<const block_q5_K*>(w), static_cast<const block_q8_K*>(a),
                             [](const block_q5_K& x, const int8_t* q8, v128_t sc16) {
                               const v128_t h0 = wasm_v128_load(x.qh), h1 = wasm_v128_load(x.qh + 16);
                               v128_t acc = wasm_i32x4_splat(0);
                               acc = q5_K_pair<0>(x, q8, h0, h1, sc16, acc);
                               acc = q5_K_pair<2>(x, q8, h0, h1, sc16, acc);
                               acc = q5_K_pair<4>(x, q8, h0, h1, sc16, acc);
                               return q5_K_pair<6>(x, q8, h0, h1, sc16, acc);
                             });
}

}  // namespace wasmlm
#endif
