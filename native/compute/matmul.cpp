#include "compute/matmul.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "compute/touch_lines.h"
#include "core/error.h"
#include "quant/quant_traits.h"
#include "quant/quant_types.h"
#include "quant/row_quads.h"
#include "quant/wide_activations.h"

namespace wasmlm {

namespace {

// Rows per task: enough work per task to hide scheduling, enough tasks to
// balance threads.
constexpr int64_t kRowsPerTask = 64;
static_assert(kRowsPerTask % kTileRows == 0, "tasks start at a row quad");
// Rows whose cache lines are touched (touch_lines.h) a group ahead of the
// kernels, where the tuner says so: decoding reads every weight once.
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
  if (w.quads && (!t.vec_dot_quads || w.rows % kTileRows != 0))
    fail(ErrorCode::Internal, kNoOffset, "a matrix in row quads without a quad kernel or with a partial quad");
  return t;
}

// F16/BF16 weights: the f32 activations rounded through that format in place.
void round_through(const QuantTraits& rt, float* row, int64_t cols) {
  uint16_t half[256];
  for (int64_t i = 0; i < cols; i += 256) {
    const int64_t m = std::min<int64_t>(256, cols - i);
    rt.from_float(row + i, half, m);
    rt.to_float(half, row + i, m);
  }
}

// Touches rows [from, from + kTouchRows) (those that exist), so that they are
// in cache when the kernels get there.
void touch_rows(const WeightMatrix& w, int64_t from) {
  if (from >= w.rows) return;
  touch_lines(static_cast<const uint8_t*>(w.data) + from * w.row_bytes,
              std::min<int64_t>(kTouchRows, w.rows - from) * w.row_bytes);
}

// Rows [r0, r1) of w for all n_tokens, touching rows ahead if `touch`. The
// SIMD path (t.vec_dot_wide and `wide` non-null): each weight row is unpacked
// once per group of up to t.wide_tokens tokens against activations widened
// to int16, kTileRows rows at a time where the type has a tile kernel (or
// its rows are in quads: every token count); else one vec_dot per row and
// token (quads read unpacked, a quad at a time).
void run_rows(const QuantTraits& t, VecDotFn dot, const WeightMatrix& w, int64_t r0, int64_t r1, const uint8_t* act,
              uint64_t act_bytes, const uint8_t* wide, uint64_t wide_bytes, int64_t n_tokens, float* y, bool touch) {
  const auto* weights = static_cast<const uint8_t*>(w.data);
  if (wide && (n_tokens > 1 || t.wide_one_token || w.quads)) {
    const VecDotTileFn tile = w.quads ? t.vec_dot_quads : t.vec_dot_tile;
    const int64_t step = tile ? kTileRows : 1;
    for (int64_t t0 = 0; t0 < n_tokens; t0 += kWideTokenTile) {
      const int64_t t1 = std::min(n_tokens, t0 + kWideTokenTile);
      for (int64_t r = r0; r < r1; r += step) {
        if (touch && t0 == 0 && (r - r0) % kTouchRows == 0) touch_rows(w, r + kTouchRows);
        const uint8_t* row = weights + r * w.row_bytes;
        for (int64_t tok = t0; tok < t1; tok += t.wide_tokens) {
          const int n = static_cast<int>(std::min<int64_t>(t.wide_tokens, t1 - tok));
          if (tile)
            tile(w.cols, row, static_cast<int64_t>(w.row_bytes), static_cast<int>(std::min(step, r1 - r)),
                 wide + tok * wide_bytes, static_cast<int64_t>(wide_bytes), n, y + tok * w.rows + r, w.rows);
          else
            t.vec_dot_wide(w.cols, row, wide + tok * wide_bytes, static_cast<int64_t>(wide_bytes), n,
                           y + tok * w.rows + r, w.rows);
        }
      }
    }
    return;
  }
  std::vector<uint8_t> unpacked(w.quads ? kTileRows * w.row_bytes : 0);
  for (int64_t t0 = 0; t0 < n_tokens; t0 += kTokenTile) {
    const int64_t t1 = std::min(n_tokens, t0 + kTokenTile);
    for (int64_t r = r0; r < r1; ++r) {
      if (touch && t0 == 0 && (r - r0) % kTouchRows == 0) touch_rows(w, r + kTouchRows);
      const uint8_t* row = weights + r * w.row_bytes;
      if (w.quads) {
        if (r % kTileRows == 0) unpack_row_quad(w.type, w.cols, row, unpacked.data());
        row = unpacked.data() + r % kTileRows * w.row_bytes;
      }
      for (int64_t tok = t0; tok < t1; ++tok) y[tok * w.rows + r] = dot(w.cols, row, act + tok * act_bytes);
    }
  }
}

}  // namespace

// The activations quantized to the weight type's vec_dot type (the SIMD
// quantizers, same bytes, unless the reference kernels are asked for), and
// widened where the multi-token kernels take another form.
ActivationBatch::ActivationBatch(const WeightMatrix& w, int64_t n_tokens, MatmulScratch& scratch, KernelChoice kernels)
    : type_(w.type), cols_(w.cols), n_tokens_(n_tokens), kernels_(kernels) {
  const QuantTraits& t = checked_traits(w);
  row_bytes_ = *ggml_nbytes(t.vec_dot_type, cols_);
  scratch.activations.resize(row_bytes_ * n_tokens + 16);
  quantized_ = scratch.activations.data();
  const bool wide =
      kernels == KernelChoice::Best && t.vec_dot_wide && (n_tokens > 1 || t.wide_one_token || t.vec_dot_quads);
  copy_wide_ = wide && !read_as_quantized(t.wide_form);
  if (wide) {
    wide_bytes_ = copy_wide_ ? wide_activation_bytes(t.wide_form, cols_) : row_bytes_;
    if (copy_wide_) scratch.wide.resize(wide_bytes_ * n_tokens + 16);
    wide_ = copy_wide_ ? scratch.wide.data() : quantized_;
  }
}

void ActivationBatch::quantize(int64_t token, const float* x) const {
  const QuantTraits& t = quant_traits(type_);
  const QuantTraits& at = quant_traits(t.vec_dot_type);
  const FromFloatFn from_float =
      kernels_ == KernelChoice::Best && at.from_float_fast ? at.from_float_fast : at.from_float;
  uint8_t* row = quantized_ + token * row_bytes_;
  from_float(x, row, cols_);
  if (t.round_activations_to != GgmlType::F32)
    round_through(quant_traits(t.round_activations_to), reinterpret_cast<float*>(row), cols_);
  if (copy_wide_) widen_activations(t.wide_form, row, wide_ + token * wide_bytes_, cols_, t.level_offset);
}

bool ActivationBatch::serves(const WeightMatrix& w, int64_t n_tokens, KernelChoice kernels) const {
  return w.type == type_ && w.cols == cols_ && n_tokens == n_tokens_ && kernels == kernels_;
}

void matvec(const WeightMatrix& w, const float* x, float* y, ThreadPool& pool, MatmulScratch& scratch,
            KernelChoice kernels) {
  matmul(w, x, 1, y, pool, scratch, kernels);
}

void matmul(const WeightMatrix& w, const float* x, int64_t n_tokens, float* y, ThreadPool& pool,
            MatmulScratch& scratch, KernelChoice kernels, const ActivationBatch* prepared) {
  const WeightMatrix* ws[1] = {&w};
  float* ys[1] = {y};
  matmul_group(ws, ys, 1, x, n_tokens, pool, scratch, kernels, prepared);
}

void matmul_group(const WeightMatrix* const* ws, float* const* ys, int n_mats, const float* x, int64_t n_tokens,
                  ThreadPool& pool, MatmulScratch& scratch, KernelChoice kernels, const ActivationBatch* prepared) {
  if (n_mats <= 0) return;
  if (n_mats > 8) fail(ErrorCode::Unsupported, kNoOffset, "matmul_group: more than 8 matrices");
  const WeightMatrix& w0 = *ws[0];
  for (int m = 1; m < n_mats; ++m)
    if (ws[m]->type != w0.type || ws[m]->cols != w0.cols) {
      // Not one group: one by one, those the prepared activations serve
      // first (the others quantize into the same scratch).
      auto served = [&](int k) { return prepared && prepared->serves(*ws[k], n_tokens, kernels); };
      const WeightMatrix* served_ws[8];
      float* served_ys[8];
      int n_served = 0;
      for (int k = 0; k < n_mats; ++k)
        if (served(k)) served_ws[n_served] = ws[k], served_ys[n_served++] = ys[k];
      matmul_group(served_ws, served_ys, n_served, x, n_tokens, pool, scratch, kernels, prepared);
      for (int k = 0; k < n_mats; ++k)
        if (!served(k)) matmul(*ws[k], x, n_tokens, ys[k], pool, scratch, kernels);
      return;
    }
  const QuantTraits& t = checked_traits(w0);
  const VecDotFn dot = kernels == KernelChoice::Reference ? t.vec_dot_ref : t.vec_dot;
  // A job of its own when not prepared: a task per token (done serially,
  // quantizing and widening a prompt's activations was a few percent of its
  // time on 2 threads).
  std::optional<ActivationBatch> own;
  if (!prepared || !prepared->serves(w0, n_tokens, kernels)) {
    own.emplace(w0, n_tokens, scratch, kernels);
    pool.parallel_for(static_cast<int>(n_tokens), [&](int tok, int) { own->quantize(tok, x + tok * w0.cols); });
    prepared = &*own;
  }
  const ActivationBatch& a = *prepared;
  const bool touch = scratch.row_touch.touch();
  // One task list over the rows of all the matrices.
  int64_t first_task[8 + 1] = {0};
  for (int m = 0; m < n_mats; ++m) first_task[m + 1] = first_task[m] + (ws[m]->rows + kRowsPerTask - 1) / kRowsPerTask;
  pool.parallel_for(static_cast<int>(first_task[n_mats]), [&](int task, int) {
    int m = 0;
    while (task >= first_task[m + 1]) ++m;
    const WeightMatrix& w = *ws[m];
    const int64_t r0 = (task - first_task[m]) * kRowsPerTask, r1 = std::min(w.rows, r0 + kRowsPerTask);
    run_rows(t, dot, w, r0, r1, a.quantized(), a.row_bytes(), a.wide(), a.wide_bytes(), n_tokens, ys[m], touch);
  });
}

}  // namespace wasmlm
