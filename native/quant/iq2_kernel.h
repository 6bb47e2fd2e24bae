// The SIMD-128 dot kernels shared by IQ2_XXS, IQ2_XS and IQ2_S (wasm builds
// only). Every 8 weights are a grid entry (8 magnitudes, 8, 25 or 43) and a
// sign pattern; each 16 weights have a scale ls (odd, 1..31). The integer
// sum over a block is sum(ls * dot(signed grid, q8)) as ggml's generic dot
// computes it, exactly; the float work is ggml's: sum += (d * d8) * isum per
// block, 0.125 * sum at the end.
//
// A type's Codec (iq2_codecs.h) gives, for sub-block ib32 (32 weights) of a block:
//   Codec::Block: the block struct;
//   Codec(const Block&, int ib32): decodes the sub-block's indices;
//   grid(l) (const uint64_t*), signs(l) (const Iq2SignRow*) for l in 0..3;
//   ls1, ls2: the scales of weights 0-15 and 16-31.
// The 8 magnitudes are zero-extended to int16 by one load8x8 and signed by a
// multiply with +-1 lanes; activations are int16 (widened on load or already).
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq2_grids.h"
#include "quant/k_tokens.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"
#include "quant/wide_activations.h"

namespace wasmlm::simd {

// The 8 signed weights of octet l as int16 lanes.
template <typename Codec>
inline v128_t iq2_octet(const Codec& c, int l) {
  return wasm_i16x8_mul(wasm_u16x8_load8x8(c.grid(l)), wasm_v128_load(c.signs(l)));
}

// One block's integer sum against one token's activations: act(k) gives
// weights 8k..8k+7's as int16 lanes. The sub-block dots are scaled in int32.
template <typename Codec, typename Act>
inline v128_t iq2_block_isum(const typename Codec::Block& x, Act act) {
  v128_t isum = wasm_i32x4_splat(0);
  for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
    const Codec c(x, ib32);
    const int k = 4 * ib32;
    const v128_t s1 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(iq2_octet(c, 0), act(k)),
                                     wasm_i32x4_dot_i16x8(iq2_octet(c, 1), act(k + 1)));
    const v128_t s2 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(iq2_octet(c, 2), act(k + 2)),
                                     wasm_i32x4_dot_i16x8(iq2_octet(c, 3), act(k + 3)));
    if (Codec::kOneScale) {
      isum = wasm_i32x4_add(isum, wasm_i32x4_mul(wasm_i32x4_add(s1, s2), wasm_i32x4_splat(c.ls1)));
    } else {
      isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s1, wasm_i32x4_splat(c.ls1)));
      isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s2, wasm_i32x4_splat(c.ls2)));
    }
  }
  return isum;
}

// One token against Q8_K (int8) activations, widened on load.
template <typename Codec>
float iq2_vec_dot(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const typename Codec::Block*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    const v128_t isum = iq2_block_isum<Codec>(x[i], [q8](int k) { return wasm_i16x8_load8x8(q8 + 8 * k); });
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * static_cast<float>(hsum_i32(isum));
  }
  return 0.125f * sum;
}

// Against int16 (block_q8_Kw) activations, 1 to kMaxWideTokens tokens. One
// token: as above. Several: per pair of sub-blocks, the 64 signed weights are
// scaled in int16 once (43 * 31 fits) and dotted with every token
// (k_tokens.h). The float arithmetic is one token's either way (the same
// bits).
template <typename Codec>
float iq2_one_token_wide(int64_t nb, const typename Codec::Block* x, const block_q8_Kw* y) {
  float sum = 0;
  for (int64_t i = 0; i < nb; ++i) {
    const int16_t* q8 = y[i].qs;
    const v128_t isum = iq2_block_isum<Codec>(x[i], [q8](int k) { return wasm_v128_load(q8 + 8 * k); });
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * static_cast<float>(hsum_i32(isum));
  }
  return 0.125f * sum;
}

template <typename Codec>
void iq2_tokens(int64_t nb, const typename Codec::Block* x, const uint8_t* a, int64_t act_stride, int n_tokens,
                float* out, int64_t out_stride) {
  v128_t sum[kMaxWideTokens / 4], isum[kMaxWideTokens];
  start_quads(sum, n_tokens, {isum});
  auto row = [&](int t) { return reinterpret_cast<const block_q8_Kw*>(a + t * act_stride); };
  for (int64_t i = 0; i < nb; ++i) {
    for (int ib32 = 0; ib32 < QK_K / 32; ib32 += 2) {
      v128_t w[8];
      for (int h = 0; h < 2; ++h) {
        const Codec c(x[i], ib32 + h);
        const v128_t l1 = wasm_i16x8_splat(static_cast<int16_t>(c.ls1));
        const v128_t l2 = Codec::kOneScale ? l1 : wasm_i16x8_splat(static_cast<int16_t>(c.ls2));
        w[4 * h] = wasm_i16x8_mul(iq2_octet(c, 0), l1);
        w[4 * h + 1] = wasm_i16x8_mul(iq2_octet(c, 1), l1);
        w[4 * h + 2] = wasm_i16x8_mul(iq2_octet(c, 2), l2);
        w[4 * h + 3] = wasm_i16x8_mul(iq2_octet(c, 3), l2);
      }
      dot64_tokens<16, 32, 48>(w, row(0)[i].qs + 32 * ib32, act_stride, n_tokens, ib32 == 0, isum);
    }
    add_block_d<block_q8_Kw>(sum, n_tokens, isum, fp16_to_fp32_fast(x[i].d), a, act_stride, i);
  }
  store_quads(sum, n_tokens, out, out_stride, 0.125f);
}

template <typename Codec>
void iq2_vec_dot_wide(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                      int64_t out_stride) {
  const auto* x = static_cast<const typename Codec::Block*>(w);
  if (n_tokens == 1)
    out[0] = iq2_one_token_wide<Codec>(n / QK_K, x, static_cast<const block_q8_Kw*>(a));
  else
    iq2_tokens<Codec>(n / QK_K, x, static_cast<const uint8_t*>(a), act_stride, n_tokens, out, out_stride);
}

}  // namespace wasmlm::simd
#endif
