// Matrix x vector (decoding one token) and matrix x matrix (a prompt batch)
// over any weight type with a vec_dot, split by rows across a thread pool.
#pragma once

#include <cstdint>
#include <vector>

#include "compute/row_touch_tuner.h"
#include "compute/thread_pool.h"
#include "core/ggml_type.h"

namespace wasmlm {

// A 2-D weight: `rows` rows of `cols` elements, row r at data + r * row_bytes,
// or (`quads`) every 4 rows in those bytes as one quad of the type's
// QuantTraits::quad_layout (row_quads.h; rows a multiple of 4).
struct WeightMatrix {
  GgmlType type;
  int64_t cols;
  int64_t rows;
  const void* data;
  uint64_t row_bytes;
  bool quads = false;
};

enum class KernelChoice { Best, Reference };  // Reference: the scalar kernels

// A context's reusable buffers for quantized activations, and whether its
// products touch rows ahead (decided by timing its decoding steps).
struct MatmulScratch {
  std::vector<uint8_t> activations;
  std::vector<uint8_t> wide;  // activations widened to int16 (SIMD builds)
  RowTouchTuner row_touch;
};

// y[rows] = W x, with x of `cols` floats.
void matvec(const WeightMatrix& w, const float* x, float* y, ThreadPool& pool, MatmulScratch& scratch,
            KernelChoice kernels = KernelChoice::Best);

// A batch's activations as the kernels of one weight type and width read
// them (quantized to its vec_dot type, widened where its multi-token kernels
// want), in scratch's buffers. Filled a token at a time, from any threads:
// a forward pass does it in the per-token tasks that compute the rows (the
// norm before a product), so the product needs no job of its own for it.
// Valid until the next ActivationBatch on the same scratch.
class ActivationBatch {
 public:
  ActivationBatch(const WeightMatrix& w, int64_t n_tokens, MatmulScratch& scratch,
                  KernelChoice kernels = KernelChoice::Best);
  void quantize(int64_t token, const float* x) const;
  // Whether products with w over n_tokens by `kernels` read these activations.
  bool serves(const WeightMatrix& w, int64_t n_tokens, KernelChoice kernels) const;

  const uint8_t* quantized() const { return quantized_; }
  uint64_t row_bytes() const { return row_bytes_; }
  const uint8_t* wide() const { return wide_; }  // nullptr: no multi-token kernel
  uint64_t wide_bytes() const { return wide_bytes_; }

 private:
  GgmlType type_;
  int64_t cols_, n_tokens_;
  KernelChoice kernels_;
  uint8_t* quantized_;
  uint64_t row_bytes_;
  uint8_t* wide_ = nullptr;
  uint64_t wide_bytes_ = 0;
  bool copy_wide_ = false;
};

// matmul for several matrices of the same type and width against the same
// activations (LLaMA's q/k/v, gate/up): the activations are quantized once
// and all rows are one job for the pool; ys[m] as matmul's y for ws[m].
// Results are those of separate matmul calls. At most 8 matrices.
// `prepared`, if given, holds x's rows quantized already for the matrices it
// serves (ActivationBatch::serves); the others' are quantized here.
void matmul_group(const WeightMatrix* const* ws, float* const* ys, int n_mats, const float* x, int64_t n_tokens,
                  ThreadPool& pool, MatmulScratch& scratch, KernelChoice kernels = KernelChoice::Best,
                  const ActivationBatch* prepared = nullptr);

// Y = X W^T for n_tokens rows of X (each `cols` floats, contiguous):
// y[t * w.rows + r] = dot(W row r, X row t). Each weight row is read once
// per batch and reused for all tokens while in cache. `prepared` as for
// matmul_group.
void matmul(const WeightMatrix& w, const float* x, int64_t n_tokens, float* y, ThreadPool& pool,
            MatmulScratch& scratch, KernelChoice kernels = KernelChoice::Best,
            const ActivationBatch* prepared = nullptr);

}  // namespace wasmlm
