// Q3_K: 256 weights in 16 groups of 16; 3-bit q (2 low bits in qs, the high
// bit in hmask, set = no offset), 6-bit signed scales packed in 12 bytes.
#include <cstring>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/q3_K_parts.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

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
        const v128_t l0 = wasm_i8x16_sub(wasm_v128_and(wasm_u16x8_shr(v0, shift), m3), off0);
        const v128_t l1 = wasm_i8x16_sub(wasm_v128_and(wasm_u16x8_shr(v1, shift), m3), off1);
        isum = wasm_i32x4_add(isum, wasm_i32x4_mul(simd::dot_i8x16(l0, q8), wasm_i32x4_splat(scales[is])));
        isum = wasm_i32x4_add(isum, wasm_i32x4_mul(simd::dot_i8x16(l1, q8 + 16), wasm_i32x4_splat(scales[is + 1])));
      }
    }
    sum += fp16_to_fp32_fast(x[i].d) * y[i].d * simd::hsum_i32(isum);
  }
  return sum;
}

// Against int16 activations, in 16-bit lanes: each weight as q + 4h (0..7,
// h its hmask bit), the "- 4" of every weight taken out at once as
// 4 * scale * (sum of the sub-block's activations), from the bsums. One
// token: the 16 sub-block dots scaled together; several: the levels scaled
// in int16 once (7 * 32 fits) and shared.
void vec_dot_q3_K_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q3_K*>(w);
  const v128_t m3 = wasm_i16x8_splat(3), m4 = wasm_i16x8_splat(4);
  simd::dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const block_q8_Kw* y[T];
    simd::token_rows(a, act_stride, y);
    float sum[T] = {};
    for (int64_t i = 0; i < n / QK_K; ++i) {
      const simd::Q3KParts p(x[i]);
      const int8_t* sc = p.sc;
      // The hmask bytes times 4: bit b of a byte is then bit 2 after a shift by b.
      const v128_t h[4] = {wasm_i16x8_shl(wasm_u16x8_extend_low_u8x16(p.hm0), 2), wasm_i16x8_shl(wasm_u16x8_extend_high_u8x16(p.hm0), 2),
                           wasm_i16x8_shl(wasm_u16x8_extend_low_u8x16(p.hm1), 2), wasm_i16x8_shl(wasm_u16x8_extend_high_u8x16(p.hm1), 2)};
      v128_t isum[T];
      for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_splat(0);
      v128_t sub[16];  // one token: the sub-blocks' unscaled dots
      const uint8_t* q = x[i].qs;
      for (int half = 0; half < 2; ++half, q += 32) {
        const v128_t v0 = wasm_v128_load(q), v1 = wasm_v128_load(q + 16);
        const v128_t l[4] = {wasm_u16x8_extend_low_u8x16(v0), wasm_u16x8_extend_high_u8x16(v0),
                             wasm_u16x8_extend_low_u8x16(v1), wasm_u16x8_extend_high_u8x16(v1)};
        for (int s = 0; s < 4; ++s) {
          const int is = 8 * half + 2 * s, at = 128 * half + 32 * s, bit = 4 * half + s;
          v128_t wq[4];
          for (int k = 0; k < 4; ++k)
            wq[k] = wasm_v128_or(wasm_v128_and(wasm_u16x8_shr(l[k], 2 * s), m3), wasm_v128_and(wasm_u16x8_shr(h[k], bit), m4));
          if constexpr (T == 1) {
            const int16_t* q8 = y[0][i].qs + at;
            sub[is] = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wq[0], wasm_v128_load(q8)), wasm_i32x4_dot_i16x8(wq[1], wasm_v128_load(q8 + 8)));
            sub[is + 1] = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wq[2], wasm_v128_load(q8 + 16)), wasm_i32x4_dot_i16x8(wq[3], wasm_v128_load(q8 + 24)));
          } else {
            const v128_t s0 = wasm_i16x8_splat(sc[is]), s1 = wasm_i16x8_splat(sc[is + 1]);
            const v128_t a0 = wasm_i16x8_mul(wq[0], s0), a1 = wasm_i16x8_mul(wq[1], s0);
            const v128_t a2 = wasm_i16x8_mul(wq[2], s1), a3 = wasm_i16x8_mul(wq[3], s1);
            for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_add(isum[t], simd::dot_i16x32(a0, a1, a2, a3, y[t][i].qs + at));
          }
        }
      }
      if constexpr (T == 1) isum[0] = simd::scale_sub_dots16(sub, p.sc_lo, p.sc_hi);
      const float d = fp16_to_fp32_fast(x[i].d);
      for (int t = 0; t < T; ++t) sum[t] += d * y[t][i].d * (simd::hsum_i32(isum[t]) - p.offsets(y[t][i].bsums));
    }
    for (int t = 0; t < T; ++t) out[t * out_stride] = sum[t];
  });
}
#endif

}  // namespace wasmlm
