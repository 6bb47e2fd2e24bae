// TQ2_0 x Q8_K on the relaxed ternary kernels (ternary_relaxed.h): the
// stored 2-bit fields are t + 1 already. Bytes j of qs[32h..32h+31] hold, at
// bits 2l, the weights 128h + 32l + j.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/relaxed/k16_relaxed.h"
#include "quant/relaxed/ternary_relaxed.h"

namespace wasmlm {

namespace {

struct Tq2Levels {
  using Block = block_tq2_0;
  template <typename F>
  static void levels(const Block& b, F&& f) {
    for (int half = 0; half < 2; ++half) {
      const v128_t v0 = wasm_v128_load(b.qs + 32 * half), v1 = wasm_v128_load(b.qs + 32 * half + 16);
      for (int l = 0; l < 4; ++l) {
        f(8 * half + 2 * l, simd::crumbs(v0, 2 * l));
        f(8 * half + 2 * l + 1, simd::crumbs(v1, 2 * l));
      }
    }
  }
};

}  // namespace

float vec_dot_tq2_0_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return simd::ternary_dot_relaxed<Tq2Levels>(n, w, a);
}

void vec_dot_tq2_0_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                       float* out, int64_t out_stride) {
  simd::ternary_tokens_relaxed<Tq2Levels>(n, w, a, act_stride, n_tokens, out, out_stride);
}

}  // namespace wasmlm
#endif
