// GELU as ggml's CPU backend computes it: the input rounded to F16, the
// result read from a table of F16 GELU values, x itself (0) from 10 (-10)
// on. In wasm SIMD builds gelu_mul rounds four inputs to F16 at once.
#include <array>
#include <cmath>

#include "compute/ops.h"
#include "quant/fp16.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace wasmlm {

namespace {

float gelu_tanh(float x) {
  constexpr float kA = 0.044715f, kSqrt2OverPi = 0.79788456080286535587989211986876f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + kA * x * x)));
}

// The GELU of every F16 value, rounded to F16, as a float (256 KiB, built on
// first use).
const std::array<float, 65536>& gelu_table() {
  static const std::array<float, 65536> table = [] {
    std::array<float, 65536> t{};
    for (uint32_t i = 0; i < 65536; ++i)
      t[i] = fp16_to_fp32(fp32_to_fp16(gelu_tanh(fp16_to_fp32(static_cast<uint16_t>(i)))));
    return t;
  }();
  return table;
}

float gelu_from(const std::array<float, 65536>& table, float x) {
  if (x <= -10.0f) return 0.0f;
  if (x >= 10.0f) return x;
  return table[fp32_to_fp16(x)];
}

}  // namespace

float gelu_ggml(float x) { return gelu_from(gelu_table(), x); }

void gelu_mul(float* out, const float* g, const float* u, uint64_t n) {
  const std::array<float, 65536>& table = gelu_table();
  uint64_t i = 0;
#ifdef __wasm_simd128__
  // Where all four |x| are in [2^-14, 10) (F16 normals, no clamp), the F16
  // bits are fp32_to_fp16's round to nearest even: add 0xFFF plus the lowest
  // kept bit, drop 13 bits, and rebias the exponent (127 -> 15).
  const v128_t abs_mask = wasm_i32x4_splat(0x7FFFFFFF), lo = wasm_i32x4_splat(0x38800000),
               hi = wasm_i32x4_splat(0x41200000);  // 2^-14 and 10.0
  for (; i + 4 <= n; i += 4) {
    const v128_t x = wasm_v128_load(g + i);
    const v128_t a = wasm_v128_and(x, abs_mask);
    if (!wasm_i32x4_all_true(wasm_v128_and(wasm_i32x4_ge(a, lo), wasm_i32x4_lt(a, hi)))) {
      for (uint64_t k = i; k < i + 4; ++k) out[k] = gelu_from(table, g[k]) * u[k];
      continue;
    }
    const v128_t odd = wasm_v128_and(wasm_u32x4_shr(a, 13), wasm_i32x4_splat(1));
    v128_t h = wasm_u32x4_shr(wasm_i32x4_add(wasm_i32x4_add(a, wasm_i32x4_splat(0xFFF)), odd), 13);
    h = wasm_i32x4_sub(h, wasm_i32x4_splat(112 << 10));
    h = wasm_v128_or(h, wasm_u32x4_shr(wasm_v128_andnot(x, abs_mask), 16));
    const v128_t y = wasm_f32x4_make(table[wasm_u32x4_extract_lane(h, 0)], table[wasm_u32x4_extract_lane(h, 1)],
                                     table[wasm_u32x4_extract_lane(h, 2)], table[wasm_u32x4_extract_lane(h, 3)]);
    wasm_v128_store(out + i, wasm_f32x4_mul(y, wasm_v128_load(u + i)));
  }
#endif
  for (; i < n; ++i) out[i] = gelu_from(table, g[i]) * u[i];
}

}  // namespace wasmlm
