// Q8_0: 32 weights as int8 q; w = d * q.
#include <algorithm>
#include <cmath>
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

void dequantize_row_q8_0(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_q8_0*>(src);
  for (int64_t i = 0; i < n / QK8_0; ++i, y += QK8_0) {
    const float d = fp16_to_fp32(x[i].d);
    for (int j = 0; j < QK8_0; ++j) y[j] = x[i].qs[j] * d;
  }
}

void quantize_row_q8_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q8_0*>(dst);
  for (int64_t i = 0; i < n / QK8_0; ++i, x += QK8_0) {
    float amax = 0;
    for (int j = 0; j < QK8_0; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127;
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    for (int j = 0; j < QK8_0; ++j) y[i].qs[j] = to_int8_saturated(std::round(x[j] * id));
  }
}

float vec_dot_q8_0_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q8_0*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK8_0; ++i) {
    int isum = 0;
    for (int j = 0; j < QK8_0; ++j) isum += x[i].qs[j] * y[i].qs[j];
    sum += isum * (fp16_to_fp32(x[i].d) * fp16_to_fp32(y[i].d));
  }
  return sum;
}

#ifdef __wasm_simd128__
// quantize_row_q8_0 in SIMD-128 with the same float operations per value;
// std::round (half away from zero) as trunc plus a sign where |fraction| >= 0.5.
void quantize_row_q8_0_simd(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_q8_0*>(dst);
  for (int64_t i = 0; i < n / QK8_0; ++i, x += QK8_0) {
    v128_t v[8];
    v128_t m = wasm_f32x4_splat(0);
    for (int k = 0; k < 8; ++k) {
      v[k] = wasm_v128_load(x + 4 * k);
      m = wasm_f32x4_pmax(m, wasm_f32x4_abs(v[k]));
    }
    const float amax = simd::hmax_f32(m);
    const float d = amax / 127;
    const float id = d ? 1.0f / d : 0.0f;
    y[i].d = fp32_to_fp16(d);
    v128_t q[8];
    for (int k = 0; k < 8; ++k) q[k] = wasm_i32x4_trunc_sat_f32x4(simd::round_half_away(wasm_f32x4_mul(v[k], wasm_f32x4_splat(id))));
    const v128_t a = wasm_i8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(q[0], q[1]), wasm_i16x8_narrow_i32x4(q[2], q[3]));
    const v128_t b = wasm_i8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(q[4], q[5]), wasm_i16x8_narrow_i32x4(q[6], q[7]));
    wasm_v128_store(y[i].qs, a);
    wasm_v128_store(y[i].qs + 16, b);
  }
}

float vec_dot_q8_0_q8_0_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_q8_0*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  v128_t acc = wasm_f32x4_splat(0);
  for (int64_t i = 0; i < n / QK8_0; ++i) {
    const v128_t isum = simd::block_dot_i8x32(wasm_v128_load(x[i].qs), wasm_v128_load(x[i].qs + 16), y[i].qs);
    acc = simd::add_scaled(acc, isum, fp16_to_fp32_fast(x[i].d) * fp16_to_fp32_fast(y[i].d));
  }
  return simd::hsum_f32(acc);
}

namespace {

// Block k's levels, sign-extended as they load (one pmovsxbw from memory in V8).
struct Levels {
  v128_t q[4];
  explicit Levels(const block_q8_0& b) {
    for (int j = 0; j < 4; ++j) q[j] = wasm_i16x8_load8x8(b.qs + 8 * j);
  }
  v128_t dot(const int16_t* y) const { return simd::dot_i16x32(q[0], q[1], q[2], q[3], y); }
};

// Group g (4 blocks from x) against T tokens: each token's 4 block dots go
// into the lanes of one vector (block k in lane k), converted and scaled by
// d_w * d_a lane by lane, and added to its accumulator. `count` < 4: a row's
// last group, its missing blocks zero.
template <int T>
void add_group(const block_q8_0* x, int count, const group_q8_0w* const (&y)[T], int64_t g, v128_t (&acc)[T]) {
  // Block k's dot for every token (zero past count).
  const auto block_dots = [&](int k, v128_t(&dots)[T]) {
    if (k >= count) {
      for (int t = 0; t < T; ++t) dots[t] = wasm_i32x4_splat(0);
      return;
    }
    const Levels w(x[k]);
    for (int t = 0; t < T; ++t) dots[t] = w.dot(y[t][g].qs + QK8_0 * k);
  };
  v128_t a[T], b[T], low[T];
  block_dots(0, a);
  block_dots(1, b);
  for (int t = 0; t < T; ++t) low[t] = simd::fold_pair(a[t], b[t]);  // blocks 0, 1
  block_dots(2, a);
  block_dots(3, b);
  v128_t dw = wasm_v128_load32_zero(kFp16Table + x[0].d);
  if (count > 1) dw = wasm_v128_load32_lane(kFp16Table + x[1].d, dw, 1);
  if (count > 2) dw = wasm_v128_load32_lane(kFp16Table + x[2].d, dw, 2);
  if (count > 3) dw = wasm_v128_load32_lane(kFp16Table + x[3].d, dw, 3);
  for (int t = 0; t < T; ++t) {
    const v128_t sums = simd::join_pairs(low[t], simd::fold_pair(a[t], b[t]));  // block k in lane k
    acc[t] = wasm_f32x4_add(acc[t], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(sums),
                                                   wasm_f32x4_mul(dw, wasm_v128_load(y[t][g].d))));
  }
}

}  // namespace

// Decoding and prompts (vec_dot_wide), against group_q8_0w: a float end per
// group of 4 blocks instead of per block (convert, scale, add once for 4),
// and each token gets the same arithmetic alone or beside others.
void vec_dot_q8_0_q8_0w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                        int64_t out_stride) {
  const auto* x = static_cast<const block_q8_0*>(w);
  const int64_t nb = n / QK8_0, full = nb / 4;
  simd::dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const group_q8_0w* y[T];
    simd::token_rows(a, act_stride, y);
    v128_t acc[T];
    for (int t = 0; t < T; ++t) acc[t] = wasm_f32x4_splat(0);
    for (int64_t g = 0; g < full; ++g) add_group<T>(x + 4 * g, 4, y, g, acc);
    if (nb % 4) add_group<T>(x + 4 * full, static_cast<int>(nb % 4), y, full, acc);
    for (int t = 0; t < T; ++t) out[t * out_stride] = simd::hsum_f32(acc[t]);
  });
}
#endif

}  // namespace wasmlm
