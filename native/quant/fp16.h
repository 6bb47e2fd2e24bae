// IEEE half and bfloat16 <-> float conversions, exact (subnormals, inf, NaN).
#pragma once

#include <cstdint>
#include <cstring>

namespace wasmlm {

inline float fp32_from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

inline uint32_t fp32_to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

inline float fp16_to_fp32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  if (exp == 0x1F) return fp32_from_bits(sign | 0x7F800000 | (mant << 13));  // inf / NaN
  if (exp == 0) {
    if (mant == 0) return fp32_from_bits(sign);
    // Subnormal: value = mant * 2^-24.
    float v = static_cast<float>(mant) * fp32_from_bits(0x33800000);  // 2^-24
    return sign ? -v : v;
  }
  return fp32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

// Round to nearest even, as the F16C instruction and numpy do.
inline uint16_t fp32_to_fp16(float f) {
  uint32_t x = fp32_to_bits(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t abs = x & 0x7FFFFFFF;
  if (abs >= 0x7F800000) return static_cast<uint16_t>(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0));
  if (abs >= 0x477FF000) return static_cast<uint16_t>(sign | 0x7C00);  // rounds to >= 65520: inf
  if (abs < 0x38800000) {  // result is subnormal or zero
    if (abs < 0x33000000) return static_cast<uint16_t>(sign);  // < 2^-25 rounds to 0
    uint32_t mant = (abs & 0x7FFFFF) | 0x800000;
    int shift = 126 - static_cast<int>(abs >> 23);  // 14..24
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));
  uint32_t rem = abs & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

// Table lookup of fp16_to_fp32 for the hot loops (256 KB, built on first use):
// cheaper than the bit manipulation on targets without a conversion instruction.
extern const float* const kFp16Table;
inline float fp16_to_fp32_fast(uint16_t h) { return kFp16Table[h]; }

inline float bf16_to_fp32(uint16_t h) { return fp32_from_bits(uint32_t(h) << 16); }

// Round to nearest even; NaN stays NaN (ggml's rule).
inline uint16_t fp32_to_bf16(float f) {
  uint32_t x = fp32_to_bits(f);
  if ((x & 0x7FFFFFFF) > 0x7F800000) return static_cast<uint16_t>((x >> 16) | 64);
  return static_cast<uint16_t>((x + (0x7FFF + ((x >> 16) & 1))) >> 16);
}

}  // namespace wasmlm
