// The decoder-only transformer architectures we run, as a table: one row per
// GGUF `general.architecture`, each field one way the architectures differ
// in llama.cpp (src/models/<arch>.cpp and their hyperparameter loaders).
// One forward pass (decoder_forward.cpp) reads the row; nothing else
// branches on the architecture's name. A row reads as "LLaMA, except ...".
#pragma once

#include <cstdint>
#include <string>

namespace wasmlm {

// Where the RMS norms of a block sit.
enum class NormPlacement {
  Pre,      // norm -> attention/FFN -> residual add (LLaMA)
  PrePost,  // norm -> attention/FFN -> norm -> residual add (Gemma 2/3)
  Post,     // attention/FFN -> norm -> residual add, no pre-norm (OLMo 2)
};

// RMS norm of the queries and keys after their projections, before RoPE.
enum class QkNorm {
  None,
  PerHead,  // each head's head_dim values, one weight of head_dim (Qwen3, Gemma 3)
  Whole,    // all heads' values together, one weight of q_dim / kv_dim (OLMo 2)
};

// Which dimensions RoPE rotates together (ggml's rope modes).
enum class RopeLayout {
  Normal,  // adjacent pairs (x[2i], x[2i+1]) (LLaMA)
  Neox,    // halves (x[i], x[i + n_rot/2]) (GPT-NeoX, Qwen, Gemma, Phi-3)
};

// The activation of the gated FFN: act(gate) * up.
enum class FfnActivation {
  Silu,      // SwiGLU
  GeluTanh,  // GeGLU with GELU's tanh approximation, as ggml's CPU computes it (F16 table)
};

// The attention's 1/sqrt scale of the query-key products.
enum class QueryScale {
  HeadDim,     // 1/sqrt(head_dim)
  Gemma,       // Gemma's query_pre_attn_scalar: 1/sqrt(n_embd/n_head) for the 27B models, else 1/sqrt(head_dim)
  KeyOrHeadDim,  // <arch>.attention.scale if the file has it (Granite), else 1/sqrt(head_dim)
};

// Whether some layers attend only to the last n_swa positions.
enum class SlidingWindow {
  None,
  Always,        // Gemma 2: <arch>.attention.sliding_window, default 4096
  IfKey,         // only when the file has <arch>.attention.sliding_window > 0 (Gemma 3, OLMo 2)
  KeyIgnored,    // the file may have the key; llama.cpp warns and runs full attention (Phi-3)
};

struct DecoderArch {
  const char* name;      // general.architecture
  const char* families;  // the model families whose GGUF files have it

  NormPlacement norms;
  QkNorm qk_norm;
  RopeLayout rope;
  FfnActivation activation;
  bool fused_gate_up;       // ffn_up holds gate then up (2 * n_ff rows), no ffn_gate (Phi-3)
  bool scale_embeddings;    // embeddings times sqrt(n_embd) (Gemma)
  // The query is multiplied by the attention scale before the products
  // (llama.cpp does so for these; others scale the products): only the
  // rounding differs, and with an F16 cache the rounded query is the scaled one.
  bool scale_query_first;
  QueryScale query_scale;
  uint32_t layers_27b;      // QueryScale::Gemma: the 27B model's layer count (llama.cpp tells it by that)
  // Soft-capping cap * tanh(x / cap) of the attention scores and of the
  // final logits, from <arch>.attn_logit_softcapping and
  // <arch>.final_logit_softcapping; these are the values when a key is
  // missing (0: no capping).
  float attn_softcap_default;
  float final_softcap_default;

  SlidingWindow window;
  uint32_t window_default;   // positions, when the key is missing (Always)
  // Without <arch>.attention.sliding_window_pattern: every window_period-th
  // layer (the last of each period) attends to everything, the others to the
  // window. 1: every layer windowed.
  uint32_t window_period;
  // RoPE of the windowed layers: base <arch>.rope.freq_base_swa, else this
  // (0: the global base); unscaled: they ignore <arch>.rope.scaling.*.
  float window_rope_base;
  bool window_rope_unscaled;

  uint32_t nope_period;         // every nope_period-th layer has no RoPE (SmolLM3: 4); 0: all have
  bool granite_multipliers;     // <arch>.embedding_scale, residual_scale, logit_scale (Granite)
  bool rope_finetuned_switch;   // <arch>.rope.scaling.finetuned = false turns RoPE off (Granite)
  bool output_required;         // no tied output: output.weight must exist (OLMo 2)
};

// The row for a general.architecture value; nullptr if we do not run it.
const DecoderArch* find_decoder_arch(const std::string& name);

// "llama, qwen2, ...": the names of every row, for error messages.
std::string decoder_arch_names();

}  // namespace wasmlm
