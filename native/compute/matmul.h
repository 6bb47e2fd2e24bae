// Matrix x vector (decoding one token) and matrix x matrix (a prompt batch)
// over any weight type with a vec_dot, split by rows across a thread pool.
#pragma once

#include <cstdint>
#include <vector>

#include "compute/row_touch_tuner.h"
#include "compute/thread_pool.h"
#include "core/ggml_type.h"

namespace wasmlm {

// A 2-D weight: `rows` rows of `cols` elements, row r at data + r * row_bytes.
struct WeightMatrix {
  GgmlType type;
  int64_t cols;
  int64_t rows;
  const void* data;
  uint64_t row_bytes;
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

// Y = X W^T for n_tokens rows of X (each `cols` floats, contiguous):
// y[t * w.rows + r] = dot(W row r, X row t). Each weight row is read once
// per batch and reused for all tokens while in cache.
void matmul(const WeightMatrix& w, const float* x, int64_t n_tokens, float* y, ThreadPool& pool,
            MatmulScratch& scratch, KernelChoice kernels = KernelChoice::Best);

// matmul for several matrices of the same type and width against the same
// activations (LLaMA's q/k/v, gate/up): the activations are quantized once
// and all rows are one job for the pool; ys[m] as matmul's y for ws[m].
// Results are those of separate matmul calls. At most 8 matrices.
void matmul_group(const WeightMatrix* const* ws, float* const* ys, int n_mats, const float* x, int64_t n_tokens,
                  ThreadPool& pool, MatmulScratch& scratch, KernelChoice kernels = KernelChoice::Best);

}  // namespace wasmlm
