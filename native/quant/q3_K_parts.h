// What the Q3_K SIMD kernels read from a block before its levels (wasm
// builds only): the 16 scales, also as int16 (lo: sub-blocks 0-7, hi: 8-15),
// and the hmask's 32 bytes; and the "- 4" of every weight, taken out at once
// as 4 * (the scales times the sub-blocks' activation sums).
#pragma once
#ifdef __wasm_simd128__

#include <wasm_simd128.h>

#include <cstdint>

#include "quant/blocks.h"
#include "quant/simd128.h"
#include "quant/token_quads.h"

namespace wasmlm::simd {

struct Q3KParts {
  alignas(16) int8_t sc[16];
  v128_t sc_lo, sc_hi, hm0, hm1;

  explicit Q3KParts(const block_q3_K& b) {
    unpack_q3_K_scales(b.scales, sc);
    const v128_t scales = wasm_v128_load(sc);
    sc_lo = wasm_i16x8_extend_low_i8x16(scales);
    sc_hi = wasm_i16x8_extend_high_i8x16(scales);
    hm0 = wasm_v128_load(b.hmask);
    hm1 = wasm_v128_load(b.hmask + 16);
  }

  // 4 * sum over the sub-blocks of scale * bsums (16 sums of 16 activations).
  int32_t offsets(const int16_t* bsums) const { return 4 * hsum_i32(scaled_bsums(sc_lo, sc_hi, bsums)); }
};

}  // namespace wasmlm::simd
#endif
