// TQ2_0 x Q8_K, one token, with the relaxed 8-bit dot: each weight's stored
// t + 1 (0..2) is the 7-bit operand, so the dot of t with the activations is
// dot(t + 1, a) - sum(a), the sum from the Q8_K block's bsums. The integer
// sum and the float arithmetic are the reference's: the same bits as
// vec_dot_tq2_0_q8_K (and as the multi-token kernel, which prompts use).
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/relaxed/k16_relaxed.h"

namespace wasmlm {

float vec_dot_tq2_0_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_tq2_0*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    // int16 lanes: 16 dots of 2 products of at most 128 * 2 each stay below 2^15.
    v128_t acc = wasm_i16x8_splat(0);
    for (int half = 0; half < 2; ++half) {
      const v128_t v0 = wasm_v128_load(x[i].qs + 32 * half), v1 = wasm_v128_load(x[i].qs + 32 * half + 16);
      for (int l = 0; l < 4; ++l, q8 += 32) {
        acc = wasm_i16x8_add(acc, simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8), simd::crumbs(v0, 2 * l)));
        acc = wasm_i16x8_add(acc, simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16), simd::crumbs(v1, 2 * l)));
      }
    }
    const v128_t sums = wasm_i32x4_add(wasm_i32x4_extend_low_i16x8(wasm_v128_load(y[i].bsums)),
                                       wasm_i32x4_extend_high_i16x8(wasm_v128_load(y[i].bsums)));
    const v128_t all = wasm_i32x4_add(sums, wasm_i32x4_add(wasm_i32x4_extend_low_i16x8(wasm_v128_load(y[i].bsums + 8)),
                                                           wasm_i32x4_extend_high_i16x8(wasm_v128_load(y[i].bsums + 8))));
    const int32_t isum = simd::hsum_i32(wasm_i32x4_extadd_pairwise_i16x8(acc)) - simd::hsum_i32(all);
    sum += static_cast<float>(isum) * (y[i].d * fp16_to_fp32_fast(x[i].d));
  }
  return sum;
}

}  // namespace wasmlm
#endif
