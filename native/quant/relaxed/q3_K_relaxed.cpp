// Q3_K x Q8_K, one token, with the relaxed 8-bit dot. Each weight is taken
// as q + 4h (0..7, h its hmask bit: the 7-bit operand) and the "- 4" of every
// weight out at once, as 4 * scale * (the sub-block's activation sum, from
// the bsums); each 16-weight sub-block's dot is scaled in one
// i32x4.dot_i16x8. The integer sum and the float arithmetic are the
// reference's: the same bits as vec_dot_q3_K_q8_K. Prompts: the same per
// token, each half block unpacked once for all tokens.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/q3_K_parts.h"
#include "quant/quant_types.h"
#include "quant/relaxed/k16_relaxed.h"

namespace wasmlm {

namespace {

// The hmask bit B of each byte of h, as 4 (bit B moved to bit 2 by a 16-bit
// shift; bit 2 of each byte then comes from its own byte).
template <int B>
inline v128_t high4(v128_t h) {
  const v128_t moved = B >= 2 ? wasm_u16x8_shr(h, B - 2) : wasm_i16x8_shl(h, 2 - B);
  return wasm_v128_and(moved, wasm_i8x16_splat(4));
}

// One half of a block (H = 0, 1): sub-blocks 8H..8H + 7 (4 pairs).
template <int H>
inline v128_t q3_K_half(const uint8_t* q, v128_t hm0, v128_t hm1, const int8_t* q8, v128_t sc16, v128_t acc) {
  const v128_t v0 = wasm_v128_load(q), v1 = wasm_v128_load(q + 16);
  const auto level = [](v128_t v, int shift, v128_t high) { return wasm_v128_or(simd::crumbs(v, shift), high); };
  acc = simd::scaled_pair16<8 * H>(q8, level(v0, 0, high4<4 * H>(hm0)), level(v1, 0, high4<4 * H>(hm1)), sc16, acc);
  acc = simd::scaled_pair16<8 * H + 2>(q8 + 32, level(v0, 2, high4<4 * H + 1>(hm0)), level(v1, 2, high4<4 * H + 1>(hm1)),
                                       sc16, acc);
  acc = simd::scaled_pair16<8 * H + 4>(q8 + 64, level(v0, 4, high4<4 * H + 2>(hm0)), level(v1, 4, high4<4 * H + 2>(hm1)),
                                       sc16, acc);
  return simd::scaled_pair16<8 * H + 6>(q8 + 96, level(v0, 6, high4<4 * H + 3>(hm0)),
                                        level(v1, 6, high4<4 * H + 3>(hm1)), sc16, acc);
}

// The same half for every token (quad16_tokens).
template <int H>
inline void q3_K_half_tokens(const uint8_t* q, v128_t hm0, v128_t hm1, v128_t sc16, const uint8_t* a, int64_t i,
                             int64_t act_stride, int n_tokens, v128_t* isum) {
  const v128_t v0 = wasm_v128_load(q), v1 = wasm_v128_load(q + 16);
  const auto level = [](v128_t v, int shift, v128_t high) { return wasm_v128_or(simd::crumbs(v, shift), high); };
  const v128_t l0[4] = {level(v0, 0, high4<4 * H>(hm0)), level(v1, 0, high4<4 * H>(hm1)),
                        level(v0, 2, high4<4 * H + 1>(hm0)), level(v1, 2, high4<4 * H + 1>(hm1))};
  simd::quad16_tokens<8 * H>(l0, sc16, a, i, act_stride, n_tokens, isum);
  const v128_t l1[4] = {level(v0, 4, high4<4 * H + 2>(hm0)), level(v1, 4, high4<4 * H + 2>(hm1)),
                        level(v0, 6, high4<4 * H + 3>(hm0)), level(v1, 6, high4<4 * H + 3>(hm1))};
  simd::quad16_tokens<8 * H + 4>(l1, sc16, a, i, act_stride, n_tokens, isum);
}

}  // namespace

void vec_dot_q3_K_q8_K_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride,
                                      int n_tokens, float* out, int64_t out_stride) {
  const auto* x = static_cast<const block_q3_K*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  float sum[kMaxWideTokens];
  v128_t isum[kMaxWideTokens];
  simd::zero_fill(sum, n_tokens);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const simd::Q3KParts p(x[i]);
    simd::zero_fill(isum, n_tokens);
    q3_K_half_tokens<0>(x[i].qs, p.hm0, p.hm1, p.sc_lo, a, i, act_stride, n_tokens, isum);
    q3_K_half_tokens<1>(x[i].qs + 32, p.hm0, p.hm1, p.sc_hi, a, i, act_stride, n_tokens, isum);
    const float d = fp16_to_fp32_fast(x[i].d);
    simd::for_tokens(n_tokens, a + i * sizeof(block_q8_K), act_stride, [&](int t, const uint8_t* row) {
      const auto& y = *reinterpret_cast<const block_q8_K*>(row);
      sum[t] += d * y.d * (simd::hsum_i32(isum[t]) - p.offsets(y.bsums));
    });
  }
  for (int t = 0; t < n_tokens; ++t) out[t * out_stride] = sum[t];
}

float vec_dot_q3_K_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q3_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const simd::Q3KParts p(x[i]);
    v128_t acc = q3_K_half<0>(x[i].qs, p.hm0, p.hm1, y[i].qs, p.sc_lo, wasm_i32x4_splat(0));
    acc = q3_K_half<1>(x[i].qs + 32, p.hm0, p.hm1, y[i].qs + 128, p.sc_hi, acc);
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * (simd::hsum_i32(acc) - p.offsets(y[i].bsums));
  }
  return sum;
}

}  // namespace wasmlm
#endif
