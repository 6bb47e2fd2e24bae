// IQ2_XXS: 256 weights at 2.0625 bits, in 8 sub-blocks of 32. A sub-block's
// 8 bytes (two uint32 of qs): bytes 0-3 pick a grid entry (8 magnitudes)
// each; the second uint32 holds 4 7-bit sign indices (kIqSigns) and, in its
// top 4 bits, the sub-block scale s: w = d * (0.5 + s) / 4 * grid * sign.
#include <cstring>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq2_grids.h"
#include "quant/iq2_kernel.h"
#include "quant/iq_signs.h"
#include "quant/quant_types.h"

namespace wasmlm {

namespace {

void load_aux(const block_iq2_xxs& b, int ib32, uint32_t aux[2]) { std::memcpy(aux, b.qs + 4 * ib32, 8); }

#ifdef __wasm_simd128__
struct Iq2xxsCodec {
  using Block = block_iq2_xxs;
  static constexpr bool kOneScale = true;
  uint32_t aux[2];
  int ls1, ls2;
  Iq2xxsCodec(const Block& b, int ib32) {
    load_aux(b, ib32, aux);
    ls1 = ls2 = 2 * static_cast<int>(aux[1] >> 28) + 1;
  }
  const uint64_t* grid(int l) const { return &kIq2xxsGrid[(aux[0] >> 8 * l) & 0xFF]; }
  const Iq2SignRow* signs(int l) const { return &kIq2SignsBy7[(aux[1] >> 7 * l) & 127]; }
};
#endif

}  // namespace

void dequantize_row_iq2_xxs(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq2_xxs*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      uint32_t aux[2];
      load_aux(x[i], ib32, aux);
      const float db = d * (0.5f + static_cast<float>(aux[1] >> 28)) * 0.25f;
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint64_t g = kIq2xxsGrid[(aux[0] >> 8 * l) & 0xFF];
        const uint8_t signs = kIqSigns[(aux[1] >> 7 * l) & 127];
        for (int j = 0; j < 8; ++j)
          y[j] = db * static_cast<float>((g >> 8 * j) & 0xFF) * ((signs >> j) & 1 ? -1.0f : 1.0f);
      }
    }
  }
}

// ggml_vec_dot_iq2_xxs_q8_K_generic.
float vec_dot_iq2_xxs_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq2_xxs*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    int32_t bsum = 0;
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      uint32_t aux[2];
      load_aux(x[i], ib32, aux);
      const int32_t ls = 2 * static_cast<int32_t>(aux[1] >> 28) + 1;
      int32_t s = 0;
      for (int l = 0; l < 4; ++l, q8 += 8) {
        const uint64_t g = kIq2xxsGrid[(aux[0] >> 8 * l) & 0xFF];
        const uint8_t signs = kIqSigns[(aux[1] >> 7 * l) & 127];
        for (int j = 0; j < 8; ++j) {
          const int v = static_cast<int>((g >> 8 * j) & 0xFF) * q8[j];
          s += (signs >> j) & 1 ? -v : v;
        }
      }
      bsum += s * ls;
    }
    sum += fp16_to_fp32(x[i].d) * y[i].d * static_cast<float>(bsum);
  }
  return 0.125f * sum;
}

#ifdef __wasm_simd128__
float vec_dot_iq2_xxs_q8_K_simd(int64_t n, const void* w, const void* a) {
  return simd::iq2_vec_dot<Iq2xxsCodec>(n, w, a);
}

void vec_dot_iq2_xxs_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                           int64_t out_stride) {
  simd::iq2_vec_dot_wide<Iq2xxsCodec>(n, w, a, act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
