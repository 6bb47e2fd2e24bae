// What each tensor type can do, in one table indexed by type (ggml's type
// traits): the reference row functions every kernel is checked against.
#pragma once

#include <cstdint>

#include "core/ggml_type.h"
#include "quant/row_quads.h"
#include "quant/wide_activations.h"

namespace wasmlm {

using ToFloatFn = void (*)(const void* src, float* dst, int64_t n);
using FromFloatFn = void (*)(const float* src, void* dst, int64_t n);
// Dot product of n weights with n activations quantized to vec_dot_type.
using VecDotFn = float (*)(int64_t n, const void* weights, const void* activations);
// One weight row against 1 to QuantTraits::wide_tokens tokens' widened
// activations (wide_activations.h):
// out[t * out_stride] = dot(weights, activations + t * act_stride).
using VecDotWideFn = void (*)(int64_t n, const void* weights, const void* activations, int64_t act_stride,
                              int n_tokens, float* out, int64_t out_stride);

// Up to kTileRows weight rows (row r at weights + r * row_bytes) against 1 to
// QuantTraits::wide_tokens tokens: out[t * out_stride + r], each row the
// bits vec_dot_wide gives it alone.
constexpr int kTileRows = 4;
using VecDotTileFn = void (*)(int64_t n, const void* weights, int64_t row_bytes, int n_rows, const void* activations,
                              int64_t act_stride, int n_tokens, float* out, int64_t out_stride);

struct QuantTraits {
  GgmlType type;
  ToFloatFn to_float;      // nullptr: this type cannot be dequantized yet
  FromFloatFn from_float;  // reference quantizer; nullptr: none
  VecDotFn vec_dot;        // fastest available (SIMD-128 in wasm); nullptr: not a weight type yet
  VecDotFn vec_dot_ref;    // the scalar reference vec_dot is checked against
  GgmlType vec_dot_type;   // what activations are quantized to for vec_dot
  // F16/BF16 weights: ggml rounds activations to that format first. The
  // products of two such values are exact in f32, so rounding the f32
  // activations once gives ggml's products with the fast f16 x f32 kernel.
  GgmlType round_activations_to = GgmlType::F32;  // F32: no rounding
  // SIMD builds: the same dot against widened activations, several tokens per
  // pass over the weights. nullptr: matrix products use vec_dot.
  VecDotWideFn vec_dot_wide = nullptr;
  WideForm wide_form = WideForm::None;  // the activations vec_dot_wide reads
  int level_offset = 0;  // of the weights' levels where the wide form bakes it in (widen_activations)
  int wide_tokens = 4;  // the most tokens vec_dot_wide takes per call (<= kMaxWideTokens)
  // Whether one token goes through vec_dot_wide too; false where vec_dot is
  // faster for one token (it must give the same bits).
  bool wide_one_token = true;
  // vec_dot_wide over kTileRows rows at once where a kernel has that form
  // (the rows share each token's activations); nullptr: row by row.
  VecDotTileFn vec_dot_tile = nullptr;
  // Weights repacked at load into row quads (row_quads.h) where a kernel
  // reads them: vec_dot_quads is vec_dot_tile over one quad, for 1 to
  // wide_tokens tokens (one included), each row the bits vec_dot gives it.
  // nullptr: the type stays in rows.
  QuadLayout quad_layout{};
  VecDotTileFn vec_dot_quads = nullptr;
  // SIMD builds: a faster from_float giving the same bytes; nullptr: none.
  FromFloatFn from_float_fast = nullptr;
};

const QuantTraits& quant_traits(GgmlType type);

}  // namespace wasmlm
