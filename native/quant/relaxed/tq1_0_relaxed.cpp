// TQ1_0 x Q8_K on the relaxed ternary kernels (ternary_relaxed.h). A trit
// is read from its byte's fraction q = (uint8)(b * 3^k) (tq1_0.cpp) as
// t + 1 = (3q) >> 8, which is [q >= 86] + [q >= 171]: two byte compares; and
// the next trit's q is q * 3. So 16 weights cost a handful of byte operations
// and no widening.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include <cstring>

#include "quant/blocks.h"
#include "quant/relaxed/ternary_relaxed.h"

namespace wasmlm {

namespace {

// The byte operations below go through simd::opaque: otherwise clang folds
// the chain of q * 3 into 8-bit multiplies (wasm has none: lane by lane),
// and q >= 86 into q > 85 (V8: four x86 instructions for i8x16.gt_u, two for
// ge_u).
using simd::opaque;

// uint8(q * 3), lane by lane. The second operand goes through opaque() too:
// an add of q to itself would become i8x16.shl, which V8 spells as a 16-bit
// shift and a mask built in five instructions.
inline v128_t times3(v128_t q) { return wasm_i8x16_add(opaque(wasm_i8x16_add(q, opaque(q))), q); }

// t + 1 of the trits whose fractions are the bytes of q: [q >= 86] + [q >= 171].
inline v128_t trit_plus_one(v128_t q, v128_t t86, v128_t t171) {
  return wasm_i8x16_sub(wasm_i8x16_sub(wasm_i8x16_splat(0), wasm_u8x16_ge(q, t86)), wasm_u8x16_ge(q, t171));
}

struct Tq1Levels {
  using Block = block_tq1_0;
  // qs[0..31]: trit k of byte m is weight 32k + m; qs[32..47]: 160 + 16k + m;
  // qh[0..3]: 240 + 4k + m (k < 4).
  template <typename F>
  static void levels(const Block& b, F&& f) {
    const v128_t t86 = opaque(wasm_i8x16_splat(86)), t171 = opaque(wasm_i8x16_splat(static_cast<int8_t>(171)));
    v128_t q0 = wasm_v128_load(b.qs), q1 = wasm_v128_load(b.qs + 16), q2 = wasm_v128_load(b.qs + 32);
    for (int k = 0; k < 5; ++k) {
      f(2 * k, trit_plus_one(q0, t86, t171));
      f(2 * k + 1, trit_plus_one(q1, t86, t171));
      q0 = times3(q0);
      q1 = times3(q1);
    }
    for (int k = 0; k < 5; ++k) {
      f(10 + k, trit_plus_one(q2, t86, t171));
      q2 = times3(q2);
    }
    uint32_t qh;
    std::memcpy(&qh, b.qh, sizeof qh);
    // Lane 4k + m: qh[m] * 3^k.
    const v128_t h0 = wasm_i32x4_splat(static_cast<int32_t>(qh)), h1 = times3(h0), h2 = times3(h1), h3 = times3(h2);
    f(15, trit_plus_one(wasm_i32x4_shuffle(wasm_i32x4_shuffle(h0, h1, 0, 4, 0, 4), wasm_i32x4_shuffle(h2, h3, 0, 4, 0, 4),
                                             0, 1, 4, 5),
                            t86, t171));
  }
};

}  // namespace

float vec_dot_tq1_0_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  return simd::ternary_dot_relaxed<Tq1Levels>(n, w, a);
}

void vec_dot_tq1_0_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens,
                                       float* out, int64_t out_stride) {
  simd::ternary_tokens_relaxed<Tq1Levels>(n, w, a, act_stride, n_tokens, out, out_stride);
}

}  // namespace wasmlm
#endif
