// IQ2_XS: 256 weights at 2.3125 bits, in 8 sub-blocks of 32. Each uint16 of
// qs gives 8 weights: a 9-bit grid index (8 magnitudes) and, in its top 7
// bits, a sign index (kIqSigns). scales[ib32] holds two 4-bit scales s (low:
// weights 0-15, high: 16-31): w = d * (0.5 + s) / 4 * grid * sign.
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq2_grids.h"
#include "quant/iq2_kernel.h"
#include "quant/iq_signs.h"
#include "quant/quant_types.h"

namespace wasmlm {

namespace {

#ifdef __wasm_simd128__
struct Iq2xsCodec {
  using Block = block_iq2_xs;
  static constexpr bool kOneScale = false;
  const uint16_t* q;
  int ls1, ls2;
  Iq2xsCodec(const Block& b, int ib32) : q(b.qs + 4 * ib32) {
    ls1 = 2 * (b.scales[ib32] & 0xF) + 1;
    ls2 = 2 * (b.scales[ib32] >> 4) + 1;
  }
  const uint64_t* grid(int l) const { return &kIq2xsGrid[q[l] & 511]; }
  const Iq2SignRow* signs(int l) const { return &kIq2SignsBy7[q[l] >> 9]; }
};
#endif

}  // namespace

void dequantize_row_iq2_xs(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq2_xs*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const float db[2] = {d * (0.5f + static_cast<float>(x[i].scales[ib32] & 0xF)) * 0.25f,
                           d * (0.5f + static_cast<float>(x[i].scales[ib32] >> 4)) * 0.25f};
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint16_t q = x[i].qs[4 * ib32 + l];
        const uint64_t g = kIq2xsGrid[q & 511];
        const uint8_t signs = kIqSigns[q >> 9];
        for (int j = 0; j < 8; ++j)
          y[j] = db[l / 2] * static_cast<float>((g >> 8 * j) & 0xFF) * ((signs >> j) & 1 ? -1.0f : 1.0f);
      }
    }
  }
}

// ggml_vec_dot_iq2_xs_q8_K_generic.
float vec_dot_iq2_xs_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq2_xs*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    int32_t bsum = 0;
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const int32_t ls[2] = {2 * (x[i].scales[ib32] & 0xF) + 1, 2 * (x[i].scales[ib32] >> 4) + 1};
      for (int half = 0; half < 2; ++half) {
        int32_t s = 0;
        for (int l = 2 * half; l < 2 * half + 2; ++l, q8 += 8) {
          const uint16_t q = x[i].qs[4 * ib32 + l];
          const uint64_t g = kIq2xsGrid[q & 511];
          const uint8_t signs = kIqSigns[q >> 9];
          for (int j = 0; j < 8; ++j) {
            const int v = static_cast<int>((g >> 8 * j) & 0xFF) * q8[j];
            s += (signs >> j) & 1 ? -v : v;
          }
        }
        bsum += s * ls[half];
      }
    }
    sum += fp16_to_fp32(x[i].d) * y[i].d * static_cast<float>(bsum);
  }
  return 0.125f * sum;
}

#ifdef __wasm_simd128__
float vec_dot_iq2_xs_q8_K_simd(int64_t n, const void* w, const void* a) {
  return simd::iq2_vec_dot<Iq2xsCodec>(n, w, a);
}

void vec_dot_iq2_xs_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                          int64_t out_stride) {
  simd::iq2_vec_dot_wide<Iq2xsCodec>(n, w, a, act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
