// SiLU-gated products of a feed-forward layer: out = g / (1 + e^-g) * u.
// In wasm SIMD builds e^x is computed four values at a time from a
// polynomial (exp_poly.h).
#include <cmath>

#include "compute/exp_poly.h"
#include "compute/ops.h"

namespace wasmlm {

void silu_mul(float* out, const float* g, const float* u, uint64_t n) {
  uint64_t i = 0;
#ifdef __wasm_simd128__
  // Past |g| = 87, e^-g is clamped (e^87 is 6e37): the result differs from
  // g / (1 + e^-g) by less than 1e-36 there.
  const v128_t lo = wasm_f32x4_splat(-87.0f), hi = wasm_f32x4_splat(87.0f), one = wasm_f32x4_splat(1.0f);
  for (; i + 4 <= n; i += 4) {
    const v128_t x = wasm_v128_load(g + i);
    // pmax(v, lo) = v < lo ? lo : v: a NaN stays NaN (so does pmin's)
    const v128_t e = exp_poly_f32x4(wasm_f32x4_pmin(wasm_f32x4_pmax(wasm_f32x4_neg(x), lo), hi));
    wasm_v128_store(out + i, wasm_f32x4_mul(wasm_f32x4_div(x, wasm_f32x4_add(one, e)), wasm_v128_load(u + i)));
  }
#endif
  for (; i < n; ++i) out[i] = silu(g[i]) * u[i];
}

}  // namespace wasmlm
