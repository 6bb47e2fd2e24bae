#include "compute/matmul.h"

#include <algorithm>

#include "core/error.h"
#include "quant/quant_traits.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

// Rows per task: enough work per task to hide scheduling, enough tasks to
// balance threads.
constexpr int64_t kRowsPerTask = 64;
// Tokens per inner tile in matmul: their activations stay in L1/L2 while a
// weight row is reused against them.
constexpr int64_t kTokenTile = 8;
// Wide kernels: tokens per tile (their int16 activations stay in L2) and per
// kernel call (one pass over a weight row).
constexpr int64_t kWideTokenTile = 16;
constexpr int64_t kWideTokensPerCall = 4;

const QuantTraits& checked_traits(const WeightMatrix& w) {
  const QuantTraits& t = quant_traits(w.type);
  if (!t.vec_dot)
    fail(ErrorCode::Unsupported, kNoOffset,
         std::string("no matrix kernel for tensor type ") + ggml_type_info(w.type).name);
  if (w.cols % ggml_type_info(t.vec_dot_type).block_size != 0 || w.cols % ggml_type_info(w.type).block_size != 0)
    fail(ErrorCode::Unsupported, kNoOffset, "matrix rows are not a whole number of quantization blocks");
  return t;
}

// Quantizes n_tokens rows of activations to the weight type's vec_dot type.
const uint8_t* quantize_activations(const QuantTraits& t, const float* x, int64_t cols, int64_t n_tokens,
                                    MatmulScratch& scratch, uint64_t* row_bytes) {
  *row_bytes = *ggml_nbytes(t.vec_dot_type, cols);
  scratch.activations.resize(*row_bytes * n_tokens + 16);
  const QuantTraits& at = quant_traits(t.vec_dot_type);
  for (int64_t tok = 0; tok < n_tokens; ++tok)
    at.from_float(x + tok * cols, scratch.activations.data() + tok * *row_bytes, cols);
  if (t.round_activations_to != GgmlType::F32) {
    // Round trip through the weights' 16-bit format (activations stay f32).
    const QuantTraits& rt = quant_traits(t.round_activations_to);
    std::vector<uint16_t> half(cols);
    for (int64_t tok = 0; tok < n_tokens; ++tok) {
      auto* row = reinterpret_cast<float*>(scratch.activations.data() + tok * *row_bytes);
      rt.from_float(row, half.data(), cols);
      rt.to_float(half.data(), row, cols);
    }
  }
  return scratch.activations.data();
}

// The SIMD path: activations widened to int16 once, then each weight row is
// unpacked once per group of up to 4 tokens.
void matmul_wide(const QuantTraits& t, const WeightMatrix& w, const uint8_t* act, uint64_t act_bytes,
                 int64_t n_tokens, float* y, ThreadPool& pool, MatmulScratch& scratch) {
  const uint64_t wide_bytes = wide_activation_bytes(t.vec_dot_type, w.cols);
  scratch.wide.resize(wide_bytes * n_tokens + 16);
  for (int64_t tok = 0; tok < n_tokens; ++tok)
    widen_activations(t.vec_dot_type, act + tok * act_bytes, scratch.wide.data() + tok * wide_bytes, w.cols);
  const uint8_t* wide = scratch.wide.data();
  const auto* weights = static_cast<const uint8_t*>(w.data);
  const int64_t n_tasks = (w.rows + kRowsPerTask - 1) / kRowsPerTask;
  pool.parallel_for(static_cast<int>(n_tasks), [&](int task, int) {
    const int64_t r0 = task * kRowsPerTask, r1 = std::min(w.rows, r0 + kRowsPerTask);
    for (int64_t t0 = 0; t0 < n_tokens; t0 += kWideTokenTile) {
      const int64_t t1 = std::min(n_tokens, t0 + kWideTokenTile);
      for (int64_t r = r0; r < r1; ++r) {
        const uint8_t* row = weights + r * w.row_bytes;
        for (int64_t tok = t0; tok < t1; tok += kWideTokensPerCall)
          t.vec_dot_wide(w.cols, row, wide + tok * wide_bytes, static_cast<int64_t>(wide_bytes),
                         static_cast<int>(std::min(kWideTokensPerCall, t1 - tok)), y + tok * w.rows + r, w.rows);
      }
    }
  });
}

}  // namespace

void matvec(const WeightMatrix& w, const float* x, float* y, ThreadPool& pool, MatmulScratch& scratch,
            KernelChoice kernels) {
  matmul(w, x, 1, y, pool, scratch, kernels);
}

void matmul(const WeightMatrix& w, const float* x, int64_t n_tokens, float* y, ThreadPool& pool,
            MatmulScratch& scratch, KernelChoice kernels) {
  const QuantTraits& t = checked_traits(w);
  const VecDotFn dot = kernels == KernelChoice::Reference ? t.vec_dot_ref : t.vec_dot;
  uint64_t act_bytes;
  const uint8_t* act = quantize_activations(t, x, w.cols, n_tokens, scratch, &act_bytes);
  if (kernels == KernelChoice::Best && t.vec_dot_wide) return matmul_wide(t, w, act, act_bytes, n_tokens, y, pool, scratch);
  const auto* weights = static_cast<const uint8_t*>(w.data);
  const int64_t n_tasks = (w.rows + kRowsPerTask - 1) / kRowsPerTask;
  pool.parallel_for(static_cast<int>(n_tasks), [&](int task, int) {
    const int64_t r0 = task * kRowsPerTask, r1 = std::min(w.rows, r0 + kRowsPerTask);
    for (int64_t t0 = 0; t0 < n_tokens; t0 += kTokenTile) {
      const int64_t t1 = std::min(n_tokens, t0 + kTokenTile);
      for (int64_t r = r0; r < r1; ++r) {
        const uint8_t* row = weights + r * w.row_bytes;
        for (int64_t tok = t0; tok < t1; ++tok) y[tok * w.rows + r] = dot(w.cols, row, act + tok * act_bytes);
      }
    }
  });
}

}  // namespace wasmlm
