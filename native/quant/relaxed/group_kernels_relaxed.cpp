// The 32-weight types with unsigned levels on the relaxed group kernel
// (group_kernel_relaxed.h): how each one's levels, scale and min unpack.
// MXFP4's levels are signed (-12..12): looked up plus 12 (a relaxed swizzle),
// they are unsigned; Q8_0's bytes plus 128 are, on the dot-adds alone.
// (Not Q5_1: its one-token kernel came out slower than SIMD-128's.)
#include "quant/relaxed/relaxed_kernels.h"
#ifdef __wasm_simd128__

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/relaxed/group_kernel_relaxed.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

inline void nibbles(const uint8_t* qs, v128_t* lo, v128_t* hi) {
  const v128_t v = wasm_v128_load(qs);
  *lo = wasm_v128_and(v, wasm_i8x16_splat(0x0F));
  *hi = simd::high_nibbles(v);
}

// Nibbles plus the 5th bits from qh (bit j: weight j): byte j / 8 of qh
// in byte j (a relaxed swizzle), bit j % 8 tested. All vector: the table
// lookups of q5_high_bits (scalar index work, 4 loads) cost more here. The
// bit masks are opaque: else clang turns (b & bit) == bit into
// (b & bit) != 0, which V8 spells in three instructions.
inline void nibbles5(const uint8_t* qs, const uint8_t* qh, v128_t* lo, v128_t* hi) {
  const v128_t bits = wasm_v128_load32_splat(qh);
  const v128_t bit = simd::opaque(wasm_u64x2_splat(0x8040201008040201)), five = wasm_i8x16_splat(0x10);
  const v128_t b_lo = simd::relaxed_swizzle(bits, wasm_u8x16_make(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
  const v128_t b_hi = simd::relaxed_swizzle(bits, wasm_u8x16_make(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
  nibbles(qs, lo, hi);
  *lo = wasm_v128_or(*lo, wasm_v128_and(wasm_i8x16_eq(wasm_v128_and(b_lo, bit), bit), five));
  *hi = wasm_v128_or(*hi, wasm_v128_and(wasm_i8x16_eq(wasm_v128_and(b_hi, bit), bit), five));
}

struct Q4_0Levels {
  using Block = block_q4_0;
  static constexpr int kOffset = kQ4_0LevelOffset;  // w = d (q - 8)
  static constexpr int kMaxLevel = 15;
  static void levels(const Block& b, v128_t* lo, v128_t* hi) { nibbles(b.qs, lo, hi); }
  static const float* scale_at(const Block& b) { return kFp16Table + b.d; }

  // Rows in quads (QuantTraits::quad_layout): the 4 rows' d, then their qs
  // interleaved 4 bytes at a time, so that 16 bytes hold the 4 rows' nibbles
  // of the same 4 weights (low) and of the 4 sixteen places on (high).
  struct Quad {
    uint16_t d[kTileRows];
    uint8_t qs[kTileRows * QK4_0 / 2];
  };
  static_assert(sizeof(Quad) == kTileRows * sizeof(block_q4_0), "a quad takes its rows' bytes");
  template <int H>
  static v128_t quad_levels(const Quad& q, int g) {
    const v128_t v = wasm_v128_load(q.qs + 16 * g);
    return H ? simd::high_nibbles(v) : wasm_v128_and(v, wasm_i8x16_splat(0x0F));
  }
  static const float* quad_scale_at(const Quad& q, int r) { return kFp16Table + q.d[r]; }
};

struct Q5_0Levels {
  using Block = block_q5_0;
  static constexpr int kOffset = kQ5_0LevelOffset;  // w = d (q - 16)
  static constexpr int kMaxLevel = 31;
  static void levels(const Block& b, v128_t* lo, v128_t* hi) { nibbles5(b.qs, b.qh, lo, hi); }
  static const float* scale_at(const Block& b) { return kFp16Table + b.d; }
};

struct Q4_1Levels {
  using Block = block_q4_1;
  static constexpr int kOffset = 0;  // w = d q + m
  static constexpr int kMaxLevel = 15;
  static void levels(const Block& b, v128_t* lo, v128_t* hi) { nibbles(b.qs, lo, hi); }
  static const float* scale_at(const Block& b) { return kFp16Table + b.d; }
  static const float* min_at(const Block& b) { return kFp16Table + b.m; }
};

struct MxFp4Levels {
  using Block = block_mxfp4;
  static constexpr int kOffset = kMxfp4LevelOffset;  // kValuesMxfp4 spans -12..12
  static constexpr int kMaxLevel = 24;
  struct Table {
    alignas(16) int8_t v[16];
  };
  static constexpr Table kLevels = [] {
    Table t{};
    for (int i = 0; i < 16; ++i) t.v[i] = static_cast<int8_t>(kValuesMxfp4[i] + kOffset);
    return t;
  }();
  static void levels(const Block& b, v128_t* lo, v128_t* hi) {
    const v128_t table = wasm_v128_load(kLevels.v);
    nibbles(b.qs, lo, hi);
    *lo = simd::relaxed_swizzle(table, *lo);
    *hi = simd::relaxed_swizzle(table, *hi);
  }
  static const float* scale_at(const Block& b) { return kE8m0HalfTable + b.e; }
};

// Q8_0's signed bytes q as q + 128 (q ^ 0x80), the unsigned bytes the
// dot-adds read where relaxed_dot_add_unsigned(); the offset comes off with
// 128 times the activations' sums. The integer dots are the reference's,
// and the float end is the SIMD-128 kernel's (vec_dot_q8_0_q8_0w).
struct Q8_0Levels {
  using Block = block_q8_0;
  static constexpr int kOffset = kQ8_0LevelOffset;
  static constexpr int kMaxLevel = 255;
  static void levels(const Block& b, v128_t* lo, v128_t* hi) {
    const v128_t flip = wasm_i8x16_splat(-128);
    *lo = wasm_v128_xor(wasm_v128_load(b.qs), flip);
    *hi = wasm_v128_xor(wasm_v128_load(b.qs + 16), flip);
  }
  static const float* scale_at(const Block& b) { return kFp16Table + b.d; }
};

}  // namespace

#define WASMLM_DEFINE_RELAXED_GROUP_DOT(name, Levels)                                                              \
  void vec_dot_##name##_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out, \
                                int64_t out_stride) {                                                              \
    simd::RelaxedGroups<Levels>::dot(n, w, a, act_stride, n_tokens, out, out_stride);                              \
  }                                                                                                                \
  void vec_dot_##name##_tile_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,         \
                                     int64_t act_stride, int n_tokens, float* out, int64_t out_stride) {           \
    simd::RelaxedGroups<Levels>::tile(n, w, row_bytes, n_rows, a, act_stride, n_tokens, out, out_stride);          \
  }
WASMLM_DEFINE_RELAXED_GROUP_DOT(q4_0_q8_0g, Q4_0Levels)
WASMLM_DEFINE_RELAXED_GROUP_DOT(q5_0_q8_0g, Q5_0Levels)
WASMLM_DEFINE_RELAXED_GROUP_DOT(q4_1_q8_1g, Q4_1Levels)
WASMLM_DEFINE_RELAXED_GROUP_DOT(mxfp4_q8_0g, MxFp4Levels)
WASMLM_DEFINE_RELAXED_GROUP_DOT(q8_0_q8_0g, Q8_0Levels)
#undef WASMLM_DEFINE_RELAXED_GROUP_DOT

void vec_dot_q4_0_q8_0g_quads_relaxed(int64_t n, const void* w, int64_t, int n_rows, const void* a, int64_t act_stride,
                                      int n_tokens, float* out, int64_t out_stride) {
  simd::RelaxedGroups<Q4_0Levels>::quads<Q4_0Levels::Quad>(n, w, n_rows, a, act_stride, n_tokens, out, out_stride);
}

}  // namespace wasmlm
#endif
