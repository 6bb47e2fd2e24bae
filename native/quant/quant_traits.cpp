#include "quant/quant_traits.h"

#include <initializer_list>

#include "quant/blocks.h"
#include "quant/k_scales.h"
#include "quant/quant_types.h"
#include "quant/relaxed/relaxed_kernels.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

// Layout sizes must match the registry's bytes per block.
static_assert(sizeof(block_q4_0) == 18 && sizeof(block_q4_1) == 20 && sizeof(block_q5_0) == 22 &&
              sizeof(block_q5_1) == 24 && sizeof(block_q8_0) == 34 && sizeof(block_q8_1) == 36);
static_assert(sizeof(block_q2_K) == 84 && sizeof(block_q3_K) == 110 && sizeof(block_q4_K) == 144 &&
              sizeof(block_q5_K) == 176 && sizeof(block_q6_K) == 210 && sizeof(block_q8_K) == 292);
static_assert(sizeof(block_iq4_nl) == 18 && sizeof(block_iq4_xs) == 136);
static_assert(sizeof(block_iq2_xxs) == 66 && sizeof(block_iq2_xs) == 74 && sizeof(block_iq2_s) == 82);
static_assert(sizeof(block_iq3_xxs) == 98 && sizeof(block_iq3_s) == 110 && sizeof(block_iq1_s) == 50 &&
              sizeof(block_iq1_m) == 56);
static_assert(sizeof(block_tq1_0) == 54 && sizeof(block_tq2_0) == 66 && sizeof(block_mxfp4) == 17);

#ifdef __wasm_simd128__
#define DOT(f) f##_simd
#else
#define DOT(f) f
#endif

QuantTraits make(GgmlType type) {
  switch (type) {
    case GgmlType::F32: return {type, dequantize_row_f32, quantize_row_f32, DOT(vec_dot_f32_f32), vec_dot_f32_f32, GgmlType::F32};
    case GgmlType::F16: return {type, dequantize_row_f16, quantize_row_f16, DOT(vec_dot_f16_f32), vec_dot_f16_f32, GgmlType::F32};
    case GgmlType::BF16: return {type, dequantize_row_bf16, quantize_row_bf16, DOT(vec_dot_bf16_f32), vec_dot_bf16_f32, GgmlType::F32};
    case GgmlType::Q4_0: return {type, dequantize_row_q4_0, quantize_row_q4_0, DOT(vec_dot_q4_0_q8_0), vec_dot_q4_0_q8_0, GgmlType::Q8_0};
    case GgmlType::Q4_1: return {type, dequantize_row_q4_1, quantize_row_q4_1, DOT(vec_dot_q4_1_q8_1), vec_dot_q4_1_q8_1, GgmlType::Q8_1};
    case GgmlType::Q5_0: return {type, dequantize_row_q5_0, quantize_row_q5_0, DOT(vec_dot_q5_0_q8_0), vec_dot_q5_0_q8_0, GgmlType::Q8_0};
    case GgmlType::Q5_1: return {type, dequantize_row_q5_1, quantize_row_q5_1, DOT(vec_dot_q5_1_q8_1), vec_dot_q5_1_q8_1, GgmlType::Q8_1};
    case GgmlType::Q8_0: return {type, dequantize_row_q8_0, quantize_row_q8_0, DOT(vec_dot_q8_0_q8_0), vec_dot_q8_0_q8_0, GgmlType::Q8_0};
    case GgmlType::Q8_1: return {type, dequantize_row_q8_1, quantize_row_q8_1, nullptr, nullptr, GgmlType::Q8_1};
    case GgmlType::Q2_K: return {type, dequantize_row_q2_K, nullptr, DOT(vec_dot_q2_K_q8_K), vec_dot_q2_K_q8_K, GgmlType::Q8_K};
    case GgmlType::Q3_K: return {type, dequantize_row_q3_K, nullptr, DOT(vec_dot_q3_K_q8_K), vec_dot_q3_K_q8_K, GgmlType::Q8_K};
    case GgmlType::Q4_K: return {type, dequantize_row_q4_K, quantize_row_q4_K, DOT(vec_dot_q4_K_q8_K), vec_dot_q4_K_q8_K, GgmlType::Q8_K};
    case GgmlType::Q5_K: return {type, dequantize_row_q5_K, quantize_row_q5_K, DOT(vec_dot_q5_K_q8_K), vec_dot_q5_K_q8_K, GgmlType::Q8_K};
    case GgmlType::Q6_K: return {type, dequantize_row_q6_K, quantize_row_q6_K, DOT(vec_dot_q6_K_q8_K), vec_dot_q6_K_q8_K, GgmlType::Q8_K};
    case GgmlType::Q8_K: return {type, dequantize_row_q8_K, quantize_row_q8_K, nullptr, nullptr, GgmlType::Q8_K};
    case GgmlType::IQ4_NL: return {type, dequantize_row_iq4_nl, quantize_row_iq4_nl, DOT(vec_dot_iq4_nl_q8_0), vec_dot_iq4_nl_q8_0, GgmlType::Q8_0};
    case GgmlType::IQ2_XXS: return {type, dequantize_row_iq2_xxs, nullptr, DOT(vec_dot_iq2_xxs_q8_K), vec_dot_iq2_xxs_q8_K, GgmlType::Q8_K};
    case GgmlType::IQ2_XS: return {type, dequantize_row_iq2_xs, nullptr, DOT(vec_dot_iq2_xs_q8_K), vec_dot_iq2_xs_q8_K, GgmlType::Q8_K};
    case GgmlType::IQ2_S: return {type, dequantize_row_iq2_s, nullptr, DOT(vec_dot_iq2_s_q8_K), vec_dot_iq2_s_q8_K, GgmlType::Q8_K};
    case GgmlType::IQ4_XS: return {type, dequantize_row_iq4_xs, nullptr, DOT(vec_dot_iq4_xs_q8_K), vec_dot_iq4_xs_q8_K, GgmlType::Q8_K};
    case GgmlType::IQ3_XXS: return {type, dequantize_row_iq3_xxs, nullptr, DOT(vec_dot_iq3_xxs_q8_K), vec_dot_iq3_xxs_q8_K, GgmlType::Q8_K};
    case GgmlType::IQ3_S: return {type, dequantize_row_iq3_s, nullptr, DOT(vec_dot_iq3_s_q8_K), vec_dot_iq3_s_q8_K, GgmlType::Q8_K};
    case GgmlType::IQ1_S: return {type, dequantize_row_iq1_s, nullptr, DOT(vec_dot_iq1_s_q8_K), vec_dot_iq1_s_q8_K, GgmlType::Q8_K};
    case GgmlType::IQ1_M: return {type, dequantize_row_iq1_m, nullptr, DOT(vec_dot_iq1_m_q8_K), vec_dot_iq1_m_q8_K, GgmlType::Q8_K};
    case GgmlType::TQ1_0: return {type, dequantize_row_tq1_0, quantize_row_tq1_0, DOT(vec_dot_tq1_0_q8_K), vec_dot_tq1_0_q8_K, GgmlType::Q8_K};
    case GgmlType::TQ2_0: return {type, dequantize_row_tq2_0, quantize_row_tq2_0, DOT(vec_dot_tq2_0_q8_K), vec_dot_tq2_0_q8_K, GgmlType::Q8_K};
    case GgmlType::MXFP4: return {type, dequantize_row_mxfp4, quantize_row_mxfp4, DOT(vec_dot_mxfp4_q8_0), vec_dot_mxfp4_q8_0, GgmlType::Q8_0};
    default: return {type, nullptr, nullptr, nullptr, nullptr, type};
  }
}

#undef DOT

struct Table {
  QuantTraits rows[64];
  Table() {
    for (uint32_t id = 0; id < 64; ++id) {
      rows[id] = make(static_cast<GgmlType>(id));
      rows[id].wide_form = default_wide_form(rows[id].vec_dot_type);
    }
    rows[static_cast<int>(GgmlType::F16)].round_activations_to = GgmlType::F16;
    rows[static_cast<int>(GgmlType::BF16)].round_activations_to = GgmlType::BF16;
#ifdef __wasm_simd128__
    rows[static_cast<int>(GgmlType::Q4_0)].vec_dot_wide = vec_dot_q4_0_q8_0w;
    rows[static_cast<int>(GgmlType::Q5_0)].vec_dot_wide = vec_dot_q5_0_q8_0w;
    rows[static_cast<int>(GgmlType::Q5_0)].wide_one_token = false;  // the int8 kernel: 5% faster
    rows[static_cast<int>(GgmlType::IQ4_NL)].vec_dot_wide = vec_dot_iq4_nl_q8_0w;
    rows[static_cast<int>(GgmlType::IQ4_NL)].wide_one_token = false;
    rows[static_cast<int>(GgmlType::MXFP4)].vec_dot_wide = vec_dot_mxfp4_q8_0w;
    rows[static_cast<int>(GgmlType::MXFP4)].wide_one_token = false;
    rows[static_cast<int>(GgmlType::TQ1_0)].vec_dot_wide = vec_dot_tq1_0_q8_Kw;
    rows[static_cast<int>(GgmlType::TQ1_0)].wide_one_token = false;
    rows[static_cast<int>(GgmlType::TQ2_0)].vec_dot_wide = vec_dot_tq2_0_q8_Kw;
    rows[static_cast<int>(GgmlType::TQ2_0)].wide_one_token = false;
    rows[static_cast<int>(GgmlType::F16)].vec_dot_wide = vec_dot_f16_f32w;
    rows[static_cast<int>(GgmlType::BF16)].vec_dot_wide = vec_dot_bf16_f32w;
    rows[static_cast<int>(GgmlType::BF16)].wide_form = WideForm::F32AsIs;
    rows[static_cast<int>(GgmlType::Q4_1)].vec_dot_wide = vec_dot_q4_1_q8_1w;
    rows[static_cast<int>(GgmlType::Q4_1)].wide_tokens = kMaxWideTokens;
    rows[static_cast<int>(GgmlType::Q5_1)].vec_dot_wide = vec_dot_q5_1_q8_1w;
    rows[static_cast<int>(GgmlType::Q5_1)].wide_tokens = kMaxWideTokens;
    rows[static_cast<int>(GgmlType::Q8_0)].vec_dot_wide = vec_dot_q8_0_q8_0w;
    rows[static_cast<int>(GgmlType::Q8_0)].wide_form = WideForm::Q8_0WideGroups;
    rows[static_cast<int>(GgmlType::Q2_K)].vec_dot_wide = vec_dot_q2_K_q8_Kw;
    rows[static_cast<int>(GgmlType::Q3_K)].vec_dot_wide = vec_dot_q3_K_q8_Kw;
    rows[static_cast<int>(GgmlType::Q4_K)].vec_dot_wide = vec_dot_q4_K_q8_Kw;
    rows[static_cast<int>(GgmlType::Q4_K)].wide_tokens = kMaxWideTokens;
    rows[static_cast<int>(GgmlType::Q5_K)].vec_dot_wide = vec_dot_q5_K_q8_Kw;
    rows[static_cast<int>(GgmlType::Q5_K)].wide_tokens = kMaxWideTokens;
    rows[static_cast<int>(GgmlType::Q6_K)].vec_dot_wide = vec_dot_q6_K_q8_Kw;
    rows[static_cast<int>(GgmlType::Q6_K)].wide_tokens = kMaxWideTokens;
    rows[static_cast<int>(GgmlType::IQ4_XS)].vec_dot_wide = vec_dot_iq4_xs_q8_Kw;
    rows[static_cast<int>(GgmlType::IQ4_XS)].wide_one_token = false;
    rows[static_cast<int>(GgmlType::IQ3_XXS)].vec_dot_wide = vec_dot_iq3_xxs_q8_Kw;
    rows[static_cast<int>(GgmlType::IQ3_S)].vec_dot_wide = vec_dot_iq3_s_q8_Kw;
    rows[static_cast<int>(GgmlType::IQ1_S)].vec_dot_wide = vec_dot_iq1_s_q8_Kw;
    rows[static_cast<int>(GgmlType::IQ1_M)].vec_dot_wide = vec_dot_iq1_m_q8_Kw;
    rows[static_cast<int>(GgmlType::IQ2_XXS)].vec_dot_wide = vec_dot_iq2_xxs_q8_Kw;
    rows[static_cast<int>(GgmlType::IQ2_XS)].vec_dot_wide = vec_dot_iq2_xs_q8_Kw;
    rows[static_cast<int>(GgmlType::IQ2_S)].vec_dot_wide = vec_dot_iq2_s_q8_Kw;
    for (GgmlType t : {GgmlType::IQ2_XXS, GgmlType::IQ2_XS, GgmlType::IQ2_S}) rows[static_cast<int>(t)].wide_tokens = kMaxWideTokens;
    rows[static_cast<int>(GgmlType::Q8_0)].from_float_fast = quantize_row_q8_0_simd;
    rows[static_cast<int>(GgmlType::Q8_K)].from_float_fast = quantize_row_q8_K_simd;
    if (relaxed_simd_active()) {
      // The Q8_K types on the relaxed 8-bit dot against int8 activations
      // (the same bits): one token (vec_dot) and prompts (vec_dot_wide,
      // reading the Q8_K activations as they are), where there is a kernel.
      struct Relaxed {
        GgmlType type;
        VecDotFn one;
        VecDotWideFn tokens;
        VecDotTileFn tile = nullptr;
      };
      for (const Relaxed& k : {Relaxed{GgmlType::Q2_K, vec_dot_q2_K_q8_K_relaxed, vec_dot_q2_K_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::Q3_K, vec_dot_q3_K_q8_K_relaxed, vec_dot_q3_K_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::Q4_K, vec_dot_q4_K_q8_K_relaxed, vec_dot_q4_K_q8_K_tokens_relaxed, vec_dot_q4_K_q8_K_tile_relaxed},
                               Relaxed{GgmlType::Q5_K, vec_dot_q5_K_q8_K_relaxed, vec_dot_q5_K_q8_K_tokens_relaxed, vec_dot_q5_K_q8_K_tile_relaxed},
                               Relaxed{GgmlType::Q6_K, vec_dot_q6_K_q8_K_relaxed, vec_dot_q6_K_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::TQ1_0, vec_dot_tq1_0_q8_K_relaxed, vec_dot_tq1_0_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::TQ2_0, vec_dot_tq2_0_q8_K_relaxed, vec_dot_tq2_0_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::IQ2_XXS, vec_dot_iq2_xxs_q8_K_relaxed, vec_dot_iq2_xxs_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::IQ2_XS, vec_dot_iq2_xs_q8_K_relaxed, vec_dot_iq2_xs_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::IQ2_S, vec_dot_iq2_s_q8_K_relaxed, vec_dot_iq2_s_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::IQ3_XXS, vec_dot_iq3_xxs_q8_K_relaxed, vec_dot_iq3_xxs_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::IQ3_S, vec_dot_iq3_s_q8_K_relaxed, vec_dot_iq3_s_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::IQ4_XS, vec_dot_iq4_xs_q8_K_relaxed, vec_dot_iq4_xs_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::IQ1_S, vec_dot_iq1_s_q8_K_relaxed, vec_dot_iq1_s_q8_K_tokens_relaxed},
                               Relaxed{GgmlType::IQ1_M, vec_dot_iq1_m_q8_K_relaxed, vec_dot_iq1_m_q8_K_tokens_relaxed}}) {
        QuantTraits& t = rows[static_cast<int>(k.type)];
        if (k.one) {
          t.vec_dot = k.one;
          t.wide_one_token = false;
        }
        if (!k.tokens) continue;
        t.vec_dot_wide = k.tokens;
        t.vec_dot_tile = k.tile;
        t.wide_form = WideForm::Q8_KAsIs;
        t.wide_tokens = kMaxWideTokens;
      }
      // Q4_0, Q4_K and Q5_K rows in quads where the dot-add is one
      // instruction: their one-token kernels then stream 1.28x (Q4_K) and
      // 1.23x (Q5_K) the rows' from memory (Chromium, Zen 5); prompts as
      // fast or faster.
      if (relaxed_dot_add_one_instruction()) {
        constexpr QuadField kD{2, 2}, kScales{K_SCALE_SIZE, 0, encode_k_scale_quad, decode_k_scale_quad}, kQh{QK_K / 8, 4}, kQs{QK_K / 2, 4};
        rows[static_cast<int>(GgmlType::Q4_0)].quad_layout = {2, {kD, {QK4_0 / 2, 4}}};  // d, qs
        rows[static_cast<int>(GgmlType::Q4_0)].vec_dot_quads = vec_dot_q4_0_q8_0g_quads_relaxed;
        rows[static_cast<int>(GgmlType::Q4_K)].quad_layout = {4, {kD, kD, kScales, kQs}};  // d, dmin, scales, qs
        rows[static_cast<int>(GgmlType::Q4_K)].vec_dot_quads =
            relaxed_dot_add_unsigned() ? vec_dot_q4_K_q8_K_quads_unsigned_relaxed : vec_dot_q4_K_q8_K_quads_relaxed;
        rows[static_cast<int>(GgmlType::Q5_K)].quad_layout = {5, {kD, kD, kScales, kQh, kQs}};
        rows[static_cast<int>(GgmlType::Q5_K)].vec_dot_quads = vec_dot_q5_K_q8_K_quads_relaxed;
      }
      // The 32-weight types with unsigned levels (MXFP4's shifted to be):
      // every token count, one token included, through the relaxed group
      // kernel (its own bits, the same for any number of tokens). Not Q5_1:
      // its one-token speed fell to 0.77x SIMD-128's (6.3 against 8.1 GB/s;
      // matmul 1.41x). Not IQ4_NL: its table as magnitudes with the signs on
      // the activations ran 1.22x, but that kernel's float order moved
      // llama.cpp's second-prompt probabilities by 3.3e-3 (> 2e-3).
      struct Group {
        GgmlType type;
        VecDotWideFn dot;
        VecDotTileFn tile;
        WideForm form;
        int level_offset;
      };
      const auto use_group = [&](const Group& g) {
        QuantTraits& t = rows[static_cast<int>(g.type)];
        t.vec_dot_wide = g.dot;
        t.vec_dot_tile = g.tile;
        t.wide_form = g.form;
        t.level_offset = g.level_offset;
        t.wide_tokens = kMaxWideTokens;
        t.wide_one_token = true;
      };
      for (const Group& g :
           {Group{GgmlType::Q4_0, vec_dot_q4_0_q8_0g_relaxed, vec_dot_q4_0_q8_0g_tile_relaxed, WideForm::Q8_0Groups,
                  kQ4_0LevelOffset},
            Group{GgmlType::Q5_0, vec_dot_q5_0_q8_0g_relaxed, vec_dot_q5_0_q8_0g_tile_relaxed, WideForm::Q8_0Groups,
                  kQ5_0LevelOffset},
            Group{GgmlType::Q4_1, vec_dot_q4_1_q8_1g_relaxed, vec_dot_q4_1_q8_1g_tile_relaxed, WideForm::Q8_1Groups, 0},
            Group{GgmlType::MXFP4, vec_dot_mxfp4_q8_0g_relaxed, vec_dot_mxfp4_q8_0g_tile_relaxed, WideForm::Q8_0Groups,
                  kMxfp4LevelOffset}})
        use_group(g);
      // Q8_0 too where the dot-add reads unsigned bytes exactly (AVX-VNNI):
      // its bytes plus 128 are the levels; elsewhere it keeps SIMD-128 (its
      // magnitudes as levels, the signs on the activations, ran 0.85x).
      if (relaxed_dot_add_unsigned())
        use_group({GgmlType::Q8_0, vec_dot_q8_0_q8_0g_relaxed, vec_dot_q8_0_q8_0g_tile_relaxed, WideForm::Q8_0Groups,
                   kQ8_0LevelOffset});
    }
#endif
  }
};

}  // namespace

const QuantTraits& quant_traits(GgmlType type) {
  static const Table table;
  return table.rows[static_cast<uint32_t>(type) & 63];
}

}  // namespace wasmlm
