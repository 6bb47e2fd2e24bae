// TQ2_0: 256 ternary weights t in {-1, 0, 1} at 2.0625 bits each; w = d * t.
// Each byte holds t + 1 of 4 weights in 2-bit fields: in each 32-byte half,
// bits 2l..2l+1 of byte m are weight 32l + m of that half's 128.
#include <cmath>

#include "quant/blocks.h"
#include "quant/decoded_block_kernel.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

void dequantize_row_tq2_0(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_tq2_0*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    for (int half = 0; half < QK_K / 4; half += 32)
      for (int l = 0; l < 4; ++l)
        for (int m = 0; m < 32; ++m) *y++ = static_cast<float>(((x[i].qs[half + m] >> 2 * l) & 3) - 1) * d;
  }
}

// ggml's quantize_row_tq2_0_ref: d = max |x|, t = round(x / d) (halves away
// from zero), t + 1 stored in the layout dequantize_row_tq2_0 reads.
void quantize_row_tq2_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_tq2_0*>(dst);
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    float amax = 0;
    for (int j = 0; j < QK_K; ++j) amax = std::fmax(amax, std::fabs(x[j]));
    const float id = amax != 0 ? 1.0f / amax : 0.0f;
    y[i].d = fp32_to_fp16(amax);
    for (int half = 0; half < 2; ++half)
      for (int m = 0; m < 32; ++m) {
        uint8_t q = 0;
        for (int l = 0; l < 4; ++l) {
          const int t = ternary_plus_one(x[128 * half + 32 * l + m] * id);
          q |= static_cast<uint8_t>((t & 3) << 2 * l);
        }
        y[i].qs[32 * half + m] = q;
      }
  }
}

float vec_dot_tq2_0_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_tq2_0*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    int isum = 0;
    for (int half = 0; half < QK_K / 4; half += 32)
      for (int l = 0; l < 4; ++l, q8 += 32)
        for (int m = 0; m < 32; ++m) isum += q8[m] * (((x[i].qs[half + m] >> 2 * l) & 3) - 1);
    sum += static_cast<float>(isum) * (y[i].d * fp16_to_fp32(x[i].d));
  }
  return sum;
}

#ifdef __wasm_simd128__
float vec_dot_tq2_0_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_tq2_0*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t m3 = wasm_i8x16_splat(3), one = wasm_i8x16_splat(1);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    v128_t isum = wasm_i32x4_splat(0);
    for (int half = 0; half < QK_K / 4; half += 32) {
      const v128_t v0 = wasm_v128_load(x[i].qs + half), v1 = wasm_v128_load(x[i].qs + half + 16);
      for (int l = 0; l < 4; ++l, q8 += 32) {
        const v128_t t0 = wasm_i8x16_sub(wasm_v128_and(wasm_u16x8_shr(v0, 2 * l), m3), one);
        const v128_t t1 = wasm_i8x16_sub(wasm_v128_and(wasm_u16x8_shr(v1, 2 * l), m3), one);
        isum = wasm_i32x4_add(isum, simd::block_dot_i8x32(t0, t1, q8));
      }
    }
    sum += static_cast<float>(simd::hsum_i32(isum)) * (y[i].d * fp16_to_fp32_fast(x[i].d));
  }
  return sum;
}

void vec_dot_tq2_0_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                         int64_t out_stride) {
  const v128_t m3 = wasm_i8x16_splat(3), one = wasm_i8x16_splat(1);
  simd::vec_dot_decoded_blocks_q8_Kw(
      n, static_cast<const block_tq2_0*>(w), a, act_stride, n_tokens, out, out_stride,
      [&](const block_tq2_0& b, int16_t(&q)[QK_K]) {
        for (int half = 0; half < 2; ++half) {
          const v128_t v0 = wasm_v128_load(b.qs + 32 * half), v1 = wasm_v128_load(b.qs + 32 * half + 16);
          for (int l = 0; l < 4; ++l) {
            int16_t* dst = q + 128 * half + 32 * l;
            const v128_t t0 = wasm_i8x16_sub(wasm_v128_and(wasm_u16x8_shr(v0, 2 * l), m3), one);
            const v128_t t1 = wasm_i8x16_sub(wasm_v128_and(wasm_u16x8_shr(v1, 2 * l), m3), one);
            wasm_v128_store(dst, wasm_i16x8_extend_low_i8x16(t0));
            wasm_v128_store(dst + 8, wasm_i16x8_extend_high_i8x16(t0));
            wasm_v128_store(dst + 16, wasm_i16x8_extend_low_i8x16(t1));
            wasm_v128_store(dst + 24, wasm_i16x8_extend_high_i8x16(t1));
          }
        }
      },
      [](const block_tq2_0& b) { return fp16_to_fp32_fast(b.d); });
}
#endif

}  // namespace wasmlm
