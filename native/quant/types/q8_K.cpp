// Q8_K: 256 int8 q with an f32 scale and per-16 sums; activations for K-quants.
#include <algorithm>
#include <cmath>
#include <cstring>
#include "quant/quant_search.h"
#include "quant/blocks.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

void dequantize_row_q8_K(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q8_K*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i, y += QK_K)
    for (int j = 0; j < QK_K; ++j) y[j] = x[i].d * x[i].qs[j];
}

void quantize_row_q8_K(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q8_K*>(dst);
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    float max = 0, amax = 0;
    for (int j = 0; j < QK_K; ++j)
      if (std::fabs(x[j]) > amax) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    if (!amax) {
      y[i].d = 0;
      std::memset(y[i].qs, 0, QK_K);
      std::memset(y[i].bsums, 0, sizeof y[i].bsums);
      continue;
    }
    const float iscale = -127.f / max;
    for (int j = 0; j < QK_K; ++j) y[i].qs[j] = static_cast<int8_t>(std::min(127, nearest_int(iscale * x[j])));
    for (int j = 0; j < QK_K / 16; ++j) {
      int sum = 0;
      for (int k = 0; k < 16; ++k) sum += y[i].qs[16 * j + k];
      y[i].bsums[j] = static_cast<int16_t>(sum);
    }
    y[i].d = 1 / iscale;
  }
}

#ifdef __wasm_simd128__
// quantize_row_q8_K in SIMD-128 with the same float operations per value
// (nearest_int's magic-number rounding works lane-wise).
void quantize_row_q8_K_simd(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q8_K*>(dst);
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    v128_t m = wasm_f32x4_splat(0);
    for (int k = 0; k < QK_K; k += 4) m = wasm_f32x4_pmax(m, wasm_f32x4_abs(wasm_v128_load(x + k)));
    const float amax = simd::hmax_f32(m);
    if (!(amax > 0)) {  // the reference keeps amax = 0 (NaNs never compare greater)
      y[i].d = 0;
      std::memset(y[i].qs, 0, QK_K);
      std::memset(y[i].bsums, 0, sizeof y[i].bsums);
      continue;
    }
    // The first value of largest magnitude, with its sign.
    float max = 0;
    for (int j = 0; j < QK_K; ++j)
      if (std::fabs(x[j]) == amax) {
        max = x[j];
        break;
      }
    const float iscale = -127.f / max;
    const v128_t is = wasm_f32x4_splat(iscale), magic = wasm_f32x4_splat(12582912.f);
    const v128_t mant = wasm_i32x4_splat(0x007fffff), off = wasm_i32x4_splat(0x00400000), top = wasm_i32x4_splat(127);
    for (int g = 0; g < QK_K / 16; ++g) {
      v128_t q[4];
      for (int k = 0; k < 4; ++k) {
        const v128_t v = wasm_f32x4_add(wasm_f32x4_mul(is, wasm_v128_load(x + 16 * g + 4 * k)), magic);
        q[k] = wasm_i32x4_min(wasm_i32x4_sub(wasm_v128_and(v, mant), off), top);
      }
      const v128_t h0 = wasm_i16x8_narrow_i32x4(q[0], q[1]), h1 = wasm_i16x8_narrow_i32x4(q[2], q[3]);
      wasm_v128_store(y[i].qs + 16 * g, wasm_i8x16_narrow_i16x8(h0, h1));
      y[i].bsums[g] = static_cast<int16_t>(simd::hsum_i32(wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_add(h0, h1))));
    }
    y[i].d = 1 / iscale;
  }
}
#endif

}  // namespace wasmlm
