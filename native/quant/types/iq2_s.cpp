// IQ2_S: 256 weights at 2.5625 bits, in 8 sub-blocks of 32. Each 8 weights
// have a 10-bit grid index (low 8 bits in qs[0..31], high 2 in qh: bits
// 2l..2l+1 of qh[ib32] for its l-th 8) and a whole sign byte (qs[32..63],
// bit j set: weight j negative). scales[ib32] holds two 4-bit scales s (low:
// weights 0-15, high: 16-31): w = d * (0.5 + s) / 4 * grid * sign.
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/iq2_grids.h"
#include "quant/iq2_kernel.h"
#include "quant/quant_types.h"

namespace wasmlm {

namespace {

inline int grid_index(const block_iq2_s& b, int ib32, int l) {
  return b.qs[4 * ib32 + l] | ((b.qh[ib32] << (8 - 2 * l)) & 0x300);
}

#ifdef __wasm_simd128__
struct Iq2sCodec {
  using Block = block_iq2_s;
  static constexpr bool kOneScale = false;
  const Block& b;
  int ib32, ls1, ls2;
  Iq2sCodec(const Block& blk, int ib) : b(blk), ib32(ib) {
    ls1 = 2 * (b.scales[ib32] & 0xF) + 1;
    ls2 = 2 * (b.scales[ib32] >> 4) + 1;
  }
  const uint64_t* grid(int l) const { return &kIq2sGrid[grid_index(b, ib32, l)]; }
  const Iq2SignRow* signs(int l) const { return &kIq2SignsBy8[b.qs[QK_K / 8 + 4 * ib32 + l]]; }
};
#endif

}  // namespace

void dequantize_row_iq2_s(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_iq2_s*>(src);
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const float d = fp16_to_fp32(x[i].d);
    for (int ib32 = 0; ib32 < QK_K / 32; ++ib32) {
      const float db[2] = {d * (0.5f + static_cast<float>(x[i].scales[ib32] & 0xF)) * 0.25f,
                           d * (0.5f + static_cast<float>(x[i].scales[ib32] >> 4)) * 0.25f};
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint64_t g = kIq2sGrid[grid_index(x[i], ib32, l)];
        const uint8_t signs = x[i].qs[QK_K / 8 + 4 * ib32 + l];
        for (int j = 0; j < 8; ++j)
          y[j] = db[l / 2] * static_cast<float>((g >> 8 * j) & 0xFF) * ((signs >> j) & 1 ? -1.0f : 1.0f);
      }
    }
  }
}

// ggml_vec_dot_iq2_s_q8_K_generic.
float vec_dot_iq2_s_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_iq2_s*>(w);
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
          const uint64_t g = kIq2sGrid[grid_index(x[i], ib32, l)];
          const uint8_t signs = x[i].qs[QK_K / 8 + 4 * ib32 + l];
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
float vec_dot_iq2_s_q8_K_simd(int64_t n, const void* w, const void* a) {
  return simd::iq2_vec_dot<Iq2sCodec>(n, w, a);
}

void vec_dot_iq2_s_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                         int64_t out_stride) {
  simd::iq2_vec_dot_wide<Iq2sCodec>(n, w, a, act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
