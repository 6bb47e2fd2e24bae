// Kernels over relaxed SIMD's 8-bit dot product (see relaxed_simd.h), used in
// place of the SIMD-128 ones when relaxed_simd_active(). The one-token ones
// have the signatures and bits of the kernels they replace.
#pragma once
#include <cstdint>

namespace wasmlm {

#ifdef __wasm_simd128__
float vec_dot_q2_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_q3_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_q4_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_tq1_0_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_tq2_0_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_q5_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_q6_K_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_iq2_xxs_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_iq2_xs_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_iq2_s_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_iq3_xxs_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_iq3_s_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_iq4_xs_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_iq1_s_q8_K_relaxed(int64_t n, const void* w, const void* a);
float vec_dot_iq1_m_q8_K_relaxed(int64_t n, const void* w, const void* a);
// TQ1_0, TQ2_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, the IQ1, IQ2 and IQ3 types, IQ4_XS: 1
// to kMaxWideTokens tokens against Q8_K activations as they are
// (QuantTraits::vec_dot_wide, WideForm::Q8_KAsIs), the bits of the one-token
// kernels above.
#define WASMLM_DECLARE_RELAXED_TOKENS_DOT(type)                                                                \
  void vec_dot_##type##_q8_K_tokens_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, \
                                            float* out, int64_t out_stride);
WASMLM_DECLARE_RELAXED_TOKENS_DOT(tq1_0)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(tq2_0)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(q2_K)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(q3_K)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(q4_K)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(q5_K)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(q6_K)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(iq2_xxs)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(iq2_xs)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(iq2_s)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(iq3_xxs)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(iq3_s)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(iq4_xs)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(iq1_s)
WASMLM_DECLARE_RELAXED_TOKENS_DOT(iq1_m)
#undef WASMLM_DECLARE_RELAXED_TOKENS_DOT
// Q4_K, Q5_K: up to 4 rows at once (QuantTraits::vec_dot_tile), the same
// bits per row (k_pair_relaxed.h).
void vec_dot_q4_K_q8_K_tile_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                                    int64_t act_stride, int n_tokens, float* out, int64_t out_stride);
void vec_dot_q5_K_q8_K_tile_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                                    int64_t act_stride, int n_tokens, float* out, int64_t out_stride);
// Q4_0, Q4_K, Q5_K: a row quad (QuantTraits::vec_dot_quads; row_bytes
// unused) against 1 to kMaxWideTokens tokens, each row the bits of its
// type's kernels for rows (Q4_0: the group kernel's, below).
void vec_dot_q4_0_q8_0g_quads_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                                      int64_t act_stride, int n_tokens, float* out, int64_t out_stride);
void vec_dot_q4_K_q8_K_quads_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                                     int64_t act_stride, int n_tokens, float* out, int64_t out_stride);
// The same bits where relaxed_dot_add_unsigned() (one token reads the high
// nibbles in place: a mask instead of a shift and a mask).
void vec_dot_q4_K_q8_K_quads_unsigned_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                                              int64_t act_stride, int n_tokens, float* out, int64_t out_stride);
void vec_dot_q5_K_q8_K_quads_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,
                                     int64_t act_stride, int n_tokens, float* out, int64_t out_stride);

// The levels' offsets of the 32-weight types below (w = d (level - offset);
// Q4_1 has a min instead), which group_q8_0r's activations bake in.
inline constexpr int kQ4_0LevelOffset = 8, kQ5_0LevelOffset = 16, kMxfp4LevelOffset = 12, kQ8_0LevelOffset = 128;

// The 32-weight types with unsigned levels (MXFP4: offset) against grouped int8 activations
// (group_q8_0r, group_q8_1r in wide_activations.h), 1 to kMaxWideTokens
// tokens per pass (QuantTraits::vec_dot_wide; group_kernel_relaxed.h).
// vec_dot_*_tile_relaxed: up to 4 rows at once (QuantTraits::vec_dot_tile), the
// same bits per row.
#define WASMLM_DECLARE_RELAXED_GROUP_DOT(name)                                                                   \
  void vec_dot_##name##_relaxed(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out, \
                                int64_t out_stride);                                                             \
  void vec_dot_##name##_tile_relaxed(int64_t n, const void* w, int64_t row_bytes, int n_rows, const void* a,        \
                                     int64_t act_stride, int n_tokens, float* out, int64_t out_stride);
WASMLM_DECLARE_RELAXED_GROUP_DOT(q4_0_q8_0g)
WASMLM_DECLARE_RELAXED_GROUP_DOT(q5_0_q8_0g)
WASMLM_DECLARE_RELAXED_GROUP_DOT(q4_1_q8_1g)
WASMLM_DECLARE_RELAXED_GROUP_DOT(mxfp4_q8_0g)
WASMLM_DECLARE_RELAXED_GROUP_DOT(q8_0_q8_0g)  // only where relaxed_dot_add_unsigned()
#undef WASMLM_DECLARE_RELAXED_GROUP_DOT
#endif

}  // namespace wasmlm
