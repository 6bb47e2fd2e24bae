// The SIMD half -> float conversion equals the scalar one for all 65536 halves
// (normals, subnormals, zeros, infinities, NaNs).
#include <gtest/gtest.h>

#include "quant/fp16.h"
#include "quant/simd128.h"

using namespace wasmlm;

TEST(SimdFp16, ConvertsEveryHalfExactly) {
  for (uint32_t h = 0; h < 65536; h += 4) {
    const v128_t in = wasm_i32x4_make(h, h + 1, h + 2, h + 3);
    uint32_t out[4];
    wasm_v128_store(out, simd::fp16x4_to_f32(in));
    for (uint32_t k = 0; k < 4; ++k) {
      const uint32_t want = fp32_to_bits(fp16_to_fp32(static_cast<uint16_t>(h + k)));
      ASSERT_EQ(out[k], want) << "half 0x" << std::hex << (h + k);
    }
  }
}

// The cheaper 8-lane conversion: exact for every finite half; inf and NaN
// halves are flagged by fp16x8_special (and only they).
TEST(SimdFp16, Converts8FiniteHalvesExactly) {
  for (uint32_t h = 0; h < 65536; h += 8) {
    uint16_t in[8];
    for (uint32_t k = 0; k < 8; ++k) in[k] = static_cast<uint16_t>(h + k);
    const v128_t v = wasm_v128_load(in);
    v128_t lo, hi;
    simd::fp16x8_to_f32_finite(v, &lo, &hi);
    uint32_t out[8];
    uint16_t special[8];
    wasm_v128_store(out, lo);
    wasm_v128_store(out + 4, hi);
    wasm_v128_store(special, simd::fp16x8_special(v));
    for (uint32_t k = 0; k < 8; ++k) {
      const bool finite = (in[k] & 0x7C00) != 0x7C00;
      ASSERT_EQ(special[k], finite ? 0 : 0xFFFF) << "half 0x" << std::hex << in[k];
      if (finite) ASSERT_EQ(out[k], fp32_to_bits(fp16_to_fp32(in[k]))) << "half 0x" << std::hex << in[k];
    }
  }
}
