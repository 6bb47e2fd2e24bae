// Q5_K x Q8_K, one token, with the relaxed 8-bit dot: the 5-bit levels
// (0..31) are the 7-bit operand, as in q4_K_relaxed.cpp with the fifth bit
// of each weight from qh. Exact integers and the reference's float
// arithmetic: the same bits as vec_dot_q5_K_q8_K. Several tokens (prompts):
// the same per token, each sub-block pair unpacked once. Rows repacked in
// quads (row_quads.h): the 4 rows in the dot-add's lanes.
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

// Rows in quads (QuantTraits::quad_layout): per super-block the 4 rows' d,
// dmin and scales, then their qh and their qs, each interleaved 4 bytes at a
// time: 16 bytes of qh hold the 4 rows' fifth bits of the same 4 weights of
// every sub-block (bit j: sub-block j), 16 of qs their nibbles of a pair.
struct block_q5_Kx4 {
  uint16_t d[4], dmin[4];
  uint8_t scales[4 * K_SCALE_SIZE];  // encode_k_scale_quad
  uint8_t qh[4 * QK_K / 8];
  uint8_t qs[4 * QK_K / 2];
};
static_assert(sizeof(block_q5_Kx4) == 4 * sizeof(block_q5_K), "a quad takes its rows' bytes");

struct Q5_KQuad : simd::KQuadScales<block_q5_Kx4> {
  static constexpr bool kActivationsByShuffle = false;  // simd::activation_group
  static constexpr int kOneTokenHighShift = 0;
  template <int H>
  v128_t one_token_level(int64_t i, int p, int g) const { return level<H>(i, p, g); }
  // Bit 2p + H of each byte of qh, as 16: by a mask where p is a variable
  // (one token's rolled loop; its shift count in a register ran at a quarter
  // of the speed), by bit_to_16's constant shifts where it is not.
  template <int H>
  v128_t level(int64_t i, int p, int g) const {
    const v128_t mask = wasm_i8x16_splat(static_cast<int8_t>(1 << (2 * p + H)));
    const v128_t h = wasm_v128_load(x[i].qh + 16 * g);
    return with_bit<H>(i, p, g, wasm_v128_and(wasm_i8x16_eq(wasm_v128_and(h, mask), mask), wasm_i8x16_splat(0x10)));
  }
  template <int P, int H>
  v128_t level_at(int64_t i, int g) const {
    return with_bit<H>(i, P, g, bit_to_16<2 * P + H>(wasm_v128_load(x[i].qh + 16 * g)));
  }
  template <int H>
  v128_t with_bit(int64_t i, int p, int g, v128_t bit) const {
    const v128_t v = wasm_v128_load(x[i].qs + 128 * p + 16 * g);
    return wasm_v128_or(H ? simd::high_nibbles(v) : wasm_v128_and(v, wasm_i8x16_splat(0x0F)), bit);
  }
};

}  // namespace

void vec_dot_q5_K_q8_K_quads_relaxed(int64_t n, const void* w, int64_t, int n_rows, const void* a, int64_t act_stride,
                                     int n_tokens, float* out, int64_t out_stride) {
  simd::k_quads_relaxed<Q5_KQuad, block_q5_Kx4>(n, w, n_rows, a, act_stride, n_tokens, out, out_stride);
}

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
