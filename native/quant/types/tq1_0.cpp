// TQ1_0: 256 ternary weights t in {-1, 0, 1} at 1.6875 bits each; w = d * t.
// A byte holds up to 5 trits as a base-3 fraction: the byte b stands for
// b / 256 in [0, 1), whose k-th trit (most significant first) is the integer
// part of 3 * frac(b * 3^k / 256), i.e. ((uint8)(b * 3^k) * 3) >> 8.
// qs[0..31] give weights 0-159 (trit k of byte m: weight 32k + m),
// qs[32..47] weights 160-239 (160 + 16k + m), qh[0..3] weights 240-255
// (240 + 4k + m, 4 trits each).
#include <cmath>
#include <cstring>

#include "quant/blocks.h"
#include "quant/decoded_block_kernel.h"
#include "quant/fp16.h"
#include "quant/quant_types.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};

// Trit k of byte b, as 0, 1 or 2 (t + 1).
inline int trit(uint8_t b, int k) { return (static_cast<uint8_t>(b * kPow3[k]) * 3) >> 8; }

// The block's 256 weights t in {-1, 0, 1}, in order.
void unpack_tq1_0(const block_tq1_0& x, int8_t* t) {
  for (int k = 0; k < 5; ++k)
    for (int m = 0; m < 32; ++m) t[32 * k + m] = static_cast<int8_t>(trit(x.qs[m], k) - 1);
  for (int k = 0; k < 5; ++k)
    for (int m = 0; m < 16; ++m) t[160 + 16 * k + m] = static_cast<int8_t>(trit(x.qs[32 + m], k) - 1);
  for (int k = 0; k < 4; ++k)
    for (int m = 0; m < 4; ++m) t[240 + 4 * k + m] = static_cast<int8_t>(trit(x.qh[m], k) - 1);
}

}  // namespace

void dequantize_row_tq1_0(const void* src, float* y, int64_t n) {
  const auto* x = static_cast<const block_tq1_0*>(src);
  int8_t t[QK_K];
  for (int64_t i = 0; i < n / QK_K; ++i, y += QK_K) {
    const float d = fp16_to_fp32(x[i].d);
    unpack_tq1_0(x[i], t);
    for (int j = 0; j < QK_K; ++j) y[j] = static_cast<float>(t[j]) * d;
  }
}

// ggml's quantize_row_tq1_0_ref: d = max |x|, t = round(x / d) (halves away
// from zero). Packing n trits t + 1 as the base-3 number q (first trit most
// significant) and storing ceil(q * 256 / 3^5) makes the byte the fraction
// the dequantizer reads back; qh's 4 trits are shifted up one place first.
void quantize_row_tq1_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<block_tq1_0*>(dst);
  auto pack = [](int q) { return static_cast<uint8_t>((q * 256 + 242) / 243); };
  for (int64_t i = 0; i < n / QK_K; ++i, x += QK_K) {
    float amax = 0;
    for (int j = 0; j < QK_K; ++j) amax = std::fmax(amax, std::fabs(x[j]));
    const float id = amax != 0 ? 1.0f / amax : 0.0f;
    y[i].d = fp32_to_fp16(amax);
    auto t = [&](int j) { return ternary_plus_one(x[j] * id); };
    for (int m = 0; m < 32; ++m) {
      int q = 0;
      for (int k = 0; k < 5; ++k) q = q * 3 + t(32 * k + m);
      y[i].qs[m] = pack(q);
    }
    for (int m = 0; m < 16; ++m) {
      int q = 0;
      for (int k = 0; k < 5; ++k) q = q * 3 + t(160 + 16 * k + m);
      y[i].qs[32 + m] = pack(q);
    }
    for (int m = 0; m < 4; ++m) {
      int q = 0;
      for (int k = 0; k < 4; ++k) q = q * 3 + t(240 + 4 * k + m);
      y[i].qh[m] = pack(q * 3);
    }
  }
}

float vec_dot_tq1_0_q8_K(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_tq1_0*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  int8_t t[QK_K];
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    unpack_tq1_0(x[i], t);
    int isum = 0;
    for (int j = 0; j < QK_K; ++j) isum += t[j] * y[i].qs[j];
    sum += static_cast<float>(isum) * (fp16_to_fp32(x[i].d) * y[i].d);
  }
  return sum;
}

#ifdef __wasm_simd128__
namespace {

// t = trit(b, k) - 1 in 8 int16 lanes of bytes b widened to uint16, with a
// per-lane multiplier 3^k.
inline v128_t trits_i16(v128_t b16, v128_t pow3) {
  const v128_t frac = wasm_v128_and(wasm_i16x8_mul(b16, pow3), wasm_i16x8_splat(0xFF));
  return wasm_i16x8_sub(wasm_u16x8_shr(wasm_i16x8_mul(frac, wasm_i16x8_splat(3)), 8), wasm_i16x8_splat(1));
}

// qh: lane j of the 16 is byte j % 4 times 3^(j / 4).
const v128_t kQhPowLo = wasm_i16x8_const(1, 1, 1, 1, 3, 3, 3, 3);
const v128_t kQhPowHi = wasm_i16x8_const(9, 9, 9, 9, 27, 27, 27, 27);

}  // namespace

float vec_dot_tq1_0_q8_K_simd(int64_t n, const void* w, const void* a) {
  const auto* x = static_cast<const block_tq1_0*>(w);
  const auto* y = static_cast<const block_q8_K*>(a);
  const v128_t qh_pow_lo = kQhPowLo, qh_pow_hi = kQhPowHi;
  float sum = 0;
  for (int64_t i = 0; i < n / QK_K; ++i) {
    const int8_t* q8 = y[i].qs;
    const v128_t v0 = wasm_v128_load(x[i].qs), v1 = wasm_v128_load(x[i].qs + 16), v2 = wasm_v128_load(x[i].qs + 32);
    const v128_t b0 = wasm_u16x8_extend_low_u8x16(v0), b1 = wasm_u16x8_extend_high_u8x16(v0);
    const v128_t b2 = wasm_u16x8_extend_low_u8x16(v1), b3 = wasm_u16x8_extend_high_u8x16(v1);
    const v128_t b4 = wasm_u16x8_extend_low_u8x16(v2), b5 = wasm_u16x8_extend_high_u8x16(v2);
    v128_t isum = wasm_i32x4_splat(0);
    for (int k = 0; k < 5; ++k) {
      const v128_t p = wasm_i16x8_splat(kPow3[k]);
      isum = wasm_i32x4_add(isum, simd::dot_i16x16(trits_i16(b0, p), trits_i16(b1, p), q8 + 32 * k));
      isum = wasm_i32x4_add(isum, simd::dot_i16x16(trits_i16(b2, p), trits_i16(b3, p), q8 + 32 * k + 16));
      isum = wasm_i32x4_add(isum, simd::dot_i16x16(trits_i16(b4, p), trits_i16(b5, p), q8 + 160 + 16 * k));
    }
    uint32_t qh;
    std::memcpy(&qh, x[i].qh, 4);
    const v128_t h = wasm_u16x8_extend_low_u8x16(wasm_i32x4_splat(static_cast<int32_t>(qh)));  // qh[0..3] twice
    isum = wasm_i32x4_add(isum, simd::dot_i16x16(trits_i16(h, qh_pow_lo), trits_i16(h, qh_pow_hi), q8 + 240));
    sum += static_cast<float>(simd::hsum_i32(isum)) * (fp16_to_fp32_fast(x[i].d) * y[i].d);
  }
  return sum;
}

void vec_dot_tq1_0_q8_Kw(int64_t n, const void* w, const void* a, int64_t act_stride, int n_tokens, float* out,
                         int64_t out_stride) {
  simd::vec_dot_decoded_blocks_q8_Kw(
      n, static_cast<const block_tq1_0*>(w), a, act_stride, n_tokens, out, out_stride,
      [](const block_tq1_0& b, int16_t(&q)[QK_K]) {
        const v128_t v0 = wasm_v128_load(b.qs), v1 = wasm_v128_load(b.qs + 16), v2 = wasm_v128_load(b.qs + 32);
        const v128_t b0 = wasm_u16x8_extend_low_u8x16(v0), b1 = wasm_u16x8_extend_high_u8x16(v0);
        const v128_t b2 = wasm_u16x8_extend_low_u8x16(v1), b3 = wasm_u16x8_extend_high_u8x16(v1);
        const v128_t b4 = wasm_u16x8_extend_low_u8x16(v2), b5 = wasm_u16x8_extend_high_u8x16(v2);
        for (int k = 0; k < 5; ++k) {
          const v128_t p = wasm_i16x8_splat(kPow3[k]);
          wasm_v128_store(q + 32 * k, trits_i16(b0, p));
          wasm_v128_store(q + 32 * k + 8, trits_i16(b1, p));
          wasm_v128_store(q + 32 * k + 16, trits_i16(b2, p));
          wasm_v128_store(q + 32 * k + 24, trits_i16(b3, p));
          wasm_v128_store(q + 160 + 16 * k, trits_i16(b4, p));
          wasm_v128_store(q + 160 + 16 * k + 8, trits_i16(b5, p));
        }
        uint32_t qh;
        std::memcpy(&qh, b.qh, 4);
        const v128_t h = wasm_u16x8_extend_low_u8x16(wasm_i32x4_splat(static_cast<int32_t>(qh)));
        wasm_v128_store(q + 240, trits_i16(h, kQhPowLo));
        wasm_v128_store(q + 248, trits_i16(h, kQhPowHi));
      },
      [](const block_tq1_0& b) { return fp16_to_fp32_fast(b.d); });
}
#endif

}  // namespace wasmlm
