// The 6-bit scale/min packing shared by Q4_K and Q5_K quantization.
#pragma once

#include <cstdint>
#include <cstring>
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace wasmlm {

// Q4_K/Q5_K: chooses the 8 sub-block scales and mins of one 256-value block
// for levels in [0, nmax] (ggml's weighted search, weights av_x + |x|,
// candidate scales from (rmin + 0.1 k + nmax)), packs them into `packed`,
// stores the fp16 super-scales, and returns each value's level in L.
void quantize_k_block(const float* x, int nmax, float rmin, int nstep, uint8_t packed[12], uint16_t* d,
                      uint16_t* dmin, uint8_t L[256]);

// Packs 8 scales and 8 mins (quantized with inv_scale/inv_min to 6 bits) into
// the 12-byte layout get_scale_min_k4 reads.
void pack_k_scales(const float scales[8], const float mins[8], float inv_scale, float inv_min, uint8_t out[12]);

// Recomputes the 256 levels L in [0, nmax] against the packed (rounded) scales.
void requantize_k_levels(const float* x, const uint8_t packed[12], float d, float dmin, int nmax, uint8_t* L);

// All 8 scales (out[0..7]) and mins (out[8..15]) of a Q4_K/Q5_K block at
// once, with 32-bit operations: what get_scale_min_k4 gives one at a time.
// Inline: the SIMD kernels call it once per 256 weights.
inline void unpack_k_scales(const uint8_t packed[12], uint8_t out[16]) {
  uint32_t u[4];
  std::memcpy(u, packed, 12);
  constexpr uint32_t kLow6 = 0x3f3f3f3f, kLow4 = 0x0f0f0f0f, kLow2 = 0x03030303;
  u[3] = ((u[2] >> 4) & kLow4) | (((u[1] >> 6) & kLow2) << 4);
  const uint32_t mins_lo = u[1] & kLow6;
  u[1] = (u[2] & kLow4) | (((u[0] >> 6) & kLow2) << 4);
  u[2] = mins_lo;
  u[0] &= kLow6;
  std::memcpy(out, u, 16);
}

// The inverse of unpack_k_scales: 8 scales and 8 mins (6 bits each) into
// the 12-byte layout.
void pack_k_scale_bytes(const uint8_t scales_mins[16], uint8_t packed[12]);

// Row quads of Q4_K and Q5_K (row_quads.h): the 4 rows' 12-byte scale
// fields as 48 bytes from which the row-lanes kernels take the 4 rows'
// scales and mins in a few vector operations (k_pair_relaxed.h). Byte
// 4 j + r (j = 0..7): row r's scale of sub-block j, bits 4-5 of its min in
// bits 6-7; byte 32 + 4 k + r: the low 4 bits of row r's mins of sub-blocks
// 2 k (low nibble) and 2 k + 1 (high).
void encode_k_scale_quad(const uint8_t* const* rows, uint8_t* quad);
void decode_k_scale_quad(const uint8_t* quad, uint8_t* const* rows);

#ifdef __wasm_simd128__
// unpack_k_scales in one vector: bytes 0..7 the scales, 8..15 the mins.
// Reads 16 bytes at `packed` (the 12 plus 4 of what follows in the block).
inline v128_t unpack_k_scales_simd(const uint8_t* packed) {
  const v128_t u = wasm_v128_load(packed);  // u32 lanes u0 u1 u2 (u3: not ours)
  const v128_t p = wasm_i32x4_shuffle(u, wasm_u32x4_shr(u, 4), 0, 2, 1, 6);  // u0, u2, u1, u2 >> 4
  const v128_t q = wasm_i32x4_shuffle(u, u, 0, 0, 1, 1);
  const v128_t low6 = wasm_v128_and(p, wasm_i32x4_splat(0x3f3f3f3f));
  const v128_t split = wasm_v128_or(wasm_v128_and(p, wasm_i32x4_splat(0x0f0f0f0f)),
                                    wasm_i32x4_shl(wasm_v128_and(wasm_u32x4_shr(q, 6), wasm_i32x4_splat(0x03030303)), 4));
  return wasm_v128_bitselect(split, low6, wasm_i32x4_make(0, -1, 0, -1));
}
#endif

}  // namespace wasmlm
