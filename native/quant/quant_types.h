// Per-type row functions. Each type's code lives in types/<type>.cpp.
// n is the number of elements: a whole number of the type's blocks.
#pragma once

#include <cstdint>

namespace wasmlm {

#define WASMLM_DECLARE_DEQUANT(name) void dequantize_row_##name(const void* src, float* dst, int64_t n);
WASMLM_DECLARE_DEQUANT(f32)
WASMLM_DECLARE_DEQUANT(f16)
WASMLM_DECLARE_DEQUANT(bf16)
WASMLM_DECLARE_DEQUANT(q4_0)
WASMLM_DECLARE_DEQUANT(q4_1)
WASMLM_DECLARE_DEQUANT(q5_0)
WASMLM_DECLARE_DEQUANT(q5_1)
WASMLM_DECLARE_DEQUANT(q8_0)
WASMLM_DECLARE_DEQUANT(q8_1)
WASMLM_DECLARE_DEQUANT(q2_K)
WASMLM_DECLARE_DEQUANT(q3_K)
WASMLM_DECLARE_DEQUANT(q4_K)
WASMLM_DECLARE_DEQUANT(q5_K)
WASMLM_DECLARE_DEQUANT(q6_K)
WASMLM_DECLARE_DEQUANT(q8_K)
WASMLM_DECLARE_DEQUANT(iq4_nl)
WASMLM_DECLARE_DEQUANT(iq4_xs)
WASMLM_DECLARE_DEQUANT(iq3_xxs)
WASMLM_DECLARE_DEQUANT(iq3_s)
WASMLM_DECLARE_DEQUANT(iq1_s)
WASMLM_DECLARE_DEQUANT(iq1_m)
WASMLM_DECLARE_DEQUANT(iq2_xxs)
WASMLM_DECLARE_DEQUANT(iq2_xs)
WASMLM_DECLARE_DEQUANT(iq2_s)
WASMLM_DECLARE_DEQUANT(tq1_0)
WASMLM_DECLARE_DEQUANT(tq2_0)
WASMLM_DECLARE_DEQUANT(mxfp4)
#undef WASMLM_DECLARE_DEQUANT

// Reference quantizers (ggml's quantize_row_*_ref): x has n floats.
#define WASMLM_DECLARE_QUANT(name) void quantize_row_##name(const float* x, void* dst, int64_t n);
WASMLM_DECLARE_QUANT(q4_0)
WASMLM_DECLARE_QUANT(q4_1)
WASMLM_DECLARE_QUANT(q5_0)
WASMLM_DECLARE_QUANT(q5_1)
WASMLM_DECLARE_QUANT(q8_0)
WASMLM_DECLARE_QUANT(q8_1)
WASMLM_DECLARE_QUANT(q4_K)
WASMLM_DECLARE_QUANT(q5_K)
WASMLM_DECLARE_QUANT(q6_K)
WASMLM_DECLARE_QUANT(q8_K)
WASMLM_DECLARE_QUANT(iq4_nl)
WASMLM_DECLARE_QUANT(tq1_0)
WASMLM_DECLARE_QUANT(tq2_0)
WASMLM_DECLARE_QUANT(mxfp4)
WASMLM_DECLARE_QUANT(f16)
WASMLM_DECLARE_QUANT(bf16)
WASMLM_DECLARE_QUANT(f32)
#undef WASMLM_DECLARE_QUANT

// Reference dot products of one weight row with activations already
// quantized to the type's vec_dot type (see quant_traits.cpp); n elements.
#define WASMLM_DECLARE_DOT(name) float vec_dot_##name(int64_t n, const void* w, const void* a);
WASMLM_DECLARE_DOT(f32_f32)
WASMLM_DECLARE_DOT(f16_f32)
WASMLM_DECLARE_DOT(bf16_f32)
WASMLM_DECLARE_DOT(q4_0_q8_0)
WASMLM_DECLARE_DOT(q4_1_q8_1)
WASMLM_DECLARE_DOT(q5_0_q8_0)
WASMLM_DECLARE_DOT(q5_1_q8_1)
WASMLM_DECLARE_DOT(q8_0_q8_0)
WASMLM_DECLARE_DOT(iq4_nl_q8_0)
WASMLM_DECLARE_DOT(mxfp4_q8_0)
WASMLM_DECLARE_DOT(q2_K_q8_K)
WASMLM_DECLARE_DOT(q3_K_q8_K)
WASMLM_DECLARE_DOT(q4_K_q8_K)
WASMLM_DECLARE_DOT(q5_K_q8_K)
WASMLM_DECLARE_DOT(q6_K_q8_K)
WASMLM_DECLARE_DOT(iq4_xs_q8_K)
WASMLM_DECLARE_DOT(iq3_xxs_q8_K)
WASMLM_DECLARE_DOT(iq3_s_q8_K)
WASMLM_DECLARE_DOT(iq1_s_q8_K)
WASMLM_DECLARE_DOT(iq1_m_q8_K)
WASMLM_DECLARE_DOT(iq2_xxs_q8_K)
WASMLM_DECLARE_DOT(iq2_xs_q8_K)
WASMLM_DECLARE_DOT(iq2_s_q8_K)
WASMLM_DECLARE_DOT(tq1_0_q8_K)
WASMLM_DECLARE_DOT(tq2_0_q8_K)
#ifdef __wasm_simd128__
// SIMD-128 versions of the same dot products, checked against the scalar ones.
WASMLM_DECLARE_DOT(f32_f32_simd)
WASMLM_DECLARE_DOT(f16_f32_simd)
WASMLM_DECLARE_DOT(bf16_f32_simd)
WASMLM_DECLARE_DOT(q4_0_q8_0_simd)
WASMLM_DECLARE_DOT(q4_1_q8_1_simd)
WASMLM_DECLARE_DOT(q5_0_q8_0_simd)
WASMLM_DECLARE_DOT(q5_1_q8_1_simd)
WASMLM_DECLARE_DOT(q8_0_q8_0_simd)
WASMLM_DECLARE_DOT(iq4_nl_q8_0_simd)
WASMLM_DECLARE_DOT(mxfp4_q8_0_simd)
WASMLM_DECLARE_DOT(q2_K_q8_K_simd)
WASMLM_DECLARE_DOT(q3_K_q8_K_simd)
WASMLM_DECLARE_DOT(q4_K_q8_K_simd)
WASMLM_DECLARE_DOT(q5_K_q8_K_simd)
WASMLM_DECLARE_DOT(q6_K_q8_K_simd)
WASMLM_DECLARE_DOT(iq4_xs_q8_K_simd)
WASMLM_DECLARE_DOT(iq3_xxs_q8_K_simd)
WASMLM_DECLARE_DOT(iq3_s_q8_K_simd)
WASMLM_DECLARE_DOT(iq1_s_q8_K_simd)
WASMLM_DECLARE_DOT(iq1_m_q8_K_simd)
WASMLM_DECLARE_DOT(iq2_xxs_q8_K_simd)
WASMLM_DECLARE_DOT(iq2_xs_q8_K_simd)
WASMLM_DECLARE_DOT(iq2_s_q8_K_simd)
WASMLM_DECLARE_DOT(tq1_0_q8_K_simd)
WASMLM_DECLARE_DOT(tq2_0_q8_K_simd)
// SIMD-128 quantizers of activations: the same bytes as the reference ones.
void quantize_row_q8_0_simd(const float* x, void* dst, int64_t n);
void quantize_row_q8_K_simd(const float* x, void* dst, int64_t n);
#endif
#undef WASMLM_DECLARE_DOT

// Weights against activations widened to int16 (wide_activations.h), for 1 to
// QuantTraits::wide_tokens (at most kMaxWideTokens) tokens sharing one pass
// over the weight row: out[t * out_stride] = dot(w, (bytes) a + t * act_stride).
constexpr int kMaxWideTokens = 16;
#ifdef __wasm_simd128__
#define WASMLM_DECLARE_WIDE_DOT(name)                                                                 \
  void vec_dot_##name(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out, \
                      int64_t out_stride);
WASMLM_DECLARE_WIDE_DOT(q4_0_q8_0w)
WASMLM_DECLARE_WIDE_DOT(q5_0_q8_0w)
WASMLM_DECLARE_WIDE_DOT(iq4_nl_q8_0w)
WASMLM_DECLARE_WIDE_DOT(mxfp4_q8_0w)
WASMLM_DECLARE_WIDE_DOT(tq1_0_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(tq2_0_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(f16_f32w)
WASMLM_DECLARE_WIDE_DOT(bf16_f32w)
WASMLM_DECLARE_WIDE_DOT(q4_1_q8_1w)
WASMLM_DECLARE_WIDE_DOT(q5_1_q8_1w)
WASMLM_DECLARE_WIDE_DOT(q8_0_q8_0w)
WASMLM_DECLARE_WIDE_DOT(q2_K_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(q3_K_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(iq4_xs_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(q4_K_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(q5_K_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(q6_K_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(iq3_xxs_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(iq3_s_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(iq1_s_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(iq1_m_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(iq2_xxs_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(iq2_xs_q8_Kw)
WASMLM_DECLARE_WIDE_DOT(iq2_s_q8_Kw)
#undef WASMLM_DECLARE_WIDE_DOT
#endif

}  // namespace wasmlm
