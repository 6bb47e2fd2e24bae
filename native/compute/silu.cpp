// SiLU-gated products of a feed-forward layer: out = g / (1 + e^-g) * u.
// In wasm SIMD builds e^x is computed four values at a time, as Cephes' expf
// does it (x = n ln2 + r, |r| <= ln2 / 2; a degree-7 polynomial for e^r,
// ~1 ulp; 2^n put in the exponent bits); ggml's own x86 and ARM kernels also
// take SiLU's exponential from a polynomial, not from expf.
#include <cmath>

#include "compute/ops.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace wasmlm {

#ifdef __wasm_simd128__
namespace {

// e^x lane by lane for x in [-87, 87] (callers clamp; NaN stays NaN).
v128_t exp_f32x4(v128_t x) {
  const v128_t n = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)));
  // r = x - n ln2, ln2 in two parts so that n * hi is exact
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t p = wasm_f32x4_splat(1.9875691500e-4f);
  for (float c : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(c));
  p = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(p, r), r), r), wasm_f32x4_splat(1.0f));
  const v128_t scale = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
  return wasm_f32x4_mul(p, scale);
}

}  // namespace
#endif

void silu_mul(float* out, const float* g, const float* u, uint64_t n) {
  uint64_t i = 0;
#ifdef __wasm_simd128__
  // Past |g| = 87, e^-g is clamped (e^87 is 6e37): the result differs from
  // g / (1 + e^-g) by less than 1e-36 there.
  const v128_t lo = wasm_f32x4_splat(-87.0f), hi = wasm_f32x4_splat(87.0f), one = wasm_f32x4_splat(1.0f);
  for (; i + 4 <= n; i += 4) {
    const v128_t x = wasm_v128_load(g + i);
    // min/max (not pmin/pmax): a NaN input stays NaN
    const v128_t e = exp_f32x4(wasm_f32x4_min(wasm_f32x4_max(wasm_f32x4_neg(x), lo), hi));
    wasm_v128_store(out + i, wasm_f32x4_mul(wasm_f32x4_div(x, wasm_f32x4_add(one, e)), wasm_v128_load(u + i)));
  }
#endif
  for (; i < n; ++i) out[i] = silu(g[i]) * u[i];
}

}  // namespace wasmlm
