#include "model/decoder_arch.h"

namespace wasmlm {

namespace {

using N = NormPlacement;
using Q = QkNorm;
using R = RopeLayout;
using A = FfnActivation;
using S = QueryScale;
using W = SlidingWindow;

// Columns: name, families | norms, qk_norm, rope, activation, fused_gate_up,
// scale_embeddings | scale_query_first, query_scale, layers_27b, attn_softcap_default,
// final_softcap_default | window, window_default, window_period,
// window_rope_base, window_rope_unscaled | nope_period, granite_multipliers,
// rope_finetuned_switch, output_required.
constexpr DecoderArch kArchs[] = {
    {"llama", "LLaMA 1/2/3, Mistral, TinyLlama, SmolLM/SmolLM2, ...",
     N::Pre, Q::None, R::Normal, A::Silu, false, false,
     false, S::HeadDim, 0, 0, 0,
     W::None, 0, 1, 0, false,
     0, false, false, false},
    // LLaMA, except biases on q/k/v (optional everywhere, as in llama.cpp) and NEOX RoPE.
    {"qwen2", "Qwen2, Qwen2.5, Qwen2.5-Coder, DeepSeek-R1-Distill-Qwen",
     N::Pre, Q::None, R::Neox, A::Silu, false, false,
     false, S::HeadDim, 0, 0, 0,
     W::None, 0, 1, 0, false,
     0, false, false, false},
    // Qwen2, except a per-head RMS norm of q and k before RoPE.
    {"qwen3", "Qwen3 (dense)",
     N::Pre, Q::PerHead, R::Neox, A::Silu, false, false,
     false, S::HeadDim, 0, 0, 0,
     W::None, 0, 1, 0, false,
     0, false, false, false},
    // Norms before and after attention and FFN, GeGLU, scaled embeddings,
    // soft-capped scores and logits, every other layer windowed.
    {"gemma2", "Gemma 2",
     N::PrePost, Q::None, R::Neox, A::GeluTanh, false, true,
     true, S::Gemma, 46, 50, 30,
     W::Always, 4096, 2, 0, false,
     0, false, false, false},
    // Gemma 2, except q/k norms, 5 windowed layers to 1 global with their own
    // RoPE base (10000) and no RoPE scaling, no soft-capping.
    {"gemma3", "Gemma 3 (text: 270M, 1B, 4B, 12B, 27B)",
     N::PrePost, Q::PerHead, R::Neox, A::GeluTanh, false, true,
     true, S::Gemma, 62, 0, 0,
     W::IfKey, 0, 6, 10000, true,
     0, false, false, false},
    // LLaMA, except fused qkv and gate/up projections, NEOX RoPE with
    // partial rotary dimensions and LongRoPE factors.
    {"phi3", "Phi-3-mini/medium, Phi-3.5-mini, Phi-4-mini",
     N::Pre, Q::None, R::Neox, A::Silu, true, false,
     true, S::HeadDim, 0, 0, 0,
     W::KeyIgnored, 0, 1, 0, false,
     0, false, false, false},
    // LLaMA, except every 4th layer without RoPE.
    {"smollm3", "SmolLM3",
     N::Pre, Q::None, R::Normal, A::Silu, false, false,
     false, S::HeadDim, 0, 0, 0,
     W::None, 0, 1, 0, false,
     4, false, false, false},
    // Norms only after attention and FFN, q/k norms over all heads, NEOX RoPE.
    {"olmo2", "OLMo 2, OLMo 3",
     N::Post, Q::Whole, R::Neox, A::Silu, false, false,
     false, S::HeadDim, 0, 0, 0,
     W::IfKey, 0, 4, 0, true,
     0, false, false, true},
    // LLaMA, except scaled embeddings, residuals and logits and its own attention scale.
    {"granite", "IBM Granite 3.x (dense)",
     N::Pre, Q::None, R::Normal, A::Silu, false, false,
     false, S::KeyOrHeadDim, 0, 0, 0,
     W::None, 0, 1, 0, false,
     0, true, true, false},
};

}  // namespace

const DecoderArch* find_decoder_arch(const std::string& name) {
  for (const DecoderArch& a : kArchs)
    if (name == a.name) return &a;
  return nullptr;
}

std::string decoder_arch_names() {
  std::string out;
  for (const DecoderArch& a : kArchs) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

}  // namespace wasmlm
