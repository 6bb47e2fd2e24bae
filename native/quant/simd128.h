// Small helpers over wasm SIMD-128 shared by the kernels (wasm builds only).
#pragma once

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <cstdint>
#include <type_traits>

namespace wasmlm::simd {

// A table (or buffer) through a pointer clang cannot see into: its rows stay
// loads at their uses (as constants, V8 builds each in registers and spills
// them in unrolled kernels), and a multiply by a constant of powers of two
// stays a multiply (as shifts by lane it becomes scalar code in V8).
template <typename T>
inline T* unseen(T* table) {
  __asm__("" : "+r"(table));
  return table;
}

// Byte b in every lane, loaded from a table through unseen: V8 builds a
// v128.const in registers at each use (3 instructions, in some kernels in
// every pass of a loop), but hoists a load out of the loop.
template <uint8_t b>
struct ByteSplat {
  alignas(16) uint8_t bytes[16];
};
template <uint8_t b>
inline constexpr ByteSplat<b> kByteSplat = [] {
  ByteSplat<b> s{};
  for (uint8_t& x : s.bytes) x = b;
  return s;
}();
template <uint8_t b>
inline v128_t loaded_splat() {
  return wasm_v128_load(unseen(&kByteSplat<b>)->bytes);
}

// The grid entries of weights 16g..16g+15 at byte offsets into grid (8 x
// index for 8-byte entries: IQ1_S, IQ1_M, IQ2_XS, IQ2_S; 4 x index for
// IQ3_S's 4-byte ones), for the relaxed kernels: offsets found per block in
// vector lanes and stored leave one scalar load per entry, with no address
// arithmetic. (For the byte indices of IQ2_XXS and IQ3_XXS that ran
// 0.94-0.97x their loads by index.)
inline v128_t iq_grid_pair(const uint64_t* grid, const uint16_t* off, int g) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(grid);
  return wasm_v128_load64_lane(bytes + off[2 * g + 1], wasm_v128_load64_zero(bytes + off[2 * g]), 1);
}
inline v128_t iq_grid_quad(const uint32_t* grid, const uint16_t* off, int g) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(grid);
  v128_t v = wasm_v128_load32_zero(bytes + off[4 * g]);
  v = wasm_v128_load32_lane(bytes + off[4 * g + 1], v, 1);
  v = wasm_v128_load32_lane(bytes + off[4 * g + 2], v, 2);
  return wasm_v128_load32_lane(bytes + off[4 * g + 3], v, 3);
}

// The floats at 4 places (table entries), each loaded straight into its
// lane (V8 spilled the scalars of f32x4_make to the stack).
inline v128_t load_lanes(const float* a, const float* b, const float* c, const float* d) {
  v128_t v = wasm_v128_load32_zero(a);
  v = wasm_v128_load32_lane(b, v, 1);
  v = wasm_v128_load32_lane(c, v, 2);
  return wasm_v128_load32_lane(d, v, 3);
}

// The high nibbles of v's bytes (u8x16.shr by 4) as a 16-bit shift and a
// mask: V8 spells i8x16.shr_u as that shift plus a mask it builds anew in
// three more instructions each time. low_mask: 0x0F in every byte, where the
// caller has it loaded (loaded_splat).
inline v128_t high_nibbles(v128_t v, v128_t low_mask = wasm_i8x16_splat(0x0F)) {
  return wasm_v128_and(wasm_u16x8_shr(v, 4), low_mask);
}

// Sum of the 16 products of signed bytes, as 4 int32 lanes.
inline v128_t dot_i8x16(v128_t a, v128_t b) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(a), wasm_i16x8_extend_low_i8x16(b)),
                        wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(a), wasm_i16x8_extend_high_i8x16(b)));
}

// Sum of the 16 products of int16 weights (lo: 0-7, hi: 8-15) with 16 int8
// activations in memory, each half sign-extended as it loads (one pmovsxbw
// from memory in V8, where a loaded vector's high half takes a shuffle and an
// extend).
inline v128_t dot_i16x16(v128_t lo, v128_t hi, const int8_t* b) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(lo, wasm_i16x8_load8x8(b)),
                        wasm_i32x4_dot_i16x8(hi, wasm_i16x8_load8x8(b + 8)));
}

// The same with signed-byte weights.
inline v128_t dot_i8x16(v128_t a, const int8_t* b) {
  return dot_i16x16(wasm_i16x8_extend_low_i8x16(a), wasm_i16x8_extend_high_i8x16(a), b);
}

// Integer dot of a 32-weight block given as two halves of signed bytes
// (weights 0-15 and 16-31) with 32 int8 activations.
inline v128_t block_dot_i8x32(v128_t lo, v128_t hi, const int8_t* q8) {
  return wasm_i32x4_add(dot_i8x16(lo, q8), dot_i8x16(hi, q8 + 16));
}

// Sum of the 32 products of four int16x8 weight vectors with 32 int16
// activations, as 4 int32 lanes.
inline v128_t dot_i16x32(v128_t w0, v128_t w1, v128_t w2, v128_t w3, const int16_t* y) {
  return wasm_i32x4_add(wasm_i32x4_add(wasm_i32x4_dot_i16x8(w0, wasm_v128_load(y)), wasm_i32x4_dot_i16x8(w1, wasm_v128_load(y + 8))),
                        wasm_i32x4_add(wasm_i32x4_dot_i16x8(w2, wasm_v128_load(y + 16)), wasm_i32x4_dot_i16x8(w3, wasm_v128_load(y + 24))));
}

// Calls kernel(std::integral_constant<int, T>) with T = n_tokens in [1, 4],
// so the per-token loops unroll and their accumulators stay in registers.
template <typename Kernel>
inline void dispatch_tokens(int n_tokens, Kernel&& kernel) {
  switch (n_tokens) {
    case 1: kernel(std::integral_constant<int, 1>{}); break;
    case 2: kernel(std::integral_constant<int, 2>{}); break;
    case 3: kernel(std::integral_constant<int, 3>{}); break;
    default: kernel(std::integral_constant<int, 4>{}); break;
  }
}

// Points rows[t] at token t's widened activations (a + t * act_stride) for
// the multi-token kernels.
template <typename Row, int T>
inline void token_rows(const void* a, int64_t act_stride, const Row* (&rows)[T]) {
  for (int t = 0; t < T; ++t) rows[t] = reinterpret_cast<const Row*>(static_cast<const uint8_t*>(a) + t * act_stride);
}

// acc += float(isum) * d, lane-wise.
inline v128_t add_scaled(v128_t acc, v128_t isum, float d) {
  return wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(isum), wasm_f32x4_splat(d)));
}

inline float hsum_f32(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

// The dot kernels of the float weight types keep their sums in f64, as their
// scalar references (and so the native build) do: f32 accumulators lose
// what cancels, which moved a tiny RWKV v5.1's FP16 logits past rwkv.cpp's
// bound in wasm only. *lo and *hi (f64x2 each) += the 4 lanes of p, widened.
inline void add_f64(v128_t p, v128_t* lo, v128_t* hi) {
  *lo = wasm_f64x2_add(*lo, wasm_f64x2_promote_low_f32x4(p));
  *hi = wasm_f64x2_add(*hi, wasm_f64x2_promote_low_f32x4(wasm_i64x2_shuffle(p, p, 1, 1)));
}

inline double hsum_f64(v128_t v) { return wasm_f64x2_extract_lane(v, 0) + wasm_f64x2_extract_lane(v, 1); }

// Largest lane (pmax: lanes are never NaN-propagating).
inline float hmax_f32(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

// std::round lane-wise (halfway cases away from zero), exactly.
inline v128_t round_half_away(v128_t v) {
  const v128_t t = wasm_f32x4_trunc(v);
  const v128_t f = wasm_f32x4_abs(wasm_f32x4_sub(v, t));  // exact
  const v128_t one = wasm_v128_or(wasm_f32x4_splat(1.0f), wasm_v128_and(v, wasm_i32x4_splat(INT32_MIN)));
  return wasm_f32x4_add(t, wasm_v128_and(wasm_f32x4_ge(f, wasm_f32x4_splat(0.5f)), one));
}

// hsum4_i32 in two steps, for kernels that produce a and b before c and d:
// fold_pair(a, b) has lanes a0+a2, b0+b2, a1+a3, b1+b3, and
// join_pairs(fold_pair(a, b), fold_pair(c, d)) is hsum4_i32(a, b, c, d).
inline v128_t fold_pair(v128_t a, v128_t b) {
  return wasm_i32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
}
inline v128_t join_pairs(v128_t ab, v128_t cd) {
  return wasm_i32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7));
}

// (hsum(a), hsum(b), hsum(c), hsum(d)) of four int32x4 vectors.
inline v128_t hsum4_i32(v128_t a, v128_t b, v128_t c, v128_t d) { return join_pairs(fold_pair(a, b), fold_pair(c, d)); }

// The 16 sub-block dots of a K-quant block (sub[j]: 4 int32 lanes) times
// their scales (int16x8: sub-blocks 0-7, then 8-15), summed: 4 int32 lanes.
inline v128_t scale_sub_dots16(const v128_t* sub, v128_t sc_lo, v128_t sc_hi) {
  const v128_t s0 = wasm_i32x4_mul(hsum4_i32(sub[0], sub[1], sub[2], sub[3]), wasm_i32x4_extend_low_i16x8(sc_lo));
  const v128_t s1 = wasm_i32x4_mul(hsum4_i32(sub[4], sub[5], sub[6], sub[7]), wasm_i32x4_extend_high_i16x8(sc_lo));
  const v128_t s2 = wasm_i32x4_mul(hsum4_i32(sub[8], sub[9], sub[10], sub[11]), wasm_i32x4_extend_low_i16x8(sc_hi));
  const v128_t s3 = wasm_i32x4_mul(hsum4_i32(sub[12], sub[13], sub[14], sub[15]), wasm_i32x4_extend_high_i16x8(sc_hi));
  return wasm_i32x4_add(wasm_i32x4_add(s0, s1), wasm_i32x4_add(s2, s3));
}

inline int32_t hsum_i32(v128_t v) {
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_i32x4_extract_lane(v, 0);
}

// v, through an empty asm: clang cannot see what it holds, so it keeps the
// operations on it as written instead of folding them into forms V8 lowers
// worse.
inline v128_t opaque(v128_t v) {
  __asm__("" : "+r"(v));
  return v;
}

// p[0..n) = 0 (vectors or floats) without a call to memset: clang turns a
// loop storing a known zero into one, and Emscripten's memset is a byte loop
// that took 3-4% of a prompt's time in the multi-token kernels' setup.
inline void zero_fill(v128_t* p, int n) {
  const v128_t z = opaque(wasm_i32x4_splat(0));
  for (int i = 0; i < n; ++i) p[i] = z;
}
inline void zero_fill(float* p, int n) {
  float z = 0;
  __asm__("" : "+r"(z));
  for (int i = 0; i < n; ++i) p[i] = z;
}

// Bytes 0x10 where bit j (lanes 0..15) / bit 16 + j (second result) of qh is
// set, else 0: the 5th bit of Q5_0/Q5_1 weights.
// Byte b's 8 bits as 8 bytes of 0x10 or 0 (bit k -> byte k).
struct Q5HighBitTable {
  uint64_t bytes[256];
  constexpr Q5HighBitTable() : bytes() {
    for (int b = 0; b < 256; ++b)
      for (int k = 0; k < 8; ++k)
        if (b & (1 << k)) bytes[b] |= uint64_t{0x10} << (8 * k);
  }
};
inline constexpr Q5HighBitTable kQ5HighBits{};

inline void q5_high_bits(uint32_t qh, v128_t* lo, v128_t* hi) {
  // Table lookups, not compares: no vector constants to rebuild per block.
  const uint64_t* t = kQ5HighBits.bytes;
  *lo = wasm_i64x2_make(static_cast<int64_t>(t[qh & 0xFF]), static_cast<int64_t>(t[(qh >> 8) & 0xFF]));
  *hi = wasm_i64x2_make(static_cast<int64_t>(t[(qh >> 16) & 0xFF]), static_cast<int64_t>(t[qh >> 24]));
}

// IEEE half -> float for 4 lanes held as u32, exact: exponent and mantissa
// moved into float position and scaled by 2^112 (which also turns
// subnormal halves into the right normal floats); inf/NaN get an all-ones
// exponent instead.
inline v128_t fp16x4_to_f32(v128_t h) {
  const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
  const v128_t em = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7FFF)), 13);
  const v128_t scaled = wasm_f32x4_mul(em, wasm_f32x4_splat(0x1.0p112f));
  const v128_t exp_mask = wasm_i32x4_splat(0x7C00);
  const v128_t inf_nan = wasm_i32x4_eq(wasm_v128_and(h, exp_mask), exp_mask);
  const v128_t special = wasm_v128_or(em, wasm_i32x4_splat(0x7F800000));
  return wasm_v128_or(sign, wasm_v128_bitselect(special, scaled, inf_nan));
}

// Float -> IEEE half for 4 lanes (each half in its u32 lane's low 16 bits),
// rounding to nearest even: fp32_to_fp16's bits for every float, NaNs as
// the quiet NaN 0x7E00 with their sign. The float unit does the rounding
// (Maratyszcza's FP16 method): |x| 2^112 2^-110 (inf where the half
// overflows) added to 2^(e + 15), e the exponent of x (at least -14: the
// subnormal halves' quantum), leaves the half's exponent and mantissa in
// the sum's bits 13-27 and 0-11, added with the mantissa's carry.
inline v128_t f32x4_to_fp16x4(v128_t f) {
  const v128_t twice = wasm_i32x4_add(f, f);  // the bits without the sign, shifted up
  const v128_t sign = wasm_u32x4_shr(wasm_v128_and(f, wasm_i32x4_splat(INT32_MIN)), 16);
  const v128_t scaled =
      wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_abs(f), wasm_f32x4_splat(0x1.0p+112f)), wasm_f32x4_splat(0x1.0p-110f));
  const v128_t bias = wasm_u32x4_max(wasm_v128_and(twice, wasm_i32x4_splat(static_cast<int32_t>(0xFF000000u))),
                                     wasm_i32x4_splat(0x71000000));
  const v128_t sum = wasm_f32x4_add(wasm_i32x4_add(wasm_u32x4_shr(bias, 1), wasm_i32x4_splat(0x07800000)), scaled);
  const v128_t half = wasm_i32x4_add(wasm_v128_and(wasm_u32x4_shr(sum, 13), wasm_i32x4_splat(0x7C00)),
                                     wasm_v128_and(sum, wasm_i32x4_splat(0x0FFF)));
  const v128_t nan = wasm_u32x4_gt(twice, wasm_i32x4_splat(static_cast<int32_t>(0xFF000000u)));
  return wasm_v128_or(sign, wasm_v128_bitselect(wasm_i32x4_splat(0x7E00), half, nan));
}

// 8 IEEE halves -> 8 floats (lanes 0-3 in *lo, 4-7 in *hi) times 2^-112,
// exact for finite halves (not inf/NaN), for a caller whose other factor is
// already scaled by 2^112: the float's high and low 16 bits are built in
// 16-bit lanes (sign | em >> 3 and em << 13) and interleaved; subnormal
// halves come out as the right (scaled) floats too.
inline void fp16x8_to_f32_raw(v128_t h, v128_t* lo, v128_t* hi) {
  const v128_t low16 = wasm_i16x8_shl(h, 13);
  // sign | em >> 3: the arithmetic shift copies the sign into bits 12-14, which the mask clears
  const v128_t high16 = wasm_v128_and(wasm_i16x8_shr(h, 3), wasm_i16x8_splat(static_cast<int16_t>(0x8FFF)));
  *lo = wasm_i16x8_shuffle(low16, high16, 0, 8, 1, 9, 2, 10, 3, 11);
  *hi = wasm_i16x8_shuffle(low16, high16, 4, 12, 5, 13, 6, 14, 7, 15);
}

}  // namespace wasmlm::simd
#endif
