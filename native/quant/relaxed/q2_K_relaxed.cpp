// Q2_K x Q8_K, one token, with the relaxed 8-bit dot: the 2-bit levels are
// the 7-bit operand, the int8 activations the other; each 16-weight
// sub-block's dot is scaled in one i32x4.dot_i16x8. The integer sums and the
// float arithmetic are the reference's: the same bits as vec_dot_q2_K_q8_K.
// Prompts: the same per token, each half block unpacked once for all tokens.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/relaxed/k16_relaxed.h"
#include "quant/token_quads.h"

namespace wasmlm {

namespace {

// One half of a block: 32 bytes of levels for sub-blocks J..J + 7 (4 pairs).
template <int J>
inline v128_t q2_K_half(const uint8_t* q2, const int8_t* q8, v128_t sc16, v128_t acc) {
  const v128_t v0 = wasm_v128_load(q2), v1 = wasm_v128_load(q2 + 16);
  acc = simd::scaled_pair16<J>(q8, simd::crumbs(v0, 0), simd::crumbs(v1, 0), sc16, acc);
  acc = simd::scaled_pair16<J + 2>(q8 + 32, simd::crumbs(v0, 2), simd::crumbs(v1, 2), sc16, acc);
  acc = simd::scaled_pair16<J + 4>(q8 + 64, simd::crumbs(v0, 4), simd::crumbs(v1, 4), sc16, acc);
  return simd::scaled_pair16<J + 6>(q8 + 96, simd::crumbs(v0, 6), simd::crumbs(v1, 6), sc16, acc);
}

// The same half for every token (quad16_tokens).
template <int J>
inline void q2_K_half_tokens(const uint8_t* q2, v128_t sc16, const uint8_t* a, int64_t i, int64_t act_stride,
                             int n_tokens, v128_t* isum) {
  const v128_t v0 = wasm_v128_load(q2), v1 = wasm_v128_load(q2 + 16);
  const v128_t l0[4] = {simd::crumbs(v0, 0), simd::crumbs(v1, 0), simd::crumbs(v0, 2), simd::crumbs(v1, 2)};
  simd::quad16_tokens<J>(l0, sc16, a, i, act_stride, n_tokens, isum);
  const v128_t l1[4] = {simd::crumbs(v0, 4), simd::crumbs(v1, 4), simd::crumbs(v0, 6), simd::crumbs(v1, 6)};
  simd::quad16_tokens<J + 4>(l1, sc16, a, i, act_stride, n_tokens, isum);
}

}  // namespace

void vec_dot_q2_K_q8_K_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride,
                                      int n_tokens, float* out, int64_t out_stride) {
  const auto* x = static_cast<const block_q2_K*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  const v128_t m4 = wasm_i16x8_splat(0x0F);
  const v128_t zero = simd::opaque(wasm_i32x4_splat(0));  // a known zero's stores became a call to memset
  v128_t sum[kMaxWideTokens / 4], isum[kMaxWideTokens], mins[kMaxWideTokens];
  simd::start_quads(sum, n_tokens, {isum, mins});
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const v128_t sc_bytes = wasm_v128_load(x[i].scales);
    const v128_t lo = wasm_u16x8_extend_low_u8x16(sc_bytes), hi = wasm_u16x8_extend_high_u8x16(sc_bytes);
    const v128_t min_lo = wasm_u16x8_shr(lo, 4), min_hi = wasm_u16x8_shr(hi, 4);
    simd::for_tokens(n_tokens, a + i * sizeof(block_q8_K), act_stride, [&](int t, const uint8_t* row) {
      const auto& y = *reinterpret_cast<const block_q8_K*>(row);
      isum[t] = zero;
      mins[t] = wasm_i32x4_add(wasm_i32x4_dot_i16x8(min_lo, wasm_v128_load(y.bsums)),
                               wasm_i32x4_dot_i16x8(min_hi, wasm_v128_load(y.bsums + 8)));
    });
    q2_K_half_tokens<0>(x[i].qs, wasm_v128_and(lo, m4), a, i, act_stride, n_tokens, isum);
    q2_K_half_tokens<8>(x[i].qs + 32, wasm_v128_and(hi, m4), a, i, act_stride, n_tokens, isum);
    simd::add_block_dmin(sum, n_tokens, isum, mins, fp16_to_fp32_fast(x[i].d), fp16_to_fp32_fast(x[i].dmin), a,
                         act_stride, i);
  }
  simd::store_quads(sum, n_tokens, out, out_stride);
}

float vec_dot_q2_K_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q2_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t m4 = wasm_i16x8_splat(0x0F);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const v128_t sc_bytes = wasm_v128_load(x[i].scales);
    const v128_t lo = wasm_u16x8_extend_low_u8x16(sc_bytes), hi = wasm_u16x8_extend_high_u8x16(sc_bytes);
    const v128_t mins = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_shr(lo, 4), wasm_v128_load(y[i].bsums)),
                                       wasm_i32x4_dot_i16x8(wasm_u16x8_shr(hi, 4), wasm_v128_load(y[i].bsums + 8)));
    v128_t acc = q2_K_half<0>(x[i].qs, y[i].qs, wasm_v128_and(lo, m4), wasm_i32x4_splat(0));
    acc = q2_K_half<8>(x[i].qs + 32, y[i].qs + 128, wasm_v128_and(hi, m4), acc);
    sum += y[i].d * (fp16_to_fp32_fast(x[i].d) * simd::hsum_i32(acc) -
                     fp16_to_fp32_fast(x[i].dmin) * simd::hsum_i32(mins));
  }
  return sum;
}

}  // namespace wasmlm
#endif
