// IQ1_M: 256 weights in 16 groups of 16, each group 2 grid entries of 8
// values in {-1, 0, 1} (kIq1sGrid, 11-bit indices) each with its shift of
// +-1/8, and a 3-bit scale s: w = d * (2s + 1) * (grid + delta). The block's
// fp16 d is spread over the top nibbles of its scales.
#include <cstring>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq1_grid.h"
#include "quant/quant_types.h"
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
