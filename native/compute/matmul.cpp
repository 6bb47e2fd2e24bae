#include "compute/matmul.h"

#include <algorithm>

#include "core/error.h"
#include "quant/quant_traits.h"
#include "quant/quant_types.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

// Rows per task: enough work per task to hide scheduling, enough tasks to
// balance threads.
constexpr int64_t kRowsPerTask = 64;
// Rows whose cache lines are touched (one load per 64 bytes) a group ahead
// of the kernels, where the tuner says so. Decoding reads every weight once:
// where memory latency is long and the hardware prefetcher weak (measured on
// a 2-core VM: the SIMD-128 Q4_0 kernel at 3.4 GB/s from memory against 8.2
// in cache), the kernels' own loads are too few in flight to stream the
// weights; a burst of plain loads over the next group is.
constexpr int64_t kTouchRows = 16;
static_assert(kTouchRows % kTileRows == 0, "a tile's rows are touched in one burst");
// Tokens per inner tile in matmul: their activations stay in L1/L2 while a
// weight row is reused against them.
constexpr int64_t kTokenTile = 8;
// Wide kernels: tokens per tile (their int16 activations stay in L2).
constexpr int64_t kWideTokenTile = kMaxWideTokens;

const QuantTraits& checked_traits(const WeightMatrix& w) {
  const QuantTraits& t = quant_traits(w.type);
  if (!t.vec_dot)
    fail(ErrorCode::Unsupported, kNoOffset,
         std::string("no matrix kernel for tensor type ") + ggml_type_info(w.type).name);
  if (w.cols % ggml_type_info(t.vec_dot_type).block_size != 0 || w.cols % ggml_type_info(w.type).block_size != 0)
    fail(ErrorCode::Unsupported, kNoOffset, "matrix rows are not a whole number of quantization blocks");
  return t;
}

// The activations as the kernels read them: quantized to the weight type's
// vec_dot type (the SIMD quantizers, same bytes, unless the reference kernels
// are asked for), and widened where the multi-token kernels take another form.
struct Activations {
  const uint8_t* quantized;
  uint64_t row_bytes;
  const uint8_t* wide = nullptr;  // nullptr: no multi-token kernel
  uint64_t wide_bytes = 0;
};

// F16/BF16 weights: the f32 activations rounded through that format in place.
void round_through(const QuantTraits& rt, float* row, int64_t cols) {
  uint16_t half[256];
  for (int64_t i = 0; i < cols; i += 256) {
    const int64_t m = std::min<int64_t>(256, cols - i);
    rt.from_float(row + i, half, m);
    rt.to_float(half, row + i, m);
  }
}

// A task per token: done serially, quantizing and widening a prompt's
// activations was a few percent of its time on 2 threads.
Activations prepare_activations(const QuantTraits& t, const float* x, int64_t cols, int64_t n_tokens,
                                ThreadPool& pool, MatmulScratch& scratch, KernelChoice kernels) {
  Activations a;
  a.row_bytes = *ggml_nbytes(t.vec_dot_type, cols);
  scratch.activations.resize(a.row_bytes * n_tokens + 16);
  a.quantized = scratch.activations.data();
  const bool wide = kernels == KernelChoice::Best && t.vec_dot_wide && (n_tokens > 1 || t.wide_one_token);
  const bool copy = wide && !read_as_quantized(t.wide_form);
  if (wide) {
    a.wide_bytes = copy ? wide_activation_bytes(t.wide_form, cols) : a.row_bytes;
    if (copy) scratch.wide.resize(a.wide_bytes * n_tokens + 16);
    a.wide = copy ? scratch.wide.data() : a.quantized;
  }
  const QuantTraits& at = quant_traits(t.vec_dot_type);
  const FromFloatFn from_float =
      kernels == KernelChoice::Best && at.from_float_fast ? at.from_float_fast : at.from_float;
  const QuantTraits* round_to =
      t.round_activations_to != GgmlType::F32 ? &quant_traits(t.round_activations_to) : nullptr;
  auto one = [&](int64_t tok) {
    uint8_t* row = scratch.activations.data() + tok * a.row_bytes;
    from_float(x + tok * cols, row, cols);
    if (round_to) round_through(*round_to, reinterpret_cast<float*>(row), cols);
    if (copy) widen_activations(t.wide_form, row, scratch.wide.data() + tok * a.wide_bytes, cols);
  };
  pool.parallel_for(static_cast<int>(n_tokens), [&](int tok, int) { one(tok); });
  return a;
}

// Loads one byte of every cache line of rows [from, from + kTouchRows) (those
// that exist), so that they are in cache when the kernels get there.
void touch_rows(const WeightMatrix& w, int64_t from) {
  if (from >= w.rows) return;
  const auto* p = static_cast<const volatile uint8_t*>(w.data) + from * w.row_bytes;
  const uint64_t bytes = std::min<int64_t>(kTouchRows, w.rows - from) * w.row_bytes;
  for (uint64_t b = 0; b < bytes; b += 64) (void)p[b];
}

// Rows [r0, r1) of w for all n_tokens, touching rows ahead if `touch`. The
// SIMD path (t.vec_dot_wide and `wide` non-null): each weight row is unpacked
// once per group of up to t.wide_tokens tokens against activations widened
// to int16, kTileRows rows at a time where the type has a tile kernel; else
// one vec_dot per row and token.
void run_rows(const QuantTraits& t, VecDotFn dot, const WeightMatrix& w, int64_t r0, int64_t r1, const uint8_t* act,
              uint64_t act_bytes, const uint8_t* wide, uint64_t wide_bytes, int64_t n_tokens, float* y, bool touch) {
  const auto* weights = static_cast<const uint8_t*>(w.data);
  if (wide) {
    const int64_t step = t.vec_dot_tile ? kTileRows : 1;
    for (int64_t t0 = 0; t0 < n_tokens; t0 += kWideTokenTile) {
      const int64_t t1 = std::min(n_tokens, t0 + kWideTokenTile);
      for (int64_t r = r0; r < r1; r += step) {
        if (touch && t0 == 0 && (r - r0) % kTouchRows == 0) touch_rows(w, r + kTouchRows);
        const uint8_t* row = weights + r * w.row_bytes;
        for (int64_t tok = t0; tok < t1; tok += t.wide_tokens) {
          const int n = static_cast<int>(std::min<int64_t>(t.wide_tokens, t1 - tok));
          if (t.vec_dot_tile)
            t.vec_dot_tile(w.cols, row, static_cast<int64_t>(w.row_bytes), static_cast<int>(std::min(step, r1 - r)),
                           wide + tok * wide_bytes, static_cast<int64_t>(wide_bytes), n, y + tok * w.rows + r, w.rows);
          else
            t.vec_dot_wide(w.cols, row, wide + tok * wide_bytes, static_cast<int64_t>(wide_bytes), n,
                           y + tok * w.rows + r, w.rows);
        }
      }
    }
    return;
  }
  for (int64_t t0 = 0; t0 < n_tokens; t0 += kTokenTile) {
    const int64_t t1 = std::min(n_tokens, t0 + kTokenTile);
    for (int64_t r = r0; r < r1; ++r) {
      if (touch && t0 == 0 && (r - r0) % kTouchRows == 0) touch_rows(w, r + kTouchRows);
      const uint8_t* row = weights + r * w.row_bytes;
      for (int64_t tok = t0; tok < t1; ++tok) y[tok * w.rows + r] = dot(w.cols, row, act + tok * act_bytes);
    }
  }
}

}  // namespace

void matvec(const WeightMatrix& w, const float* x, float* y, ThreadPool& pool, MatmulScratch& scratch,
            KernelChoice kernels) {
  matmul(w, x, 1, y, pool, scratch, kernels);
}

void matmul(const WeightMatrix& w, const float* x, int64_t n_tokens, float* y, ThreadPool& pool,
            MatmulScratch& scratch, KernelChoice kernels) {
  const WeightMatrix* ws[1] = {&w};
  float* ys[1] = {y};
  matmul_group(ws, ys, 1, x, n_tokens, pool, scratch, kernels);
}

void matmul_group(const WeightMatrix* const* ws, float* const* ys, int n_mats, const float* x, int64_t n_tokens,
                  ThreadPool& pool, MatmulScratch& scratch, KernelChoice kernels) {
  if (n_mats <= 0) return;
  const WeightMatrix& w0 = *ws[0];
  for (int m = 1; m < n_mats; ++m)
    if (ws[m]->type != w0.type || ws[m]->cols != w0.cols) {  // not one group: one by one
      for (int k = 0; k < n_mats; ++k) matmul(*ws[k], x, n_tokens, ys[k], pool, scratch, kernels);
      return;
    }
  const QuantTraits& t = checked_traits(w0);
  const VecDotFn dot = kernels == KernelChoice::Reference ? t.vec_dot_ref : t.vec_dot;
  const Activations a = prepare_activations(t, x, w0.cols, n_tokens, pool, scratch, kernels);
  const bool touch = scratch.row_touch.touch();
  // One task list over the rows of all the matrices.
  int64_t first_task[8 + 1] = {0};
  if (n_mats > 8) fail(ErrorCode::Unsupported, kNoOffset, "matmul_group: more than 8 matrices");
  for (int m = 0; m < n_mats; ++m) first_task[m + 1] = first_task[m] + (ws[m]->rows + kRowsPerTask - 1) / kRowsPerTask;
  pool.parallel_for(static_cast<int>(first_task[n_mats]), [&](int task, int) {
    int m = 0;
    while (task >= first_task[m + 1]) ++m;
    const WeightMatrix& w = *ws[m];
    const int64_t r0 = (task - first_task[m]) * kRowsPerTask, r1 = std::min(w.rows, r0 + kRowsPerTask);
    run_rows(t, dot, w, r0, r1, a.quantized, a.row_bytes, a.wide, a.wide_bytes, n_tokens, ys[m], touch);
  });
}

}  // namespace wasmlm
