// IQ2_S: 256 weights at 2.5625 bits, in 8 sub-blocks of 32 with two 4-bit
// scales each; grid entries by 10-bit index, whole sign bytes (iq2_codecs.h).
#include "quant/iq2_codecs.h"
#include "quant/iq2_kernel.h"
#include "quant/iq2_reference.h"
#include "quant/quant_types.h"

namespace wasmlm {

void dequantize_row_iq2_s(const void* src, float* y, int64_t n) { iq2_dequantize<Iq2sCodec>(src, y, n); }

// ggml_vec_dot_iq2_s_q8_K_generic.
float vec_dot_iq2_s_q8_K(int64_t n, const void* w, const void* a) { return iq2_vec_dot_ref<Iq2sCodec>(n, w, a); }

#ifdef __wasm_simd128__
float vec_dot_iq2_s_q8_K_simd(int64_t n, const void* w, const void* a) { return simd::iq2_vec_dot<Iq2sCodec>(n, w, a); }

void vec_dot_iq2_s_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                          int64_t out_stride) {
  simd::iq2_vec_dot_wide<Iq2sCodec>(n, w, a, act_stride, n_tokens, out, out_stride);
}
#endif

}  // namespace wasmlm
