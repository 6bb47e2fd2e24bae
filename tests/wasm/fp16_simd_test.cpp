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

// The cheaper 8-lane conversion (to the value times 2^-112, which the F16
// kernels' activations make up for): exact for every finite half.
TEST(SimdFp16, Converts8FiniteHalvesExactly) {
  for (uint32_t h = 0; h < 65536; h += 8) {
    uint16_t in[8];
    for (uint32_t k = 0; k < 8; ++k) in[k] = static_cast<uint16_t>(h + k);
    v128_t lo, hi;
    simd::fp16x8_to_f32_raw(wasm_v128_load(in), &lo, &hi);
    float out[8];
    wasm_v128_store(out, lo);
    wasm_v128_store(out + 4, hi);
    for (uint32_t k = 0; k < 8; ++k) {
      if ((in[k] & 0x7C00) == 0x7C00) continue;  // inf and NaN: the kernels redo such rows exactly
      ASSERT_EQ(fp32_to_bits(out[k] * 0x1.0p112f), fp32_to_bits(fp16_to_fp32(in[k]))) << "half 0x" << std::hex << in[k];
    }
  }
}
