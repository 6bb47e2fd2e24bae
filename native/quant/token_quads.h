// The float ends of the multi-token Q8_K kernels in the lanes of four tokens
// (wasm builds only): lane k is token 4q + k. Lane-wise f32 operations are
// the IEEE operations a token alone gets, so the bits stay the same.
#pragma once
#ifdef __wasm_simd128__

#include <wasm_simd128.h>

#include <cstdint>
#include <initializer_list>

#include "quant/blocks.h"
#include "quant/simd128.h"

namespace wasmlm::simd {

// Starts the float ends of n_tokens tokens: the float sums (sums[q], one
// per four tokens) at zero, and in each integer-sum array of `ints` the pad
// lanes past n_tokens (to a multiple of 4), which hsum4_i32 reads, at zero.
inline void start_quads(v128_t* sums, int n_tokens, std::initializer_list<v128_t*> ints) {
  const int padded = (n_tokens + 3) / 4 * 4;
  zero_fill(sums, padded / 4);
  for (v128_t* isum : ints) zero_fill(isum + n_tokens, padded - n_tokens);
}

// f(t, row) for every token t < n_tokens, row = first + t * act_stride
// reached by steps (V8 would otherwise spend an imul and adds per token on
// it), rolled: the multi-token kernels' accumulators live in memory, as V8
// has 16 vector registers.
template <typename F>
inline void for_tokens(int n_tokens, const uint8_t* first, int64_t act_stride, F&& f) {
#pragma clang loop unroll(disable)
  for (int t = 0; t < n_tokens; ++t, first += act_stride) f(t, first);
}

// The d of block i of tokens t..t + 3 (0 past n_tokens); Row: block_q8_K,
// or block_q8_Kw for the int16 kernels.
template <typename Row = block_q8_K>
inline v128_t quad_d(const uint8_t* a, int64_t act_stride, int64_t i, int t, int n_tokens) {
  const uint8_t* row = a + t * act_stride + i * sizeof(Row);
  const auto d = [&](int k) { return reinterpret_cast<const Row*>(row + k * act_stride)->d; };
  if (t + 4 <= n_tokens) return wasm_f32x4_make(d(0), d(1), d(2), d(3));
  return wasm_f32x4_make(d(0), t + 1 < n_tokens ? d(1) : 0.0f, t + 2 < n_tokens ? d(2) : 0.0f, 0.0f);
}

// The float end of a block whose weights have one scale d, for every token
// in quads: sum += float(isum) * (d * y.d), isum[t] the token's integer sum
// in 4 lanes (zero past n_tokens, to a multiple of 4).
template <typename Row = block_q8_K>
inline void add_block_d(v128_t* sums, int n_tokens, const v128_t* isum, float d, const uint8_t* a, int64_t act_stride,
                        int64_t i) {
  const v128_t vd = wasm_f32x4_splat(d);
  for (int t = 0; t < n_tokens; t += 4) {
    const v128_t dots = hsum4_i32(isum[t], isum[t + 1], isum[t + 2], isum[t + 3]);
    const v128_t scale = wasm_f32x4_mul(vd, quad_d<Row>(a, act_stride, i, t, n_tokens));
    sums[t / 4] = wasm_f32x4_add(sums[t / 4], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(dots), scale));
  }
}

// The dot of 16 int16 scales (ls_lo: sub-blocks 0-7, ls_hi: 8-15), one per
// 16 weights, with a Q8_K block's 16 sums of 16 activations, in 4 int32
// lanes: times an offset added to every weight to make it a 7-bit level, the
// share of that offset in the block's integer sum.
inline v128_t scaled_bsums(v128_t ls_lo, v128_t ls_hi, const int16_t* bsums) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(ls_lo, wasm_v128_load(bsums)),
                        wasm_i32x4_dot_i16x8(ls_hi, wasm_v128_load(bsums + 8)));
}

// isum[t] -= offset * scaled_bsums(the 16 scales ls_lo, ls_hi, token t's
// block i).
inline void sub_level_offsets(v128_t* isum, int n_tokens, v128_t ls_lo, v128_t ls_hi, int32_t offset,
                              const uint8_t* a, int64_t act_stride, int64_t i) {
  const v128_t off = wasm_i32x4_splat(offset);
  for_tokens(n_tokens, a + i * sizeof(block_q8_K), act_stride, [&](int t, const uint8_t* row) {
    const auto& y = *reinterpret_cast<const block_q8_K*>(row);
    isum[t] = wasm_i32x4_sub(isum[t], wasm_i32x4_mul(scaled_bsums(ls_lo, ls_hi, y.bsums), off));
  });
}

inline void sub_level_offsets(v128_t* isum, int n_tokens, const int16_t* ls, int32_t offset, const uint8_t* a,
                              int64_t act_stride, int64_t i) {
  sub_level_offsets(isum, n_tokens, wasm_v128_load(ls), wasm_v128_load(ls + 8), offset, a, act_stride, i);
}

// The float end of a Q2_K/Q4_K/Q5_K block for every token, in quads:
// sum += y.d * (d * isum - dmin * mins), isum[t] and mins[t] the token's
// integer sums in 4 lanes each (zero past n_tokens, to a multiple of 4).
inline void add_block_dmin(v128_t* sums, int n_tokens, const v128_t* isum, const v128_t* mins, float d, float dmin,
                           const uint8_t* a, int64_t act_stride, int64_t i) {
  const v128_t vd = wasm_f32x4_splat(d), vdmin = wasm_f32x4_splat(dmin);
  for (int t = 0; t < n_tokens; t += 4) {
    const v128_t dots = hsum4_i32(isum[t], isum[t + 1], isum[t + 2], isum[t + 3]);
    const v128_t offs = hsum4_i32(mins[t], mins[t + 1], mins[t + 2], mins[t + 3]);
    const v128_t block = wasm_f32x4_sub(wasm_f32x4_mul(vd, wasm_f32x4_convert_i32x4(dots)),
                                        wasm_f32x4_mul(vdmin, wasm_f32x4_convert_i32x4(offs)));
    sums[t / 4] = wasm_f32x4_add(sums[t / 4], wasm_f32x4_mul(quad_d(a, act_stride, i, t, n_tokens), block));
  }
}

// out[t * out_stride] = factor * lane t % 4 of sums[t / 4] (factor: the
// reference's last multiply, where it has one; times 1 changes no bits).
inline void store_quads(const v128_t* sums, int n_tokens, float* out, int64_t out_stride, float factor = 1.0f) {
  for (int t = 0; t < n_tokens; ++t) {
    alignas(16) float lanes[4];
    wasm_v128_store(lanes, sums[t / 4]);
    out[t * out_stride] = factor * lanes[t % 4];
  }
}

// out[t * out_stride] = sums' lane + factor1 * sums1's lane, the reference's
// sum + factor1 * sum1 (the IQ1 types: their shifts' sum times 1/8).
inline void store_quads_plus(v128_t* sums, const v128_t* sums1, float factor1, int n_tokens, float* out,
                             int64_t out_stride) {
  for (int q = 0; q < (n_tokens + 3) / 4; ++q)
    sums[q] = wasm_f32x4_add(sums[q], wasm_f32x4_mul(wasm_f32x4_splat(factor1), sums1[q]));
  store_quads(sums, n_tokens, out, out_stride);
}

}  // namespace wasmlm::simd
#endif
