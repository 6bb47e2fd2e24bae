// Q6_K x Q8_K with the relaxed 8-bit dot: the 6-bit levels (0..63) are the
// 7-bit operand. Each dot covers one 16-weight sub-block (int16 lanes, |sum|
// <= 2 * 128 * 63); one i32x4.dot_i16x8 applies its scale. The -32 offset
// comes off once per block through the activations' 16-value sums. Exact
// integers and the reference's float arithmetic: the same bits as
// vec_dot_q6_K_q8_K, for one token or for many (a prompt: each block's
// levels unpacked once for all of them).
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/relaxed/k16_relaxed.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm {

namespace {

// Scale S (0..15) of a block, in every int16 lane; sc: the 16 scales widened.
template <int S>
inline v128_t scale_splat(const v128_t (&sc)[2]) {
  constexpr int k = S % 8;
  return wasm_i16x8_shuffle(sc[S / 8], sc[S / 8], k, k, k, k, k, k, k, k);
}

// The levels of weights l..l+15 of each quarter of a 128-weight half
// (sub-blocks 8 H + L + 2 k, k = 0..3) as bytes.
template <int H, int L>
inline void q6_K_levels(const block_q6_K& x, v128_t (&q)[4]) {
  const v128_t m4 = wasm_i8x16_splat(0x0F), m30 = wasm_i8x16_splat(0x30);
  const uint8_t* ql = x.ql + 64 * H + 16 * L;
  const v128_t a0 = wasm_v128_load(ql), a1 = wasm_v128_load(ql + 32), h = wasm_v128_load(x.qh + 32 * H + 16 * L);
  // 16-bit shifts: the byte masks drop what crosses from the neighbour byte.
  q[0] = wasm_v128_or(wasm_v128_and(a0, m4), wasm_v128_and(wasm_i16x8_shl(h, 4), m30));
  q[1] = wasm_v128_or(wasm_v128_and(a1, m4), wasm_v128_and(wasm_i16x8_shl(h, 2), m30));
  q[2] = wasm_v128_or(wasm_v128_and(wasm_u16x8_shr(a0, 4), m4), wasm_v128_and(h, m30));
  q[3] = wasm_v128_or(wasm_v128_and(wasm_u16x8_shr(a1, 4), m4), wasm_v128_and(wasm_u16x8_shr(h, 2), m30));
}

// Those 64 weights against their activations.
template <int H, int L>
inline v128_t q6_K_quarters(const block_q6_K& x, const int8_t* q8, const v128_t (&sc)[2], v128_t acc) {
  v128_t q[4];
  q6_K_levels<H, L>(x, q);
  const int8_t* a = q8 + 128 * H + 16 * L;
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(a), q[0]),
                                                  scale_splat<8 * H + L>(sc)));
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(a + 32), q[1]),
                                                  scale_splat<8 * H + L + 2>(sc)));
  acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(a + 64), q[2]),
                                                  scale_splat<8 * H + L + 4>(sc)));
  return wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(a + 96), q[3]),
                                                   scale_splat<8 * H + L + 6>(sc)));
}

// Several tokens: half H of super-block i, its levels regrouped into runs
// of four consecutive sub-blocks (8 H..8 H + 3, 8 H + 4..8 H + 7), against
// every token (H = 0: the block's first sums, set rather than added).
template <int H>
inline void q6_K_half_tokens(const block_q6_K& x, v128_t sc16, const uint8_t* a, int64_t i, int64_t act_stride,
                             int n_tokens, v128_t* isum) {
  v128_t l0[4], l1[4];
  q6_K_levels<H, 0>(x, l0);
  q6_K_levels<H, 1>(x, l1);
  const v128_t first[4] = {l0[0], l1[0], l0[1], l1[1]}, second[4] = {l0[2], l1[2], l0[3], l1[3]};
  simd::quad16_tokens<8 * H, H == 0>(first, sc16, a, i, act_stride, n_tokens, isum);
  simd::quad16_tokens<8 * H + 4>(second, sc16, a, i, act_stride, n_tokens, isum);
}

// The block's signed scales, widened: sub-blocks 0-7 and 8-15.
inline void q6_K_scales(const block_q6_K& x, v128_t (&sc)[2]) {
  const v128_t s8 = wasm_v128_load(x.scales);
  sc[0] = wasm_i16x8_extend_low_i8x16(s8);
  sc[1] = wasm_i16x8_extend_high_i8x16(s8);
}

}  // namespace

void vec_dot_q6_K_q8_K_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride,
                                      int n_tokens, float* out, int64_t out_stride) {
  const auto* x = static_cast<const block_q6_K*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum[kMaxWideTokens / 4], isum[kMaxWideTokens];
  simd::start_quads(sum, n_tokens, {isum});
  for (int64_t i = 0; i < n / QK_K; ++i) {
    v128_t sc[2];
    q6_K_scales(x[i], sc);
    q6_K_half_tokens<0>(x[i], sc[0], a, i, act_stride, n_tokens, isum);
    q6_K_half_tokens<1>(x[i], sc[1], a, i, act_stride, n_tokens, isum);
    simd::sub_level_offsets(isum, n_tokens, sc[0], sc[1], 32, a, act_stride, i);
    simd::add_block_d(sum, n_tokens, isum, fp16_to_fp32_fast(x[i].d), a, act_stride, i);
  }
  simd::store_quads(sum, n_tokens, out, out_stride);
}

float vec_dot_q6_K_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q6_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    v128_t sc[2];
    q6_K_scales(x[i], sc);
    v128_t acc = wasm_i32x4_splat(0);
    acc = q6_K_quarters<0, 0>(x[i], y[i].qs, sc, acc);
    acc = q6_K_quarters<0, 1>(x[i], y[i].qs, sc, acc);
    acc = q6_K_quarters<1, 0>(x[i], y[i].qs, sc, acc);
    acc = q6_K_quarters<1, 1>(x[i], y[i].qs, sc, acc);
    // 32 x sum(scale x 16-value activation sum): the 16 scales in element order match the 16 bsums.
    const v128_t offset = wasm_i32x4_add(wasm_i32x4_dot_i16x8(sc[0], wasm_v128_load(y[i].bsums)),
                                         wasm_i32x4_dot_i16x8(sc[1], wasm_v128_load(y[i].bsums + 8)));
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * simd::hsum_i32(wasm_i32x4_sub(acc, wasm_i32x4_shl(offset, 5)));
  }
  return sum;
}

}  // namespace wasmlm
#endif
