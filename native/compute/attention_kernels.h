// The inner loops of attention over a KV cache as it is stored (kv_cache.h):
// a head's keys transposed in blocks of 8 slots (dim i of slot s at
// (s / 8) * 8 * head_dim + i * 8 + s % 8) and its values by slot (dim i of
// key j at v[j * v_stride + i]), in F32 or F16 read in place.
//
// Each kernel serves 1 to kMaxRows query rows at once, so a key or value
// loaded (and converted) once is used by every query head of a group and
// every token of a tile. The sums run in a fixed order (scores over i,
// values over j), lane by lane, so the SIMD and scalar kernels give the same
// bits, and so does any split of the rows into calls.
#pragma once

#include <cstdint>

namespace wasmlm {

enum class KvElement : uint8_t {
  F32,
  // F16 converted in registers without its 2^112 scaling (simd128.h's
  // fp16x8_to_f32_raw): exact for finite halves when the other factor was
  // multiplied by kF16RawFactor. Not for a cache holding inf or NaN.
  F16Raw,
  // F16 converted exactly (any half).
  F16,
  // Q8_0 blocks along the head dim, a row of head_dim / 32 blocks per slot
  // (keys and values alike); the queries quantized to Q8_0 as well, as
  // llama.cpp's CPU flash attention computes with a Q8_0 cache.
  Q8_0,
};

// The factor F16Raw's other operands carry (queries, attention weights).
constexpr float kF16RawFactor = 0x1.0p112f;

struct AttentionKernels {
  static constexpr int kMaxRows = 4;
  KvElement element;
  bool simd;  // false: the scalar loops (the reference the SIMD ones are tested against)
  int head_dim;

  static constexpr uint32_t kKeyBlock = 8;
  // s[r][j] = sum over i in order of q[r][i] * key(slot0 + j, i), j < n. The
  // SIMD kernels read the whole blocks around those slots and write nothing
  // past s[r][n - 1].
  // Q8_0: k is the first row, slot0 the first slot's row, q[r] points to the
  // query's blocks; a score is the sum over blocks in order of
  // float(integer dot) * (d_k * d_q).
  void scores(const void* k, uint32_t slot0, const float* const* q, int rows, uint32_t n, float* const* s) const;
  // acc[r][i] += w[r][j] * value(j, i) for j < n in order, i < head_dim
  // (Q8_0: v_stride in bytes; value = d * q).
  void values(const void* v, uint64_t v_stride, const float* const* w, int rows, uint32_t n, float* const* acc) const;
};

// s[j] *= scale for j < n; returns the largest (NaN if any is NaN).
float scale_scores(float* s, uint32_t n, float scale, bool simd);

// s[j] = e^(s[j] - max) for j < n, from exp_poly.h (the same bits in scalar
// and SIMD code), 0 where s[j] - max < -87 (e^-87 is 1.6e-38), e^87 where
// it is above 87 (only non-finite scores); returns their sum in double,
// added in order.
double exp_scores(float* s, uint32_t n, float max, bool simd);

// out[j] = fp16_to_fp32(fp32_to_fp16(x[j] * pre)) * factor, for every float
// (out may be x): queries and attention weights, which llama.cpp rounds to
// F16 against an F16 cache.
void round_to_f16(const float* x, float* out, uint32_t n, float pre, float factor, bool simd);

}  // namespace wasmlm
