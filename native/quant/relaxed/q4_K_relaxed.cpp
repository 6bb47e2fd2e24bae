// Q4_K x Q8_K, one token, with the relaxed 8-bit dot: the nibbles (0..15)
// are the 7-bit operand, the int8 activations the other. Per 32 weights: two
// dots into int16 lanes (|sum| <= 4 * 128 * 15), then one i32x4.dot_i16x8
// with the sub-block's scale. The integer sums are the reference's, and the
// float arithmetic is too: the same bits as vec_dot_q4_K_q8_K. Several
// tokens (prompts): the same per token, each sub-block pair unpacked once.
// Rows repacked in quads (row_quads.h): the 4 rows in the dot-add's lanes.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/relaxed/k_pair_relaxed.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

// One token: the sub-block pairs' levels in order (simd::k_sub_dots).
struct Q4_KPairs {
  const uint8_t* q4;
  simd::PairLevels next() {
    const v128_t m4 = wasm_i8x16_splat(0x0F);
    const v128_t v0 = wasm_v128_load(q4), v1 = wasm_v128_load(q4 + 16);
    q4 += 32;
    return {wasm_v128_and(v0, m4), wasm_v128_and(v1, m4), simd::high_nibbles(v0), simd::high_nibbles(v1)};
  }
};

struct Q4_KLevels {
  template <int J>
  static simd::PairLevels pair(const block_q4_K& x) {
    const v128_t m4 = wasm_i8x16_splat(0x0F);
    const v128_t v0 = wasm_v128_load(x.qs + 16 * J), v1 = wasm_v128_load(x.qs + 16 * J + 16);
    return {wasm_v128_and(v0, m4), wasm_v128_and(v1, m4), simd::high_nibbles(v0), simd::high_nibbles(v1)};
  }
};

// Rows in quads (QuantTraits::quad_layout): per super-block the 4 rows' d,
// dmin and scales, then their levels interleaved 4 bytes at a time, so that
// 16 bytes hold the 4 rows' nibbles of the same 4 weights of a sub-block
// pair (low nibbles: sub-block J, high: J + 1).
struct block_q4_Kx4 {
  uint16_t d[4], dmin[4];
  uint8_t scales[4 * K_SCALE_SIZE];  // encode_k_scale_quad
  uint8_t qs[4 * QK_K / 2];
};
static_assert(sizeof(block_q4_Kx4) == 4 * sizeof(block_q4_K), "a quad takes its rows' bytes");

// kHighInPlace (where the dot-add reads its 7-bit operand as unsigned bytes
// exactly: relaxed_dot_add_unsigned): one token's high nibbles are read in
// place, 16 times their levels (a mask where there was a shift and a mask),
// and the one-token kernel shifts their sums back, exactly.
template <bool kHighInPlace>
struct Q4_KQuad : simd::KQuadScales<block_q4_Kx4> {
  static constexpr bool kActivationsByShuffle = true;  // simd::activation_group
  static constexpr int kOneTokenHighShift = kHighInPlace ? 4 : 0;
  template <int H>
  v128_t level(int64_t i, int p, int g) const {
    const v128_t v = wasm_v128_load(x[i].qs + 128 * p + 16 * g);
    return H ? simd::high_nibbles(v) : wasm_v128_and(v, wasm_i8x16_splat(0x0F));
  }
  template <int H>
  v128_t one_token_level(int64_t i, int p, int g) const {
    if constexpr (!kHighInPlace || !H) return level<H>(i, p, g);
    return wasm_v128_and(wasm_v128_load(x[i].qs + 128 * p + 16 * g), simd::loaded_splat<0xF0>());
  }
  template <int P, int H>
  v128_t level_at(int64_t i, int g) const { return level<H>(i, P, g); }
};

}  // namespace

void vec_dot_q4_K_q8_K_quads_relaxed(int64_t n, const void* w, int64_t, int n_rows, const void* a, int64_t act_stride,
                                     int n_tokens, float* out, int64_t out_stride) {
  simd::k_quads_relaxed<Q4_KQuad<false>, block_q4_Kx4>(n, w, n_rows, a, act_stride, n_tokens, out, out_stride);
}

void vec_dot_q4_K_q8_K_quads_unsigned_relaxed(int64_t n, const void* w, int64_t, int n_rows, const void* a,
                                              int64_t act_stride, int n_tokens, float* out, int64_t out_stride) {
  simd::k_quads_relaxed<Q4_KQuad<true>, block_q4_Kx4>(n, w, n_rows, a, act_stride, n_tokens, out, out_stride);
}

void vec_dot_q4_K_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                      float* out, int64_t out_stride) {
  simd::k_tokens_relaxed<Q4_KLevels>(n, static_cast<const block_q4_K*>(w), a, act_stride, n_tokens, out, out_stride);
}

void vec_dot_q4_K_q8_K_tile_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                                    int64_t act_stride, int n_tokens, float* out, int64_t out_stride) {
  simd::k_tile_relaxed<Q4_KLevels, block_q4_K>(n, w, row_bytes, n_rows, a, act_stride, n_tokens, out, out_stride);
}

float vec_dot_q4_K_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return simd::k_dot_relaxed(n, static_cast<const block_q4_K*>(w), static_cast<const block_q8_K*>(a),
                             [](const block_q4_K& x, const int8_t* q8, v128_t sc16) {
                               return simd::k_sub_dots(Q4_KPairs{x.qs}, q8, sc16);
                             });
}

}  // namespace wasmlm
#endif
