// Block layouts of the quantized types, bit-exact as ggml-common.h defines
// them. Sizes are checked against the type registry in quant_traits.cpp.
#pragma once

#include <cstdint>

namespace wasmlm {

constexpr int QK4_0 = 32, QK4_1 = 32, QK5_0 = 32, QK5_1 = 32, QK8_0 = 32, QK8_1 = 32, QK4_NL = 32;
constexpr int QK_MXFP4 = 32;
constexpr int QK_K = 256;
constexpr int K_SCALE_SIZE = 12;

struct block_q4_0 { uint16_t d; uint8_t qs[QK4_0 / 2]; };
struct block_q4_1 { uint16_t d, m; uint8_t qs[QK4_1 / 2]; };
struct block_q5_0 { uint16_t d; uint8_t qh[4]; uint8_t qs[QK5_0 / 2]; };
struct block_q5_1 { uint16_t d, m; uint8_t qh[4]; uint8_t qs[QK5_1 / 2]; };
struct block_q8_0 { uint16_t d; int8_t qs[QK8_0]; };
struct block_q8_1 { uint16_t d, s; int8_t qs[QK8_1]; };  // s = d * sum(qs)

// static_cast<int8_t>(v) defined for every float: saturated, and 0 for NaN
// (as wasm's saturating conversion gives). A quantizer's finite values are in
// range; a non-finite weight or activation, which a hostile file can cause,
// must not be undefined behaviour.
inline int8_t to_int8_saturated(float v) {
  return v >= 127.f ? 127 : v <= -128.f ? -128 : v == v ? static_cast<int8_t>(v) : 0;
}

struct block_q2_K { uint8_t scales[QK_K / 16]; uint8_t qs[QK_K / 4]; uint16_t d, dmin; };
struct block_q3_K { uint8_t hmask[QK_K / 8]; uint8_t qs[QK_K / 4]; uint8_t scales[12]; uint16_t d; };
struct block_q4_K { uint16_t d, dmin; uint8_t scales[K_SCALE_SIZE]; uint8_t qs[QK_K / 2]; };
struct block_q5_K { uint16_t d, dmin; uint8_t scales[K_SCALE_SIZE]; uint8_t qh[QK_K / 8]; uint8_t qs[QK_K / 2]; };
struct block_q6_K { uint8_t ql[QK_K / 2]; uint8_t qh[QK_K / 4]; int8_t scales[QK_K / 16]; uint16_t d; };
struct block_q8_K { float d; int8_t qs[QK_K]; int16_t bsums[QK_K / 16]; };

struct block_iq4_nl { uint16_t d; uint8_t qs[QK4_NL / 2]; };
struct block_iq4_xs { uint16_t d; uint16_t scales_h; uint8_t scales_l[QK_K / 64]; uint8_t qs[QK_K / 2]; };
// IQ2_XXS / IQ2_XS / IQ2_S: 8 weights per grid index with signs, scales per
// 32 (XXS) or 16 weights (see types/iq2_*.cpp).
struct block_iq2_xxs { uint16_t d; uint16_t qs[QK_K / 8]; };
struct block_iq2_xs { uint16_t d; uint16_t qs[QK_K / 8]; uint8_t scales[QK_K / 32]; };
struct block_iq2_s { uint16_t d; uint8_t qs[QK_K / 4]; uint8_t qh[QK_K / 32]; uint8_t scales[QK_K / 32]; };
// IQ3_XXS: 8 grid indices per 32 weights (qs[0..63]), then per 32 weights
// a uint32 of 4 7-bit sign indices (kIqSigns) and a 4-bit scale on top.
struct block_iq3_xxs { uint16_t d; uint8_t qs[3 * QK_K / 8]; };
// IQ3_S: 9-bit grid indices (low 8 in qs, 9th in qh), sign bits, 4-bit scales.
struct block_iq3_s { uint16_t d; uint8_t qs[QK_K / 4]; uint8_t qh[QK_K / 32]; uint8_t signs[QK_K / 8]; uint8_t scales[QK_K / 64]; };
// IQ1_S: 11-bit grid indices (8 in qs, 3 in qh); qh[ib] also has the 3-bit
// scale (bits 12-14) and the delta's sign (bit 15) of 32 weights.
struct block_iq1_s { uint16_t d; uint8_t qs[QK_K / 8]; uint16_t qh[QK_K / 32]; };
// IQ1_M: 11-bit grid indices, the delta's sign per 8 weights (qh bits 3, 7),
// 3-bit scales per 16 weights; the fp16 d is the top nibbles of the four
// little-endian uint16 of scales.
struct block_iq1_m { uint8_t qs[QK_K / 8]; uint8_t qh[QK_K / 16]; uint8_t scales[QK_K / 32]; };

// Ternary weights (BitNet b1.58, TriLMs): w = d * t, t in {-1, 0, 1}.
// TQ1_0 packs 5 trits per qs byte and 4 per qh byte, base 3 (see tq1_0.cpp);
// TQ2_0 stores t + 1 in 2 bits, 4 per byte.
struct block_tq1_0 { uint8_t qs[(QK_K - 4 * QK_K / 64) / 5]; uint8_t qh[QK_K / 64]; uint16_t d; };
struct block_tq2_0 { uint8_t qs[QK_K / 4]; uint16_t d; };

// t + 1 for v = x / max|x| in [-1, 1]: round(v) with halves away from zero
// (ggml's lroundf), written out so that a NaN weight gives 0, not undefined
// behaviour.
inline int ternary_plus_one(float v) { return v >= 0.5f ? 2 : v <= -0.5f ? 0 : 1; }

// MXFP4: an E8M0 shared exponent and 32 E2M1 codes (see mxfp4.cpp).
struct block_mxfp4 { uint8_t e; uint8_t qs[QK_MXFP4 / 2]; };

// The E2M1 values of the 16 MXFP4 codes, doubled to integers (sign bit 3).
constexpr int8_t kValuesMxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// 2^(e - 128): half the E8M0 scale e, pairing with the doubled levels.
// e = 0 and 1 give the float subnormals 2^-128 and 2^-127.
inline float e8m0_to_fp32_half(uint8_t e) {
  const uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23;
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}

// e8m0_to_fp32_half by lookup (1 KB, in mxfp4.cpp), for the kernels' loops:
// cheaper than its branch and shifts, scalar or in vector lanes.
extern const float* const kE8m0HalfTable;
inline float e8m0_to_fp32_half_fast(uint8_t e) { return kE8m0HalfTable[e]; }

// The 16 non-uniform levels of IQ4_NL / IQ4_XS.
constexpr int8_t kValuesIq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// The 16 signed 6-bit scales of a Q3_K block.
void unpack_q3_K_scales(const uint8_t packed[12], int8_t out[16]);

// Unpacks the 6-bit scale and min of sub-block j from Q4_K/Q5_K's 12 bytes.
inline void get_scale_min_k4(int j, const uint8_t* q, uint8_t* d, uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4);
  }
}

}  // namespace wasmlm
