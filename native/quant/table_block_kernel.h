// The one-token kernel of the 32-weight types whose 4-bit codes index a
// 16-entry int8 table (IQ4_NL, MXFP4), against Q8_0 activations: per block,
// one swizzle per 16 codes (low nibbles: values 0-15, high: 16-31), an exact
// integer dot, then the block's scale (scale(block) * d_a) in 4 float lanes.
#pragma once
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
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
    const v128_t hi = wasm_i8x16_swizzle(levels, wasm_u8x16_shr(v, 4));
    acc = add_scaled(acc, block_dot_i8x32(lo, hi, y[i].qs), scale(x[i]) * fp16_to_fp32_fast(y[i].d));
  }
  return hsum_f32(acc);
}

}  // namespace wasmlm::simd
#endif
