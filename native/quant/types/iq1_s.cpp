// IQ1_S: 256 weights in 8 groups of 32, each group 4 grid entries of 8
// values in {-1, 0, 1} (kIq1sGrid, 11-bit indices), a 3-bit scale s and a
// shift of +-1/8: w = d * (2s + 1) * (grid + delta).
#include <cstddef>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq_groups_kernel.h"
#include "quant/iq1_grid.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_kernels.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/token_quads.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

// Grid entry l (0-3) of group ib.
inline uint64_t grid_entry(const block_iq1_s& b, int ib, int l) {
  return kIq1sGrid[b.qs[4 * ib + l] | (((b.qh[ib] >> 3 * l) & 7) << 8)];
}

inline int grid_value(uint64_t g, int j) { return static_cast<int8_t>(g >> 8 * j); }

inline int group_scale(uint16_t qh) { return 2 * ((qh >> 12) & 7) + 1; }

}  // namespace

void dequantize_row_iq1_s(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq1_s*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const float dl = d * group_scale(x[i].qh[ib]);
      const float delta = x[i].qh[ib] & 0x8000 ? -kIq1Delta : kIq1Delta;
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint64_t g = grid_entry(x[i], ib, l);
        for (int j = 0; j < 8; ++j) y[j] = dl * (grid_value(g, j) + delta);
      }
    }
  }
}

// The integer sums of ggml's ggml_vec_dot_iq1_s_q8_K_generic: the grid part
// and the shifts' part (through the activations' bsums). Their floats are
// combined as ggml's x86 kernels do (llama.cpp's references were recorded
// there): d * sumi and d * sumi1 summed apart over the blocks, the shift's
// 1/8 applied at the end. (The generic code's per-block d * (sumi + sumi1 /
// 8) rounds differently; on synth-kq-imat-pure-IQ1_S's second prompt that
// moved one Q8 rounding and the probabilities by 3e-3; this way 8e-9.)
float vec_dot_iq1_s_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq1_s*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0, sum1 = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    int sumi = 0, sumi1 = 0;
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const int ls = group_scale(x[i].qh[ib]);
      const int delta = x[i].qh[ib] & 0x8000 ? -1 : 1;
      int lsum = 0;
      for (int l = 0; l < 4; ++l, q8 += 8) {
        const uint64_t g = grid_entry(x[i], ib, l);
        for (int j = 0; j < 8; ++j) lsum += q8[j] * grid_value(g, j);
      }
      sumi += ls * lsum;
      sumi1 += ls * delta * (y[i].bsums[2 * ib] + y[i].bsums[2 * ib + 1]);
    }
    const float d = fp16_to_fp32(x[i].d) * y[i].d;
    sum += d * static_cast<float>(sumi);
    sum1 += d * static_cast<float>(sumi1);
  }
  return sum + kIq1Delta * sum1;
}

#ifdef __wasm_simd128__
namespace {

// Group ib's 32 grid values as int8: *lo weights 0-15, *hi 16-31.
inline void decode_group(const block_iq1_s& b, int ib, v128_t* lo, v128_t* hi) {
  const uint64_t* grid = kIq1sGrid.data();
  const uint8_t* qs = b.qs + 4 * ib;
  const uint32_t h = b.qh[ib];
  *lo = wasm_i64x2_make(grid[qs[0] | ((h << 8) & 0x700)], grid[qs[1] | ((h << 5) & 0x700)]);
  *hi = wasm_i64x2_make(grid[qs[2] | ((h << 2) & 0x700)], grid[qs[3] | ((h >> 1) & 0x700)]);
}

inline int group_shift(uint16_t qh) { return qh & 0x8000 ? -group_scale(qh) : group_scale(qh); }

// For the relaxed kernels, whose vector work leaves room for it (the
// SIMD-128 ones measured 5% slower with it): a block's 32 grid entries as
// byte offsets into kIq1sGridPlus1 (8 x index: qs[k] times 8 with bits
// 3(k % 4)..+2 of qh[k / 4] at bits 11-13), 8 at a time: qh times
// 2^(12 - 3(k % 4)) in uint16, shifted right by 1, brings each entry's 3
// bits there. And its 8 groups' scales (2s + 1) and shifts (+-scale) as
// int16 lanes.
struct Iq1sIndex {
  alignas(16) uint16_t off[QK_K / 8];
  v128_t ls, shift;
  explicit Iq1sIndex(const block_iq1_s& b) {
    // through simd::unseen, so that the multiply stays one
    alignas(16) static constexpr int16_t kMul[8] = {4096, 512, 64, 8, 4096, 512, 64, 8};
    const v128_t mul = wasm_v128_load(simd::unseen(kMul)), bits = wasm_i16x8_splat(0x3800);
    const v128_t qh = wasm_v128_load(b.qh), qs0 = wasm_v128_load(b.qs), qs1 = wasm_v128_load(b.qs + 16);
    const v128_t h[4] = {wasm_i16x8_shuffle(qh, qh, 0, 0, 0, 0, 1, 1, 1, 1), wasm_i16x8_shuffle(qh, qh, 2, 2, 2, 2, 3, 3, 3, 3),
                         wasm_i16x8_shuffle(qh, qh, 4, 4, 4, 4, 5, 5, 5, 5), wasm_i16x8_shuffle(qh, qh, 6, 6, 6, 6, 7, 7, 7, 7)};
    const v128_t lo[4] = {wasm_u16x8_extend_low_u8x16(qs0), wasm_u16x8_extend_high_u8x16(qs0),
                          wasm_u16x8_extend_low_u8x16(qs1), wasm_u16x8_extend_high_u8x16(qs1)};
    for (int j = 0; j < 4; ++j)
      wasm_v128_store(off + 8 * j, wasm_v128_or(wasm_i16x8_shl(lo[j], 3),
                                                wasm_v128_and(wasm_u16x8_shr(wasm_i16x8_mul(h[j], mul), 1), bits)));
    ls = wasm_i16x8_add(wasm_i16x8_shl(wasm_v128_and(wasm_u16x8_shr(qh, 12), wasm_i16x8_splat(7)), 1), wasm_i16x8_splat(1));
    const v128_t neg = wasm_i16x8_shr(qh, 15);
    shift = wasm_i16x8_sub(wasm_v128_xor(ls, neg), neg);
  }
  // Group ib's 32 grid values plus 1 as int8: *lo weights 0-15, *hi 16-31.
  void group(int ib, v128_t* lo, v128_t* hi) const {
    *lo = simd::iq_grid_pair(kIq1sGridPlus1.data(), off, 2 * ib);
    *hi = simd::iq_grid_pair(kIq1sGridPlus1.data(), off, 2 * ib + 1);
  }
};

// The groups' int16 values v per 16 weights (lanes 2g, 2g + 1: group g).
inline v128_t per16_lo(v128_t v) { return wasm_i16x8_shuffle(v, v, 0, 0, 1, 1, 2, 2, 3, 3); }
inline v128_t per16_hi(v128_t v) { return wasm_i16x8_shuffle(v, v, 4, 4, 5, 5, 6, 6, 7, 7); }

// The shifts' integer sum of a block: its +-scales times the sums of 16.
inline int32_t shift_sum(const Iq1sIndex& b, const block_q8_K& y) {
  return simd::hsum_i32(simd::scaled_bsums(per16_lo(b.shift), per16_hi(b.shift), y.bsums));
}

}  // namespace

float vec_dot_iq1_s_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq1_s*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0, sum1 = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    v128_t isum = wasm_i32x4_splat(0);
    int sumi1 = 0;
    for (int ib = 0; ib < QK_K / 32; ++ib, q8 += 32) {
      v128_t lo, hi;
      decode_group(x[i], ib, &lo, &hi);
      const v128_t s = simd::block_dot_i8x32(lo, hi, q8);
      isum = wasm_i32x4_add(isum, wasm_i32x4_mul(s, wasm_i32x4_splat(group_scale(x[i].qh[ib]))));
      sumi1 += group_shift(x[i].qh[ib]) * (y[i].bsums[2 * ib] + y[i].bsums[2 * ib + 1]);
    }
    const float d = fp16_to_fp32_fast(x[i].d) * y[i].d;
    sum += d * static_cast<float>(simd::hsum_i32(isum));
    sum1 += d * static_cast<float>(sumi1);
  }
  return sum + kIq1Delta * sum1;
}

// With relaxed SIMD, one token: the grid values plus 1 (0..2) are the 7-bit
// operand of the 8-bit dot, and the 1 of every weight comes off as the
// scales times the block's sums of 16 activations (which also give the
// shifts' part). The reference's integer sums and float end.
float vec_dot_iq1_s_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq1_s*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const simd::SplatIndices* splat = simd::unseen(&simd::kSplatIndices);
  float sum = 0, sum1 = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    const Iq1sIndex b(x[i]);
    v128_t isum = wasm_i32x4_splat(0);
    for (int ib = 0; ib < QK_K / 32; ++ib, q8 += 32) {
      v128_t lo, hi;
      b.group(ib, &lo, &hi);
      // int16 lanes: four products of at most 2 * 127
      const v128_t p = wasm_i16x8_add(simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8), lo),
                                      simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16), hi));
      isum = wasm_i32x4_add(isum, wasm_i32x4_dot_i16x8(p, simd::splat_i16_lane(b.ls, ib, *splat)));
    }
    isum = wasm_i32x4_sub(isum, simd::scaled_bsums(per16_lo(b.ls), per16_hi(b.ls), y[i].bsums));
    const float d = fp16_to_fp32_fast(x[i].d) * y[i].d;
    sum += d * static_cast<float>(simd::hsum_i32(isum));
    sum1 += d * static_cast<float>(shift_sum(b, y[i]));
  }
  return sum + kIq1Delta * sum1;
}

// The same for 1 to kMaxWideTokens tokens of int8 Q8_K activations, each
// block decoded once for all of them; the float ends in quads of tokens.
void vec_dot_iq1_s_q8_K_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride,
                                       int n_tokens, float* out, int64_t out_stride) {
  const auto* x = static_cast<const block_iq1_s*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum[kMaxWideTokens / 4], sum1[kMaxWideTokens / 4], isum[kMaxWideTokens], isum1[kMaxWideTokens];
  simd::start_quads(sum, n_tokens, {isum, isum1});
  simd::start_quads(sum1, n_tokens, {});
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const Iq1sIndex b(x[i]);
    for (int ib = 0; ib < QK_K / 32; ib += 2) {
      v128_t l[4], sc[2];  // 64 weights: 4 x 16 levels plus 1 and their groups' scales
      for (int h = 0; h < 2; ++h) {
        b.group(ib + h, &l[2 * h], &l[2 * h + 1]);
        sc[h] = simd::splat_i16_lane(b.ls, ib + h);
      }
      const uint8_t* q8 = a + i * sizeof(block_q8_K) + offsetof(block_q8_K, qs) + 32 * ib;
#pragma clang loop unroll(disable)
      for (int t = 0; t < n_tokens; ++t, q8 += act_stride) {
        v128_t p[4];  // int16 lanes: two products of at most 2 * 127
        for (int k = 0; k < 4; ++k) p[k] = simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(q8 + 16 * k), l[k]);
        const v128_t s = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_add(p[0], p[1]), sc[0]),
                                        wasm_i32x4_dot_i16x8(wasm_i16x8_add(p[2], p[3]), sc[1]));
        isum[t] = ib ? wasm_i32x4_add(isum[t], s) : s;
      }
    }
    const v128_t ls_lo = per16_lo(b.ls), ls_hi = per16_hi(b.ls), sh_lo = per16_lo(b.shift), sh_hi = per16_hi(b.shift);
    simd::for_tokens(n_tokens, a + i * sizeof(block_q8_K), act_stride, [&](int t, const uint8_t* row) {
      const int16_t* bsums = reinterpret_cast<const block_q8_K*>(row)->bsums;
      isum[t] = wasm_i32x4_sub(isum[t], simd::scaled_bsums(ls_lo, ls_hi, bsums));
      isum1[t] = simd::scaled_bsums(sh_lo, sh_hi, bsums);
    });
    const float d = fp16_to_fp32_fast(x[i].d);
    simd::add_block_d(sum, n_tokens, isum, d, a, act_stride, i);
    simd::add_block_d(sum1, n_tokens, isum1, d, a, act_stride, i);
  }
  simd::store_quads_plus(sum, sum1, kIq1Delta, n_tokens, out, out_stride);
}

// Against int16 activations, 1 to 4 tokens (simd::iq_isum_scaled); the
// shifts' part is one dot of the block's 16 bsums with the groups' +-scales.
void vec_dot_iq1_s_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                         int64_t out_stride) {
  const auto* x = static_cast<const block_iq1_s*>(w);
  simd::dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const block_q8_Kw* y[T];
    simd::token_rows(a, act_stride, y);
    float sum[T] = {}, sum1[T] = {};
    for (int64_t i = 0; i < n / QK_K; ++i) {
      v128_t isum[T];
      for (int t = 0; t < T; ++t) isum[t] = wasm_i32x4_splat(0);
      alignas(16) int16_t shift[QK_K / 16];
      for (int ib = 0; ib < QK_K / 32; ++ib) {
        v128_t lo, hi;
        decode_group(x[i], ib, &lo, &hi);
        const int16_t ls = static_cast<int16_t>(group_scale(x[i].qh[ib]));
        shift[2 * ib] = shift[2 * ib + 1] = static_cast<int16_t>(group_shift(x[i].qh[ib]));
        simd::iq_isum_scaled<T>(lo, hi, ls, y, i, 32 * ib, isum);
      }
      const v128_t sh0 = wasm_v128_load(shift), sh1 = wasm_v128_load(shift + 8);
      const float dx = fp16_to_fp32_fast(x[i].d);
      for (int t = 0; t < T; ++t) {
        const int sumi1 = simd::hsum_i32(wasm_i32x4_add(wasm_i32x4_dot_i16x8(sh0, wasm_v128_load(y[t][i].bsums)),
                                                        wasm_i32x4_dot_i16x8(sh1, wasm_v128_load(y[t][i].bsums + 8))));
        const float d = dx * y[t][i].d;
        sum[t] += d * static_cast<float>(simd::hsum_i32(isum[t]));
        sum1[t] += d * static_cast<float>(sumi1);
      }
    }
    for (int t = 0; t < T; ++t) out[t * out_stride] = sum[t] + kIq1Delta * sum1[t];
  });
}
#endif

}  // namespace wasmlm
