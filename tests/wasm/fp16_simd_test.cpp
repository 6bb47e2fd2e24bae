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
