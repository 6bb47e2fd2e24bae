// The kernels of the 32-weight types whose 4-bit codes index a
// 16-entry int8 table (IQ4_NL, MXFP4), against Q8_0 activations: per block,
// one swizzle per 16 codes (low nibbles: values 0-15, high: 16-31), an exact
// integer dot, then the block's scale (scale(block) * d_a) in 4 float lanes;
// several tokens (vec_dot_table_blocks_q8_0w) get the same arithmetic each.
#pragma once
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/signed_block_kernel.h"
#include "quant/simd128.h"

namespace wasmlm::simd {

template <typename Block, typename Scale>
float vec_dot_table_blocks_q8_0(const int8_t* table, int64_t n, const Block* x, const void* a, Scale&& scale) {
  const auto* y = static_cast<const block_q8_0*>(a);
  const v128_t levels = wasm_v128_load(table), m4 = wasm_i8x16_splat(0x0F);
  v128_t acc = wasm_f32x4_splat(0);
  for (int64_t i = 0; i < n / 32; ++i) {
    const v128_t v = wasm_v128_load(x[i].qs);
    const v128_t lo = wasm_i8x16_swizzle(levels, wasm_v128_and(v, m4));
    const v128_t hi = wasm_i8x16_swizzle(levels, simd::high_nibbles(v));
    acc = add_scaled(acc, block_dot_i8x32(lo, hi, y[i].qs), scale(x[i]) * fp16_to_fp32_fast(y[i].d));
  }
  return hsum_f32(acc);
}

// 2 to 4 tokens against int16 activations (wide_activations.h): each block's
// levels are looked up and widened once, then every token gets the one-token
// kernel's arithmetic (the same lanes, the same bits).
template <typename Block, typename Scale>
void vec_dot_table_blocks_q8_0w(const int8_t* table, int64_t n, const Block* x, const void* a, int64_t act_stride,
                                int n_tokens, float* out, int64_t out_stride, Scale&& scale) {
  const v128_t levels = wasm_v128_load(table), m4 = wasm_i8x16_splat(0x0F);
  vec_dot_signed_blocks_q8_0w(
      n, x, a, act_stride, n_tokens, out, out_stride,
      [&](const Block& b, v128_t(&w)[4]) {
        const v128_t v = wasm_v128_load(b.qs);
        const v128_t lo = wasm_i8x16_swizzle(levels, wasm_v128_and(v, m4));
        const v128_t hi = wasm_i8x16_swizzle(levels, simd::high_nibbles(v));
        w[0] = wasm_i16x8_extend_low_i8x16(lo);
        w[1] = wasm_i16x8_extend_high_i8x16(lo);
        w[2] = wasm_i16x8_extend_low_i8x16(hi);
        w[3] = wasm_i16x8_extend_high_i8x16(hi);
      },
      scale);
}

}  // namespace wasmlm::simd
#endif
