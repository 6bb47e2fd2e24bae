// Activations widened to int16 once per matrix product, so the SIMD kernels
// feed i32x4.dot_i16x8 directly: wasm SIMD-128 has no int8 dot product, and
// widening the activations inside every weight row's dot would repeat the
// same work rows times. The integer values are those of the Q8_0 / Q8_K
// activations ggml uses, so results stay the same. (Two forms stay int8, laid
// out for the relaxed-SIMD kernels: group_q8_0r, group_q8_1r.)
#pragma once

#include <cstdint>

#include "core/ggml_type.h"
#include "quant/blocks.h"

namespace wasmlm {

struct block_q8_0w {
  int16_t qs[QK8_0];
  // 8 x the sums of qs in each int32 lane of simd128.h's dot_i16x32 (lane k:
  // qs[8m + 2k] + qs[8m + 2k + 1] over m): the Q4_0 kernel's dot with
  // unsigned nibbles minus this equals its dot with (nibble - 8), lane by lane.
  int32_t sum8[4];
  float d;
};

// Q8_0 activations of Q8_0 weights in groups of 4 blocks, the scales side by
// side: the kernel sums each block's integer dot into one lane of a vector
// and does the 4 blocks' float work in one go. The last group is padded with
// zero blocks.
struct group_q8_0w {
  int16_t qs[4 * QK8_0];
  float d[4];
};

// Q8_1 (Q4_1/Q5_1 activations): the int16 values, d, and s = d * sum(qs) as
// the Q8_1 block stores it (an fp16, here widened to float).
struct block_q8_1w {
  int16_t qs[QK8_1];
  float d;
  float s;
};

struct block_q8_Kw {
  int16_t qs[QK_K];
  int16_t bsums[QK_K / 16];  // sums of 16 consecutive qs
  int16_t gsums[QK_K / 32];  // sums of 32 consecutive qs
  float d;
};

// Q8_0 / Q8_1 activations for the relaxed-SIMD kernels of the 32-weight
// types (relaxed/group_kernel_relaxed.h): still int8 (the 8-bit dot reads
// them as they are), in groups of 4 blocks with their scales and sums side by
// side, so that one vector op does a group's float work. The last group is
// padded with zero blocks.
struct group_q8_0r {
  int8_t qs[4 * QK8_0];
  // -offset x the sum of each block's qs, for weights whose levels carry an
  // offset (w = d (level - offset)): the kernels start each block's integer
  // dot from it, which gives the dot with (level - offset).
  int32_t offset_sums[4];
  float d[4];
};

struct group_q8_1r {
  int8_t qs[4 * QK8_1];
  float d[4];
  float s[4];  // each block's s (d * sum(qs), the Q8_1 block's fp16)
};

// F32 activations (of F16 weights) have a "wide" form too: the values times
// 2^112, exact (they are F16-rounded, so at most 65504), which spares the F16
// kernel the scaling of every converted half (simd128.h's fp16x8_to_f32_raw).
constexpr float kF16RawScale = 0x1.0p112f;

// The forms above; a kernel names the one it reads (QuantTraits::wide_form).
enum class WideForm : uint8_t {
  None,
  Q8_0,        // block_q8_0w
  Q8_1,        // block_q8_1w
  Q8_K,        // block_q8_Kw
  F32,         // floats x kF16RawScale
  Q8_0Groups,  // group_q8_0r
  Q8_0WideGroups,  // group_q8_0w
  Q8_1Groups,  // group_q8_1r
  Q8_KAsIs,    // block_q8_K unchanged (the relaxed K-quant kernels read int8)
  F32AsIs,     // floats unchanged (BF16: already rounded)
};

// Whether the form is the quantized activations themselves (no copy).
inline bool read_as_quantized(WideForm form) { return form == WideForm::Q8_KAsIs || form == WideForm::F32AsIs; }

// The form widened from `vec_dot_type` activations unless a kernel asks for
// another; None: that type has none.
WideForm default_wide_form(GgmlType vec_dot_type);
// Bytes of n widened activations.
uint64_t wide_activation_bytes(WideForm form, int64_t n);
// src: n activations quantized to the form's vec_dot_type (Q8_0 for
// Q8_0Groups, Q8_1 for Q8_1Groups); dst: their widened form. level_offset:
// the weights' (QuantTraits::level_offset), which Q8_0Groups bakes in.
void widen_activations(WideForm form, const void* src, void* dst, int64_t n, int level_offset);

}  // namespace wasmlm
