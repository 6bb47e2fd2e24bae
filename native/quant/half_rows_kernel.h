// The multi-token kernel of the 16-bit float weight types (F16, BF16): a
// weight row against 1 to 4 tokens of f32 activations. Each 8 weights are
// converted once for all the tokens (convert(h, &lo, &hi): weights 0-3 and
// 4-7 as f32); the products are exact in f32 (both factors are 16-bit
// floats, at most 11 significant bits each) and summed in f64 (add_f64) in
// two chains, in the same order for any number of tokens, so one token
// alone gets the bits it gets in a batch. tail(k, y) is the product of
// weight k with activation y as a double, for the last n % 8 weights.
#pragma once
#ifdef __wasm_simd128__

#include <cstdint>

#include "quant/simd128.h"

namespace wasmlm::simd {

template <typename Convert, typename Tail>
void half_rows_dot(int64_t n, const uint16_t* x, const void* a, int64_t act_stride, int n_tokens, float* out,
                   int64_t out_stride, Convert&& convert, Tail&& tail) {
  dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const float* y[T];
    token_rows(a, act_stride, y);
    v128_t acc0[T], acc1[T];
    for (int t = 0; t < T; ++t) acc0[t] = acc1[t] = wasm_f64x2_splat(0);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      v128_t f0, f1;
      convert(wasm_v128_load(x + i), &f0, &f1);
      for (int t = 0; t < T; ++t) {
        add_f64(wasm_f32x4_mul(f0, wasm_v128_load(y[t] + i)), &acc0[t], &acc1[t]);
        add_f64(wasm_f32x4_mul(f1, wasm_v128_load(y[t] + i + 4)), &acc0[t], &acc1[t]);
      }
    }
    for (int t = 0; t < T; ++t) {
      double sum = hsum_f64(wasm_f64x2_add(acc0[t], acc1[t]));
      for (int64_t k = i; k < n; ++k) sum += tail(k, y[t][k]);
      out[t * out_stride] = static_cast<float>(sum);
    }
  });
}

}  // namespace wasmlm::simd
#endif
