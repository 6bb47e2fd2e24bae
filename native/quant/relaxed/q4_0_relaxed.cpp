// Q4_0 x Q8_0 for 1 to kMaxWideTokens tokens with the relaxed 8-bit dot: the
// nibbles (0..15) are the 7-bit operand, the int8 activations the other, so
// a block's 32 products take two dots into int16 lanes (|sum| <= 4 * 127 *
// 15) and one widening add. Once the dot is this cheap, the float work per
// block and token dominates (convert, scale, add), so it is done for 4 blocks
// at once: their integer dots are reduced into the 4 lanes of one vector
// (hsum4_i32), minus the 8 x activation sums (the nibbles' offset), and
// acc += float(dot) * (d_w * d_a) lane by lane, block 4g + k in lane k;
// the result is the sum of acc's lanes. Each token gets exactly that
// arithmetic whatever the number of tokens in the call, so a batched prompt
// gives the bits of token-by-token decoding.
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

// Integer dot of one block's nibbles (lo: weights 0-15, hi: 16-31) with its
// 32 activations, as 4 int32 lanes.
inline v128_t block_dot(v128_t lo, v128_t hi, const int8_t* q8) {
  return wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_add(simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8), lo),
                                                          simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16), hi)));
}

// A group's float step: acc + float(sum of its 4 block dots - s8) * (dw * d).
inline v128_t add_group(v128_t acc, const v128_t (&dots)[4], const group_q8_0r& y, v128_t dw) {
  const v128_t q = wasm_i32x4_sub(simd::hsum4_i32(dots[0], dots[1], dots[2], dots[3]), wasm_v128_load(y.s8));
  return wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(q), wasm_f32x4_mul(dw, wasm_v128_load(y.d))));
}

// The nibbles of blocks x[0..count) split into low and high halves, and
// their scales; the blocks past count (a row's last, partial group) are zero.
struct Group {
  v128_t lo[4], hi[4];
  v128_t dw;
};

inline void load_group(const block_q4_0* x, int count, Group& g) {
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  float d[4] = {0, 0, 0, 0};
  for (int b = 0; b < 4; ++b) {
    const v128_t v = b < count ? wasm_v128_load(x[b].qs) : wasm_i8x16_splat(0);
    g.lo[b] = wasm_v128_and(v, m4);
    g.hi[b] = wasm_u8x16_shr(v, 4);
    if (b < count) d[b] = fp16_to_fp32_fast(x[b].d);
  }
  g.dw = wasm_f32x4_make(d[0], d[1], d[2], d[3]);
}

}  // namespace

void vec_dot_q4_0_q8_0g_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                                int64_t out_stride) {
  const auto* x = static_cast<const block_q4_0*>(w);
  const int64_t nb = n / QK4_0, ng = (nb + 3) / 4;
  const v128_t m4 = wasm_i8x16_splat(0x0F);
  if (n_tokens == 1) {
    // Straight from the blocks: nothing to share between tokens.
    const auto* y = static_cast<const group_q8_0r*>(a);
    v128_t acc = wasm_f32x4_splat(0);
    for (int64_t g = 0; g < nb / 4; ++g) {
      const block_q4_0* xb = x + 4 * g;
      v128_t dots[4];
      for (int b = 0; b < 4; ++b) {
        const v128_t v = wasm_v128_load(xb[b].qs);
        dots[b] = block_dot(wasm_v128_and(v, m4), wasm_u8x16_shr(v, 4), y[g].qs + QK8_0 * b);
      }
      const v128_t dw = wasm_f32x4_make(fp16_to_fp32_fast(xb[0].d), fp16_to_fp32_fast(xb[1].d),
                                        fp16_to_fp32_fast(xb[2].d), fp16_to_fp32_fast(xb[3].d));
      acc = add_group(acc, dots, y[g], dw);
    }
    if (nb % 4) {
      Group grp;
      load_group(x + 4 * (nb / 4), static_cast<int>(nb % 4), grp);
      v128_t dots[4];
      for (int b = 0; b < 4; ++b) dots[b] = block_dot(grp.lo[b], grp.hi[b], y[ng - 1].qs + QK8_0 * b);
      acc = add_group(acc, dots, y[ng - 1], grp.dw);
    }
    out[0] = simd::hsum_f32(acc);
    return;
  }
  // Several tokens: each group's nibbles are split once for all of them; the
  // accumulators live in memory (16 of them would not fit V8's registers).
  const auto* base = static_cast<const uint8_t*>(a);
  v128_t acc[kMaxWideTokens];
  for (int t = 0; t < n_tokens; ++t) acc[t] = wasm_f32x4_splat(0);
  for (int64_t g = 0; g < ng; ++g) {
    Group grp;
    load_group(x + 4 * g, static_cast<int>(nb - 4 * g < 4 ? nb - 4 * g : 4), grp);
#pragma clang loop unroll_count(2)
    for (int t = 0; t < n_tokens; ++t) {
      const group_q8_0r& y = reinterpret_cast<const group_q8_0r*>(base + t * act_stride)[g];
      v128_t dots[4];
      for (int b = 0; b < 4; ++b) dots[b] = block_dot(grp.lo[b], grp.hi[b], y.qs + QK8_0 * b);
      acc[t] = add_group(acc[t], dots, y, grp.dw);
    }
  }
  for (int t = 0; t < n_tokens; ++t) out[t * out_stride] = simd::hsum_f32(acc[t]);
}

}  // namespace wasmlm
#endif
