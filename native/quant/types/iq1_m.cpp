// IQ1_M: 256 weights in 16 groups of 16, each group 2 grid entries of 8
// values in {-1, 0, 1} (kIq1sGrid, 11-bit indices) each with its shift of
// +-1/8, and a 3-bit scale s: w = d * (2s + 1) * (grid + delta). The block's
// fp16 d is spread over the top nibbles of its scales.
#include <cstddef>
#include <cstring>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq1_grid.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_kernels.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/token_quads.h"
#include "quant/simd128.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

struct Iq1mScales {
  uint16_t sc[4];
  uint16_t d() const {
    return static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
  }
  // Scale of weights 16h..16h+15 of group ib (h = 0, 1).
  int scale(int ib, int h) const { return 2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3 * h)) & 7) + 1; }
};

inline Iq1mScales scales_of(const block_iq1_m& b) {
  Iq1mScales s;
  std::memcpy(s.sc, b.scales, sizeof s.sc);
  return s;
}

// Grid entry l (0-3) of group ib (32 weights), and its delta's sign.
inline uint64_t grid_entry(const block_iq1_m& b, int ib, int l) {
  return kIq1sGrid[b.qs[4 * ib + l] | ((b.qh[2 * ib + l / 2] >> 4 * (l % 2)) & 7) << 8];
}
inline bool negative_delta(const block_iq1_m& b, int ib, int l) { return b.qh[2 * ib + l / 2] & (0x08 << 4 * (l % 2)); }

inline int grid_value(uint64_t g, int j) { return static_cast<int8_t>(g >> 8 * j); }

}  // namespace

void dequantize_row_iq1_m(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq1_m*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const Iq1mScales sc = scales_of(x[i]);
    const float d = fp16_to_fp32(sc.d());
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      const float dl[2] = {d * sc.scale(ib, 0), d * sc.scale(ib, 1)};
      for (int l = 0; l < 4; ++l, y += 8) {
        const float delta = negative_delta(x[i], ib, l) ? -kIq1Delta : kIq1Delta;
        const uint64_t g = grid_entry(x[i], ib, l);
        for (int j = 0; j < 8; ++j) y[j] = dl[l / 2] * (grid_value(g, j) + delta);
      }
    }
  }
}

// The integer sums of ggml's ggml_vec_dot_iq1_m_q8_K_generic: the grid part
// and the shifts' part (through sums of 8 activations). Their floats are
// combined as ggml's x86 kernels do (llama.cpp's references were recorded
// there), as IQ1_S's: d * sumi1 and d * sumi2 summed apart over the blocks,
// the shift's 1/8 applied at the end.
float vec_dot_iq1_m_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq1_m*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum1 = 0, sum2 = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const Iq1mScales sc = scales_of(x[i]);
    const int8_t* q8 = y[i].qs;
    int sumi1 = 0, sumi2 = 0;
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      int s1[2] = {0, 0}, s2[2] = {0, 0};
      for (int l = 0; l < 4; ++l, q8 += 8) {
        const uint64_t g = grid_entry(x[i], ib, l);
        int lsum1 = 0, lsum2 = 0;
        for (int j = 0; j < 8; ++j) {
          lsum1 += q8[j] * grid_value(g, j);
          lsum2 += q8[j];
        }
        s1[l / 2] += lsum1;
        s2[l / 2] += lsum2 * (negative_delta(x[i], ib, l) ? -1 : 1);
      }
      const int ls1 = sc.scale(ib, 0), ls2 = sc.scale(ib, 1);
      sumi1 += s1[0] * ls1 + s1[1] * ls2;
      sumi2 += s2[0] * ls1 + s2[1] * ls2;
    }
    const float d = fp16_to_fp32(sc.d()) * y[i].d;
    sum1 += d * static_cast<float>(sumi1);
    sum2 += d * static_cast<float>(sumi2);
  }
  return sum1 + kIq1Delta * sum2;
}

#ifdef __wasm_simd128__
namespace {

// 4 int16 lanes of +1, or of -1 where the delta's sign bit is set.
constexpr uint64_t kPlusOnes16 = 0x0001000100010001, kMinusOnes = ~uint64_t{0};
inline uint64_t signs16(uint32_t negative) { return negative ? kMinusOnes : kPlusOnes16; }

// Group ib's 32 grid values as int8: *lo weights 0-15 (scale ls1), *hi 16-31 (ls2).
inline void decode_group(const block_iq1_m& b, int ib, v128_t* lo, v128_t* hi) {
  const uint64_t* grid = kIq1sGrid.data();
  const uint8_t* qs = b.qs + 4 * ib;
  const uint32_t h0 = b.qh[2 * ib], h1 = b.qh[2 * ib + 1];
  *lo = wasm_i64x2_make(grid[qs[0] | ((h0 << 8) & 0x700)], grid[qs[1] | ((h0 << 4) & 0x700)]);
  *hi = wasm_i64x2_make(grid[qs[2] | ((h1 << 8) & 0x700)], grid[qs[3] | ((h1 << 4) & 0x700)]);
}

}  // namespace

float vec_dot_iq1_m_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq1_m*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum1 = 0, sum2 = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const Iq1mScales sc = scales_of(x[i]);
    const int8_t* q8 = y[i].qs;
    v128_t isum1 = wasm_i32x4_splat(0), isum2 = wasm_i32x4_splat(0);
    for (int ib = 0; ib < QK_K / 32; ++ib, q8 += 32) {
      v128_t lo, hi;
      decode_group(x[i], ib, &lo, &hi);
      const v128_t a0 = wasm_v128_load(q8), a1 = wasm_v128_load(q8 + 16);
      const v128_t ls1 = wasm_i32x4_splat(sc.scale(ib, 0)), ls2 = wasm_i32x4_splat(sc.scale(ib, 1));
      isum1 = wasm_i32x4_add(isum1, wasm_i32x4_add(wasm_i32x4_mul(simd::dot_i8x16(lo, a0), ls1),
                                                   wasm_i32x4_mul(simd::dot_i8x16(hi, a1), ls2)));
      // The shifts: pair sums of the activations (lanes 0-3: the first 8)
      // times +-1 per 8.
      const uint32_t h0 = x[i].qh[2 * ib], h1 = x[i].qh[2 * ib + 1];
      const v128_t d0 = wasm_i64x2_make(signs16(h0 & 0x08), signs16(h0 & 0x80));
      const v128_t d1 = wasm_i64x2_make(signs16(h1 & 0x08), signs16(h1 & 0x80));
      isum2 = wasm_i32x4_add(isum2, wasm_i32x4_add(wasm_i32x4_mul(wasm_i32x4_dot_i16x8(wasm_i16x8_extadd_pairwise_i8x16(a0), d0), ls1),
                                                   wasm_i32x4_mul(wasm_i32x4_dot_i16x8(wasm_i16x8_extadd_pairwise_i8x16(a1), d1), ls2)));
    }
    const float d = fp16_to_fp32_fast(sc.d()) * y[i].d;
    sum1 += d * static_cast<float>(simd::hsum_i32(isum1));
    sum2 += d * static_cast<float>(simd::hsum_i32(isum2));
  }
  return sum1 + kIq1Delta * sum2;
}

// For the relaxed kernels, their constants, read through simd::unseen (so
// that the multiplies stay multiplies).
struct Iq1mLanes {
  int16_t index_mul[8];   // qh[k] in uint16 lanes 2k, 2k + 1 times these: each nibble's index bits at 11-13
  int16_t scale_mul[8];   // sc[m / 4] times these: scale m's 3 bits at 9-11
  uint8_t shifts[4][16];  // by a qh byte's delta bits (3, 7): bytes 2 where the delta is +1/8, 0 where -1/8
};

alignas(16) constexpr Iq1mLanes kIq1mLanes = [] {
  Iq1mLanes t{};
  for (int k = 0; k < 8; ++k) {
    t.index_mul[k] = static_cast<int16_t>(k % 2 ? 128 : 2048);
    t.scale_mul[k] = static_cast<int16_t>(512 >> 3 * (k % 4));
  }
  for (int s = 0; s < 4; ++s)
    for (int j = 0; j < 16; ++j) t.shifts[s][j] = (s >> (j / 8)) & 1 ? 0 : 2;
  return t;
}();

// A block's 32 grid entries as byte offsets into kIq1sGridPlus1 (8 x index:
// qs[k] times 8 with bits 4(k % 2)..+2 of qh[k / 2] at bits 11-13), 8 at a
// time; its 16 scales (one per 16 weights, 2s + 1); and per 16 weights the
// shifts as dot operands, a row of kIq1mLanes.shifts found by its byte
// offset (qh[m] bit 3 to bit 4, bit 7 to bit 5).
struct Iq1mIndex {
  alignas(16) uint16_t off[QK_K / 8];
  alignas(16) uint8_t shift_row[QK_K / 16];
  v128_t ls[2];  // scales of weights 16m..16m + 15: m = 0-7, 8-15
  const Iq1mLanes* lanes;
  Iq1mIndex(const block_iq1_m& b, const Iq1mLanes* c) : lanes(c) {
    const v128_t qh = wasm_v128_load(b.qh);
    const v128_t zero = wasm_i8x16_splat(0), qs0 = wasm_v128_load(b.qs), qs1 = wasm_v128_load(b.qs + 16);
    const v128_t h[4] = {wasm_i8x16_shuffle(qh, zero, 0, 16, 0, 16, 1, 16, 1, 16, 2, 16, 2, 16, 3, 16, 3, 16),
                         wasm_i8x16_shuffle(qh, zero, 4, 16, 4, 16, 5, 16, 5, 16, 6, 16, 6, 16, 7, 16, 7, 16),
                         wasm_i8x16_shuffle(qh, zero, 8, 16, 8, 16, 9, 16, 9, 16, 10, 16, 10, 16, 11, 16, 11, 16),
                         wasm_i8x16_shuffle(qh, zero, 12, 16, 12, 16, 13, 16, 13, 16, 14, 16, 14, 16, 15, 16, 15, 16)};
    const v128_t lo[4] = {wasm_u16x8_extend_low_u8x16(qs0), wasm_u16x8_extend_high_u8x16(qs0),
                          wasm_u16x8_extend_low_u8x16(qs1), wasm_u16x8_extend_high_u8x16(qs1)};
    const v128_t mul = wasm_v128_load(c->index_mul), bits = wasm_i16x8_splat(0x3800);
    for (int j = 0; j < 4; ++j)
      wasm_v128_store(off + 8 * j, wasm_v128_or(wasm_i16x8_shl(lo[j], 3), wasm_v128_and(wasm_i16x8_mul(h[j], mul), bits)));
    wasm_v128_store(shift_row, wasm_v128_or(wasm_v128_and(wasm_i16x8_shl(qh, 1), wasm_i8x16_splat(0x10)),
                                            wasm_v128_and(wasm_u16x8_shr(qh, 2), wasm_i8x16_splat(0x20))));
    const v128_t sc = wasm_v128_load64_zero(b.scales), smul = wasm_v128_load(c->scale_mul);
    const v128_t s[2] = {wasm_i16x8_shuffle(sc, sc, 0, 0, 0, 0, 1, 1, 1, 1), wasm_i16x8_shuffle(sc, sc, 2, 2, 2, 2, 3, 3, 3, 3)};
    for (int k = 0; k < 2; ++k)
      ls[k] = wasm_i16x8_add(wasm_i16x8_shl(wasm_v128_and(wasm_u16x8_shr(wasm_i16x8_mul(s[k], smul), 9), wasm_i16x8_splat(7)), 1),
                             wasm_i16x8_splat(1));
  }
  // Weights 16m..16m + 15: their grid values plus 1 as int8.
  v128_t levels(int m) const { return simd::iq_grid_pair(kIq1sGridPlus1.data(), off, m); }
  // Weights 16m..16m + 15: their shifts' signs plus 1, as bytes 0 or 2.
  v128_t shifts(int m) const { return wasm_v128_load(lanes->shifts[0] + shift_row[m]); }
  v128_t scale(int m, const simd::SplatIndices& t = simd::kSplatIndices) const { return simd::splat_i16_lane(ls[m / 8], m % 8, t); }
  v128_t scales_lo() const { return ls[0]; }
  v128_t scales_hi() const { return ls[1]; }
};

// With relaxed SIMD, one token: the sums of the token kernel below (the
// same bits), 16 weights at a time, its float end as the reference's.
float vec_dot_iq1_m_q8_K_relaxed(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq1_m*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const Iq1mLanes* lanes = simd::unseen(&kIq1mLanes);
  const simd::SplatIndices* splat = simd::unseen(&simd::kSplatIndices);
  float sum1 = 0, sum2 = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const Iq1mIndex b(x[i], lanes);
    const int8_t* q8 = y[i].qs;
    v128_t isum1 = wasm_i32x4_splat(0), isum2 = wasm_i32x4_splat(0);
#pragma clang loop unroll(full)
    for (int m = 0; m < QK_K / 16; ++m, q8 += 16) {
      const v128_t q = wasm_v128_load(q8), sc = b.scale(m, *splat);
      isum1 = wasm_i32x4_add(isum1, wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(q, b.levels(m)), sc));
      isum2 = wasm_i32x4_add(isum2, wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(q, b.shifts(m)), sc));
    }
    const v128_t offsets = simd::scaled_bsums(b.scales_lo(), b.scales_hi(), y[i].bsums);
    const float d = fp16_to_fp32_fast(scales_of(x[i]).d()) * y[i].d;
    sum1 += d * static_cast<float>(simd::hsum_i32(wasm_i32x4_sub(isum1, offsets)));
    sum2 += d * static_cast<float>(simd::hsum_i32(wasm_i32x4_sub(isum2, offsets)));
  }
  return sum1 + kIq1Delta * sum2;
}

// With relaxed SIMD, 1 to kMaxWideTokens tokens of int8 Q8_K activations,
// each block decoded once for all of them. Per 16 weights, the grid values
// plus 1 (0..2) and the shifts' signs plus 1 (0, 2) are each the 7-bit
// operand of an 8-bit dot with the activations, scaled by the 16's scale;
// the 1 of both comes off as the scales times the block's sums of 16. The
// reference's integer sums; the float ends in quads of tokens.
void vec_dot_iq1_m_q8_K_tokens_relaxed(int64_t n, const void* w, const void* activations, int64_t act_stride,
                                       int n_tokens, float* out, int64_t out_stride) {
  const auto* x = static_cast<const block_iq1_m*>(w);
  const auto* a = static_cast<const uint8_t*>(activations);
  v128_t sum1[kMaxWideTokens / 4], sum2[kMaxWideTokens / 4], isum1[kMaxWideTokens], isum2[kMaxWideTokens];
  simd::start_quads(sum1, n_tokens, {isum1, isum2});
  simd::start_quads(sum2, n_tokens, {});
  const Iq1mLanes* lanes = simd::unseen(&kIq1mLanes);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const Iq1mIndex b(x[i], lanes);
    for (int ib = 0; ib < QK_K / 32; ++ib) {
      v128_t g[2], dl[2], sc[2];  // 32 weights: 2 x 16 levels plus 1, shifts and scales
      for (int h = 0; h < 2; ++h) {
        g[h] = b.levels(2 * ib + h);
        dl[h] = b.shifts(2 * ib + h);
        sc[h] = b.scale(2 * ib + h);
      }
      const uint8_t* q8 = a + i * sizeof(block_q8_K) + offsetof(block_q8_K, qs) + 32 * ib;
#pragma clang loop unroll(disable)
      for (int t = 0; t < n_tokens; ++t, q8 += act_stride) {
        const v128_t q0 = wasm_v128_load(q8), q1 = wasm_v128_load(q8 + 16);
        const v128_t s1 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(q0, g[0]), sc[0]),
                                         wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(q1, g[1]), sc[1]));
        const v128_t s2 = wasm_i32x4_add(wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(q0, dl[0]), sc[0]),
                                         wasm_i32x4_dot_i16x8(simd::relaxed_dot_i8x16_i7x16(q1, dl[1]), sc[1]));
        isum1[t] = ib ? wasm_i32x4_add(isum1[t], s1) : s1;
        isum2[t] = ib ? wasm_i32x4_add(isum2[t], s2) : s2;
      }
    }
    simd::for_tokens(n_tokens, a + i * sizeof(block_q8_K), act_stride, [&](int t, const uint8_t* row) {
      const int16_t* bsums = reinterpret_cast<const block_q8_K*>(row)->bsums;
      const v128_t offsets = simd::scaled_bsums(b.scales_lo(), b.scales_hi(), bsums);
      isum1[t] = wasm_i32x4_sub(isum1[t], offsets);
      isum2[t] = wasm_i32x4_sub(isum2[t], offsets);
    });
    const float d = fp16_to_fp32_fast(scales_of(x[i]).d());
    simd::add_block_d(sum1, n_tokens, isum1, d, a, act_stride, i);
    simd::add_block_d(sum2, n_tokens, isum2, d, a, act_stride, i);
  }
  simd::store_quads_plus(sum1, sum2, kIq1Delta, n_tokens, out, out_stride);
}

// Against int16 activations: each half group's grid values widened and
// multiplied by its scale in int16, shared by the tokens; the shifts' part a
// dot of each 8 activations with their +-scale.
void vec_dot_iq1_m_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                         int64_t out_stride) {
  const auto* x = static_cast<const block_iq1_m*>(w);
  simd::dispatch_tokens(n_tokens, [&](auto nt) {
    constexpr int T = decltype(nt)::value;
    const block_q8_Kw* y[T];
    simd::token_rows(a, act_stride, y);
    float sum1[T] = {}, sum2[T] = {};
    for (int64_t i = 0; i < n / QK_K; ++i) {
      const Iq1mScales sc = scales_of(x[i]);
      v128_t isum1[T], isum2[T];
      for (int t = 0; t < T; ++t) isum1[t] = isum2[t] = wasm_i32x4_splat(0);
      for (int ib = 0; ib < QK_K / 32; ++ib) {
        v128_t lo, hi;
        decode_group(x[i], ib, &lo, &hi);
        const int16_t l1 = static_cast<int16_t>(sc.scale(ib, 0)), l2 = static_cast<int16_t>(sc.scale(ib, 1));
        const v128_t ls1 = wasm_i16x8_splat(l1), ls2 = wasm_i16x8_splat(l2);
        const v128_t w0 = wasm_i16x8_mul(wasm_i16x8_extend_low_i8x16(lo), ls1);
        const v128_t w1 = wasm_i16x8_mul(wasm_i16x8_extend_high_i8x16(lo), ls1);
        const v128_t w2 = wasm_i16x8_mul(wasm_i16x8_extend_low_i8x16(hi), ls2);
        const v128_t w3 = wasm_i16x8_mul(wasm_i16x8_extend_high_i8x16(hi), ls2);
        const uint32_t h0 = x[i].qh[2 * ib], h1 = x[i].qh[2 * ib + 1];
        const v128_t c0 = wasm_i16x8_splat(static_cast<int16_t>(h0 & 0x08 ? -l1 : l1));
        const v128_t c1 = wasm_i16x8_splat(static_cast<int16_t>(h0 & 0x80 ? -l1 : l1));
        const v128_t c2 = wasm_i16x8_splat(static_cast<int16_t>(h1 & 0x08 ? -l2 : l2));
        const v128_t c3 = wasm_i16x8_splat(static_cast<int16_t>(h1 & 0x80 ? -l2 : l2));
        for (int t = 0; t < T; ++t) {
          const int16_t* q = y[t][i].qs + 32 * ib;
          isum1[t] = wasm_i32x4_add(isum1[t], simd::dot_i16x32(w0, w1, w2, w3, q));
          isum2[t] = wasm_i32x4_add(isum2[t], simd::dot_i16x32(c0, c1, c2, c3, q));
        }
      }
      const float dx = fp16_to_fp32_fast(sc.d());
      for (int t = 0; t < T; ++t) {
        const float d = dx * y[t][i].d;
        sum1[t] += d * static_cast<float>(simd::hsum_i32(isum1[t]));
        sum2[t] += d * static_cast<float>(simd::hsum_i32(isum2[t]));
      }
    }
    for (int t = 0; t < T; ++t) out[t * out_stride] = sum1[t] + kIq1Delta * sum2[t];
  });
}
#endif

}  // namespace wasmlm
