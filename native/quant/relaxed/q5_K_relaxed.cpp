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

// One token: the sub-block pairs' levels in order (simd::k_sub_dots). Pair
// p's fifth bits are bits 2p and 2p + 1 of qh: h0/h1 move down by 2 per pair
// (16-bit shifts: the bits that cross from the neighbour byte land in bits
// 6-7, never read).
struct Q5_KPairs {
  const uint8_t* q5;
  v128_t h0, h1;
  simd::PairLevels next() {
    const v128_t m4 = wasm_i8x16_splat(0x0F);
    const v128_t v0 = wasm_v128_load(q5), v1 = wasm_v128_load(q5 + 16);
    const simd::PairLevels l = {wasm_v128_or(wasm_v128_and(v0, m4), bit_to_16<0>(h0)),
                                wasm_v128_or(wasm_v128_and(v1, m4), bit_to_16<0>(h1)),
                                wasm_v128_or(simd::high_nibbles(v0), bit_to_16<1>(h0)),
                                wasm_v128_or(simd::high_nibbles(v1), bit_to_16<1>(h1))};
    q5 += 32;
    h0 = wasm_u16x8_shr(h0, 2);
    h1 = wasm_u16x8_shr(h1, 2);
    return l;
  }
};

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

void vec_dot_q5_K_q8_K_tile_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                                    int64_t act_stride, int n_tokens, float* out, int64_t out_stride) {
  simd::k_tile_relaxed<Q5_KLevels, block_q5_K>(n, w, row_bytes, n_rows, a, act_stride, n_tokens, out, out_stride);
}

float vec_dot_q5_K_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return simd::k_dot_relaxed(n, static_cast<const block_q5_K*>(w), static_cast<const block_q8_K*>(a),
                             [](const block_q5_K& x, const int8_t* q8, v128_t sc16) {
                               return simd::k_sub_dots(Q5_KPairs{x.qs, wasm_v128_load(x.qh), wasm_v128_load(x.qh + 16)},
                                                       q8, sc16);
                             });
}

}  // namespace wasmlm
#endif
