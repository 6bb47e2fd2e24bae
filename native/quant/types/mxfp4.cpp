// MXFP4 (OCP microscaling FP4): 32 weights as 4-bit E2M1 codes sharing one
// power-of-two scale, the E8M0 byte e. The codes index kValuesMxfp4, the E2M1
// values doubled to integers, so w = 2^(e - 128) * level (ggml's
// GGML_E8M0_TO_FP32_HALF). Weight j is in the low nibble of qs[j], weight
// 16 + j in the high nibble, as in Q4_0.
#include <array>
#include <cmath>

#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"
#include "quant/table_block_kernel.h"

namespace wasmlm {

namespace {
std::array<float, 256> make_e8m0_half_table() {
  std::array<float, 256> t;
  for (int e = 0; e < 256; ++e) t[e] = e8m0_to_fp32_half(static_cast<uint8_t>(e));
  return t;
}
const std::array<float, 256> e8m0_half_table = make_e8m0_half_table();
}  // namespace

// Built during static initialization, before any kernel can run.
const float* const kE8m0HalfTable = e8m0_half_table.data();

void dequantize_row_mxfp4(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_mxfp4*>(src);
  for (int64_t i = 0; i < n / QK_MXFP4; ++i, y += QK_MXFP4) {
    const float d = e8m0_to_fp32_half(x[i].e);
    for (int j = 0; j < QK_MXFP4 / 2; ++j) {
      y[j] = kValuesMxfp4[x[i].qs[j] & 0xF] * d;
      y[j + QK_MXFP4 / 2] = kValuesMxfp4[x[i].qs[j] >> 4] * d;
    }
  }
}

namespace {

// The code whose level times d is nearest x; the lowest code on a tie (so 0,
// never -0, for values that round to zero).
uint8_t nearest_mxfp4(float x, float d) {
  uint8_t best = 0;
  float best_err = std::fabs(kValuesMxfp4[0] * d - x);
  for (uint8_t i = 1; i < 16; ++i) {
    const float err = std::fabs(kValuesMxfp4[i] * d - x);
    if (err < best_err) {
      best = i;
      best_err = err;
    }
  }
  return best;
}

}  // namespace

// ggml's quantize_row_mxfp4_ref: e = floor(log2 max|x|) - 2 + 127 puts the
// block's largest magnitude between levels 8 and 16 times d = 2^(e - 128),
// i.e. within reach of the top level 12 (E2M1 6); each weight then takes its
// nearest level. e is clamped to a byte (ggml's cast is undefined for blocks
// whose max|x| lies outside 2^-125 .. 2^128).
void quantize_row_mxfp4(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_mxfp4*>(dst);
  for (int64_t i = 0; i < n / QK_MXFP4; ++i, x += QK_MXFP4) {
    float amax = 0;
    for (int j = 0; j < QK_MXFP4; ++j) amax = std::fmax(amax, std::fabs(x[j]));
    uint8_t e = 0;
    if (amax > 0) {
      const float f = std::floor(std::log2(amax)) - 2 + 127;
      e = static_cast<uint8_t>(f <= 0 ? 0 : f >= 255 ? 255 : f);
    }
    const float d = e8m0_to_fp32_half(e);
    y[i].e = e;
    for (int j = 0; j < QK_MXFP4 / 2; ++j)
      y[i].qs[j] = static_cast<uint8_t>(nearest_mxfp4(x[j], d) | nearest_mxfp4(x[j + QK_MXFP4 / 2], d) << 4);
  }
}

// ggml_vec_dot_mxfp4_q8_0_generic: per block an integer dot of levels and
// activations, scaled by d_a * 2^(e - 128) and summed in block order.
float vec_dot_mxfp4_q8_0(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_mxfp4*>(w);
  const auto* y = static_cast<const block_q8_0*>(a);
  float sum = 0;
  for (int64_t i = 0; i < n / QK_MXFP4; ++i) {
    const float d = fp16_to_fp32(y[i].d) * e8m0_to_fp32_half(x[i].e);
    int isum = 0;
    for (int j = 0; j < QK_MXFP4 / 2; ++j)
      isum += y[i].qs[j] * kValuesMxfp4[x[i].qs[j] & 0xF] + y[i].qs[j + QK_MXFP4 / 2] * kValuesMxfp4[x[i].qs[j] >> 4];
    sum += d * static_cast<float>(isum);
  }
  return sum;
}

#ifdef __wasm_simd128__
// The 16 levels looked up with one swizzle per 16 codes (as IQ4_NL); blocks
// accumulate in 4 float lanes, so the sum's rounding differs from the scalar.
float vec_dot_mxfp4_q8_0_simd(int64_t n, const void* w, const void* a) {
  return simd::vec_dot_table_blocks_q8_0(kValuesMxfp4, n, static_cast<const block_mxfp4*>(w), a,
                                         [](const block_mxfp4& b) { return e8m0_to_fp32_half_fast(b.e); });
}

// 2 to 4 tokens; one token uses vec_dot_mxfp4_q8_0_simd (QuantTraits::wide_one_token).
void vec_dot_mxfp4_q8_0w(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                         int64_t out_stride) {
  simd::vec_dot_table_blocks_q8_0w(kValuesMxfp4, n, static_cast<const block_mxfp4*>(w), a, act_stride, n_tokens, out,
                                   out_stride, [](const block_mxfp4& b) { return e8m0_to_fp32_half_fast(b.e); });
}
#endif

}  // namespace wasmlm
