// IQ2_XXS, IQ2_XS and IQ2_S x Q8_K, one token, with the relaxed 8-bit dot:
// the grid magnitudes (8, 25, 43) are the 7-bit operand and the signs go
// onto the activations instead ((a ^ m) - m, m = 0xFF where a weight is
// negative; |a| <= 127 keeps that exact). Per 16 weights: one dot into int16
// lanes, scaled by its ls in one i32x4.dot_i16x8. The integer sum and the
// float arithmetic are iq2_kernel.h's: the same bits as the reference.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq2_codecs.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

// Octets l and l + 1 (16 weights) against their 16 activations at q8: the
// int16 lanes of the dot of magnitudes with signed activations.
template <typename Codec>
inline v128_t octet_pair(const Codec& c, int l, const int8_t* q8) {
  const v128_t grid = wasm_v128_load64_lane(c.grid(l + 1), wasm_v128_load64_zero(c.grid(l)), 1);
  const v128_t m = wasm_v128_load64_lane(c.sign_bytes(l + 1), wasm_v128_load64_zero(c.sign_bytes(l)), 1);
  const v128_t a = wasm_i8x16_sub(wasm_v128_xor(wasm_v128_load(q8), m), m);
  return simd::relaxed_dot_i8x16_i7x16(a, grid);
}

template <typename Codec>
float iq2_vec_dot_relaxed(int64_t n, const void* w, const void* activations) {
  const auto* x = static_cast<const typename Codec::Block*>(w);
  const auto* y = static_cast<const block_q8_K*>(activations);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    v128_t isum = wasm_i32x4_splat(0);
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const Codec c(x[i], ib32);
      const int8_t* q8 = y[i].qs + 32 * ib32;
      // int16 lanes: two products of at most 43 * 127 each (twice that for one scale).
      const v128_t p1 = octet_pair(c, 0, q8), p2 = octet_pair(c, 2, q8 + 16);
      if (Codec::kOneScale) {
        isum = wasm_i32x4_add(isum, wasm_i32x4_dot_i16x8(wasm_i16x8_add(p1, p2), wasm_i16x8_splat(c.ls1)));
      } else {
        isum = wasm_i32x4_add(isum, wasm_i32x4_add(wasm_i32x4_dot_i16x8(p1, wasm_i16x8_splat(c.ls1)),
                                                   wasm_i32x4_dot_i16x8(p2, wasm_i16x8_splat(c.ls2))));
      }
    }
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * static_cast<float>(simd::hsum_i32(isum));
  }
  return 0.125f * sum;
}

}  // namespace

float vec_dot_iq2_xxs_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return iq2_vec_dot_relaxed<Iq2xxsCodec>(n, w, a);
}
float vec_dot_iq2_xs_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return iq2_vec_dot_relaxed<Iq2xsCodec>(n, w, a);
}
float vec_dot_iq2_s_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return iq2_vec_dot_relaxed<Iq2sCodec>(n, w, a);
}

}  // namespace wasmlm
#endif
