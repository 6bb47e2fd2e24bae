// Q3_K: 256 weights in 16 groups of 16; 3-bit q (2 low bits in qs, the high
// bit in hmask, set = no offset), 6-bit signed scales packed in 12 bytes.
#include <cstring>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

// The 16 scales of a block, as signed values (-32..31).
void unpack_q3_K_scales(const uint8_t packed[12], int8_t out[16]) {
  constexpr uint32_t kmask1 = 0x03030303, kmask2 = 0x0f0f0f0f;
  uint32_t aux[4];
  std::memcpy(aux, packed, 12);
  const uint32_t tmp = aux[2];
  aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
  aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
  aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
  aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
  std::memcpy(out, aux, 16);
  for (int k = 0; k < 16; ++k) out[k] = static_cast<int8_t>(out[k] - 32);
}

void dequantize_row_q3_K(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q3_K*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d_all = fp16_to_fp32(x[i].d);
    int8_t scales[16];
    unpack_q3_K_scales(x[i].scales, scales);
    const uint8_t* q = x[i].qs;
    const uint8_t* hm = x[i].hmask;
    uint8_t m = 1;
    int is = 0;
    for (int half = 0; half < QK_K; half += 128) {
      for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
        for (int k = 0; k < 2; ++k) {
          const float dl = d_all * scales[is++];
          for (int l = 16 * k; l < 16 * k + 16; ++l)
            *y++ = dl * (static_cast<int8_t>((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
        }
      }
      q += 32;
    }
  }
}

float vec_dot_q3_K_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q3_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    int8_t scales[16];
    unpack_q3_K_scales(x[i].scales, scales);
    const uint8_t* q = x[i].qs;
    const uint8_t* hm = x[i].hmask;
    const int8_t* q8 = y[i].qs;
    uint8_t m = 1;
    int isum = 0, is = 0;
    for (int half = 0; half < QK_K; half += 128, q += 32)
      for (int shift = 0; shift < 8; shift += 2, m <<= 1)
        for (int k = 0; k < 2; ++k, q8 += 16) {
          int s = 0;
          for (int l = 16 * k; l < 16 * k + 16; ++l) s += q8[l - 16 * k] * (((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
          isum += scales[is++] * s;
        }
    sum += fp16_to_fp32(x[i].d) * y[i].d * isum;
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_q3_K_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q3_K*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t m3 = wasm_i8x16_splat(3), four = wasm_i8x16_splat(4), zero = wasm_i8x16_splat(0);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    int8_t scales[16];
    unpack_q3_K_scales(x[i].scales, scales);
    const uint8_t* q = x[i].qs;
    const v128_t hm0 = wasm_v128_load(x[i].hmask), hm1 = wasm_v128_load(x[i].hmask + 16);
    const int8_t* q8 = y[i].qs;
    v128_t isum = wasm_i32x4_splat(0);
    int is = 0, bit = 0;
    for (int half = 0; half < QK_K; half += 128, q += 32) {
      const v128_t v0 = wasm_v128_load(q), v1 = wasm_v128_load(q + 16);
      for (int shift = 0; shift < 8; shift += 2, ++bit, q8 += 32, is += 2) {
        // Subtract 4 where the high bit is clear.
        const v128_t m = wasm_i8x16_splat(static_cast<int8_t>(1 << bit));
        const v128_t off0 = wasm_v128_and(wasm_i8x16_eq(wasm_v128_and(hm0, m), zero), four);
        const v128_t off1 = wasm_v128_and(wasm_i8x16_eq(wasm_v128_and(hm1, m), zero), four);
        const v128_t l0 = wasm_i8x16_sub(wasm_v128_and(wasm_u8x16_shr(v0, shift), m3), off0);
        const v128_t l1 = wasm_i8x16_sub(wasm_v128_and(wasm_u8x16_shr(v1, shift), m3), off1);
        isum = wasm_i32x4_add(isum, wasm_i32x4_mul(simd::dot_i8x16(l0, wasm_v128_load(q8)), wasm_i32x4_splat(scales[is])));
        isum = wasm_i32x4_add(isum, wasm_i32x4_mul(simd::dot_i8x16(l1, wasm_v128_load(q8 + 16)), wasm_i32x4_splat(scales[is + 1])));
      }
    }
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * simd::hsum_i32(isum);
  }
  return sum;
}
#endif

}  // namespace wasmlm
