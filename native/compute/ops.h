// The small element-wise pieces of a transformer block (scalar; they are a
// tiny part of the time next to the matrix products).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace wasmlm {

// out = x / sqrt(mean(x^2) + eps) * weight
inline void rmsnorm(float* out, const float* x, const float* weight, int64_t n, float eps) {
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += double(x[i]) * x[i];
  const float scale = 1.0f / std::sqrt(static_cast<float>(ss / n) + eps);
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
}

// In-place softmax over n values.
inline void softmax(float* x, int64_t n) {
  float max = x[0];
  for (int64_t i = 1; i < n; ++i) max = std::fmax(max, x[i]);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

inline float silu(float x) { return x / (1.0f + std::exp(-x)); }
// out[i] = silu(g[i]) * u[i]; in wasm SIMD builds with e^x from a polynomial
// (silu.cpp), within 4e-7 relative of the scalar form.
void silu_mul(float* out, const float* g, const float* u, uint64_t n);

// GELU (tanh approximation) as ggml's CPU backend computes it: the input
// rounded to F16, the result read from a table of F16 values, and x itself
// (0) from 10 (-10) on.
float gelu_ggml(float x);
// out[i] = gelu_ggml(g[i]) * u[i], the same bits.
void gelu_mul(float* out, const float* g, const float* u, uint64_t n);

// RoPE in llama.cpp's "normal" layout: adjacent pairs (x[2i], x[2i+1]) of the
// first n_rot dims of each head rotate by scale * pos * base^(-2i/n_rot) / f[i]
// (f: LLaMA-3's rope_freqs factors, n_rot / 2 of them; nullptr: all 1);
// angles built by repeated multiplication, as ggml does.
// The cosines and sines rope_normal rotates by at position pos: cs[i] =
// cos, cs[i + 1] = sin of pair i / 2's angle, for i < n_rot step 2. The same
// for every head and layer, so a forward pass computes them once per token.
// mscale multiplies both (LongRoPE's attention factor; ggml's attn_factor).
inline void rope_angles(float* cs, int n_rot, int pos, float freq_base, float freq_scale,
                        const float* freq_factors = nullptr, float mscale = 1.0f) {
  const float theta_scale = std::pow(freq_base, -2.0f / n_rot);
  float theta = static_cast<float>(pos);
  for (int i = 0; i < n_rot; i += 2) {
    const float angle = (freq_factors ? theta / freq_factors[i / 2] : theta) * freq_scale;
    cs[i] = std::cos(angle) * mscale;
    cs[i + 1] = std::sin(angle) * mscale;
    theta *= theta_scale;
  }
}

// rope_normal with precomputed rope_angles.
inline void rope_normal_cs(float* x, int n_heads, int head_dim, int n_rot, const float* cs) {
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + h * head_dim;
    for (int i = 0; i < n_rot; i += 2) {
      const float c = cs[i], s = cs[i + 1];
      const float a = v[i], b = v[i + 1];
      v[i] = a * c - b * s;
      v[i + 1] = a * s + b * c;
    }
  }
}

// RoPE in the NEOX layout (GPT-NeoX, Qwen, Gemma, Phi-3): the two halves of
// the first n_rot dims rotate together, (x[i], x[i + n_rot/2]) by pair i's
// angle, with the same precomputed rope_angles.
inline void rope_neox_cs(float* x, int n_heads, int head_dim, int n_rot, const float* cs) {
  const int half = n_rot / 2;
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + h * head_dim;
    for (int i = 0; i < half; ++i) {
      const float c = cs[2 * i], s = cs[2 * i + 1];
      const float a = v[i], b = v[i + half];
      v[i] = a * c - b * s;
      v[i + half] = a * s + b * c;
    }
  }
}

// cap * tanh(x / cap), as ggml computes it (a multiply by 1 / cap).
inline float softcap(float x, float cap) { return std::tanh(x * (1.0f / cap)) * cap; }

inline void rope_normal(float* x, int n_heads, int head_dim, int n_rot, int pos, float freq_base, float freq_scale,
                        const float* freq_factors = nullptr) {
  std::vector<float> cs(n_rot);
  rope_angles(cs.data(), n_rot, pos, freq_base, freq_scale, freq_factors);
  rope_normal_cs(x, n_heads, head_dim, n_rot, cs.data());
}

}  // namespace wasmlm
