// The SIMD conversions between halves and floats equal the scalar ones.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "quant/fp16.h"
#include "quant/simd128.h"

using namespace wasmlm;

// Half -> float: all 65536 halves (normals, subnormals, zeros, infinities,
// NaNs).
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

// The SIMD float -> half conversion equals the scalar one: for every half,
// the floats at it, one ulp either side of it and of the midpoints to its
// neighbours (where rounding to even decides), both signs; the largest
// finite floats, infinities and NaNs; and a million random bit patterns.
TEST(SimdFp16, ConvertsFloatsToHalvesAsTheScalarRounding) {
  std::vector<uint32_t> bits;
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    const float here = fp16_to_fp32(static_cast<uint16_t>(h)), up = fp16_to_fp32(static_cast<uint16_t>(h + 1));
    const uint32_t at = fp32_to_bits(here), next = fp32_to_bits(up), mid = fp32_to_bits((here + up) / 2);
    for (uint32_t b : {at, at + 1, mid - 1, mid, mid + 1, next - 1}) bits.push_back(b);
    if (at > 0) bits.push_back(at - 1);
  }
  for (uint32_t b : {0x7F7FFFFFu, 0x7F800000u, 0x7F800001u, 0x7FC00000u, 0x7FFFFFFFu, 0x477FEFFFu, 0x477FF000u,
                     0x33000000u, 0x33000001u, 0x32FFFFFFu, 0x38800000u, 0x387FFFFFu, 1u})
    bits.push_back(b);
  std::mt19937 rng(3);
  for (int i = 0; i < 1000000; ++i) bits.push_back(static_cast<uint32_t>(rng()));
  const size_t n = bits.size();
  for (size_t i = 0; i < n; ++i) bits.push_back(bits[i] ^ 0x80000000u);
  while (bits.size() % 4) bits.push_back(0);
  for (size_t i = 0; i < bits.size(); i += 4) {
    uint32_t out[4];
    wasm_v128_store(out, simd::f32x4_to_fp16x4(wasm_v128_load(&bits[i])));
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(out[k], fp32_to_fp16(fp32_from_bits(bits[i + k]))) << "float bits 0x" << std::hex << bits[i + k];
  }
}
