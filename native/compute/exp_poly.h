// e^x as Cephes' expf computes it (x = n ln2 + r, |r| <= ln2 / 2; a
// polynomial for e^r, ~1 ulp; 2^n put in the exponent bits), four values at
// a time in wasm SIMD builds and one at a time in the scalar twin, which does
// the same operations in the same order: the two give the same bits. ggml's
// own x86 and ARM kernels also take SiLU's and softmax's exponentials from a
// polynomial, not from expf.
//
// For x in [-87, 87] (callers clamp). NaN stays NaN.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace wasmlm {

namespace exp_poly {
constexpr float kLog2e = 1.44269504088896341f;
// ln2 in two parts so that n * hi is exact
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500e-4f;
constexpr float kP[5] = {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
}  // namespace exp_poly

inline float exp_poly_f32(float x) {
  using namespace exp_poly;
  if (x != x) return x;
  const float n = std::nearbyint(x * kLog2e);  // ties to even, as f32x4.nearest
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = kP0;
  for (float c : kP) p = p * r + c;
  p = ((p * r) * r + r) + 1.0f;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  return p * scale;
}

#ifdef __wasm_simd128__
inline v128_t exp_poly_f32x4(v128_t x) {
  using namespace exp_poly;
  // x log2e rounded to an integer n by adding 1.5 x 2^23 (ulp 1 there; ties
  // to even, as nearbyint), which leaves n in the low bits of t: cheaper
  // than f32x4.nearest and i32x4.trunc_sat (several instructions on x86).
  const v128_t magic = wasm_f32x4_splat(0x1.8p23f);
  const v128_t t = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(kLog2e)), magic);
  const v128_t n = wasm_f32x4_sub(t, magic);
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(kLn2Hi)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(kLn2Lo)));
  v128_t p = wasm_f32x4_splat(kP0);
  for (float c : kP) p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(c));
  p = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(p, r), r), r), wasm_f32x4_splat(1.0f));
  // t's low 9 bits are n mod 512, so (t + 127) << 23 is 2^n for |n| <= 126
  const v128_t scale = wasm_i32x4_shl(wasm_i32x4_add(t, wasm_i32x4_splat(127)), 23);
  return wasm_f32x4_mul(p, scale);
}
#endif

}  // namespace wasmlm
