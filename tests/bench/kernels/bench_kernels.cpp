// Kernel benchmark (wasm, under Node or in Chromium): matrix x vector throughput in GB/s of
// weight bytes streamed, for each type, with the scalar reference, SIMD on 1
// thread and SIMD on 2 threads, next to the wasm memory read bandwidth
// measured in the same run; then a 32-token matrix x matrix against 32
// separate matrix x vector calls; last, SIMD on 1 thread without the row
// touch (matmul.cpp), which decoding turns off where it measures it slower.
//
// The 4096 x 4096 weights are cycled through copies totalling >= 256 MB so
// they stream from memory, not from a large last-level cache.
#include <emscripten.h>
#include <wasm_simd128.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "compute/attention_kernels.h"
#include "compute/matmul.h"
#include "core/ggml_type.h"
#include "quant/wide_activations.h"
#include "quant/fp16.h"
#include "quant/quant_traits.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/row_quads.h"


using namespace wasmlm;
using Clock = std::chrono::steady_clock;

// Node and Chromium run different V8 versions, which compile the kernels
// differently: the table says which one ran.
EM_JS(int, running_in_node, (), { return typeof process === 'object' && !!process.versions && !!process.versions.node; });

namespace {

constexpr int64_t kDim = 4096;
constexpr uint64_t kStreamBytes = 256ull << 20;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Runs fn repeatedly for at least `min_seconds`; returns the best time per call.
template <typename F>
double best_time(F&& fn, double min_seconds = 0.4, int min_reps = 3) {
  double best = 1e30, total = 0;
  for (int rep = 0; rep < min_reps || total < min_seconds; ++rep) {
    auto t0 = Clock::now();
    fn();
    double t = seconds_since(t0);
    best = std::min(best, t);
    total += t;
  }
  return best;
}

double memory_read_gbps() {
  const size_t n = (1ull << 30) / sizeof(float);
  std::vector<float> buf(n, 1.0f);
  float sink = 0;
  double t = best_time([&] {
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < n; i += 16) {
      a0 = wasm_f32x4_add(a0, wasm_v128_load(&buf[i]));
      a1 = wasm_f32x4_add(a1, wasm_v128_load(&buf[i + 4]));
      a2 = wasm_f32x4_add(a2, wasm_v128_load(&buf[i + 8]));
      a3 = wasm_f32x4_add(a3, wasm_v128_load(&buf[i + 12]));
    }
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3));
    sink += wasm_f32x4_extract_lane(s, 0);
  }, 1.0, 3);
  if (sink == 42) std::printf(" ");
  return (n * sizeof(float)) / t / 1e9;
}

// Random weights: quantized Gaussian rows where a quantizer exists, else
// random blocks with small fp16 scales.
std::vector<uint8_t> make_weights(GgmlType type, std::mt19937& rng, int64_t rows = kDim, int64_t cols = kDim) {
  const uint64_t row_bytes = *ggml_nbytes(type, cols);
  std::vector<uint8_t> w(row_bytes * rows);
  const QuantTraits& t = quant_traits(type);
  if (t.from_float) {
    std::normal_distribution<float> dist(0.f, 1.f);
    std::vector<float> row(cols);
    for (int64_t r = 0; r < rows; ++r) {
      for (auto& v : row) v = dist(rng);
      t.from_float(row.data(), w.data() + r * row_bytes, cols);
    }
    return w;
  }
  for (auto& b : w) b = static_cast<uint8_t>(rng());
  const GgmlTypeInfo& info = ggml_type_info(type);
  const uint16_t h = fp32_to_fp16(0.01f);
  for (uint64_t b = 0; b < w.size() / info.type_size; ++b) {
    uint8_t* blk = w.data() + b * info.type_size;
    if (type == GgmlType::Q2_K) { std::memcpy(blk + 80, &h, 2); std::memcpy(blk + 82, &h, 2); }
    if (type == GgmlType::Q3_K) std::memcpy(blk + 108, &h, 2);
    if (type == GgmlType::IQ4_XS) std::memcpy(blk, &h, 2);
    if (type == GgmlType::IQ2_XXS || type == GgmlType::IQ2_XS || type == GgmlType::IQ2_S) std::memcpy(blk, &h, 2);
    if (type == GgmlType::IQ3_XXS || type == GgmlType::IQ3_S || type == GgmlType::IQ1_S) std::memcpy(blk, &h, 2);
    if (type == GgmlType::IQ1_M)  // d: the top nibbles of the 4 uint16 of scales (bytes 48-55)
      for (int k = 0; k < 4; ++k) blk[49 + 2 * k] = static_cast<uint8_t>((blk[49 + 2 * k] & 0x0F) | (((h >> 4 * k) & 0xF) << 4));
  }
  return w;
}

// The rows as a loaded model keeps them: in quads where this engine has a
// kernel for them (WeightStore::repack_on_load). Returns whether they are.
bool repack_as_loaded(GgmlType type, std::vector<uint8_t>& w, int64_t rows, int64_t cols) {
  if (!quant_traits(type).vec_dot_quads || rows % kTileRows != 0) return false;
  pack_row_quads(type, cols, rows, w.data());
  return true;
}

struct Row {
  std::string type;
  double scalar, simd1, simd2, in_cache, mm_ratio, untouched, in_rows;
};

// `--matmul TYPE ROWS COLS TOKENS [THREADS [int16|dot-add|rows|cold]]`: only
// a prompt-sized matmul on weights in cache, repeated for about 2 s, in
// GMAC/s (1 thread unless given): the figure to profile a multi-token kernel
// with. The weights are in row quads where a model's would be, except with
// int16, dot-add or rows, which keep them in rows and may pin the relaxed
// tiles' integer dots (else chosen by the engine's dot-add lowering,
// relaxed_tile_dots). `cold`: in quads, cycled through copies of >= 256 MB,
// so that they stream from memory as a model's do when it decodes (without
// the row touch), also in GB/s of weights.
int matmul_only(char** argv) {
  const std::string name = argv[0];
  const int64_t rows = std::atoll(argv[1]), cols = std::atoll(argv[2]), n_tokens = std::atoll(argv[3]);
  const std::optional<GgmlType> found = ggml_type_from_name(name);
  if (!found) return std::fprintf(stderr, "unknown type %s\n", name.c_str()), 2;
  const GgmlType type = *found;
  std::mt19937 rng(42);
  std::vector<uint8_t> w = make_weights(type, rng, rows, cols);
  std::vector<float> x(cols * n_tokens), y(rows * n_tokens);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (auto& v : x) v = dist(rng);
  ThreadPool pool(argv[4] ? std::atoi(argv[4]) : 1);
  const std::string layout = argv[4] && argv[5] ? argv[5] : "";
  const bool cold = layout == "cold";
  if (!layout.empty() && !cold && layout != "int16" && layout != "dot-add" && layout != "rows")
    return std::fprintf(stderr, "unknown layout or tile dots %s\n", layout.c_str()), 2;
  if (layout == "int16" || layout == "dot-add")
    wasmlm::pin_relaxed_tile_dots(layout == "int16" ? wasmlm::TileDots::kInt16 : wasmlm::TileDots::kDotAdd);
  const bool quads = (layout.empty() || cold) && repack_as_loaded(type, w, rows, cols);
  const uint64_t row_bytes = *ggml_nbytes(type, cols), bytes = row_bytes * rows;
  const size_t copies = cold ? std::max<uint64_t>(2, (kStreamBytes + bytes - 1) / bytes) : 1;
  std::vector<std::vector<uint8_t>> mats(copies, w);
  MatmulScratch scratch;
  scratch.row_touch.pin(false);
  const double t = best_time([&] {
    for (const auto& m : mats)
      matmul({type, cols, rows, m.data(), row_bytes, quads}, x.data(), n_tokens, y.data(), pool, scratch);
  }, 2.0) / copies;
  const char* dots = quads                                                          ? " (row quads)"
                     : !wasmlm::relaxed_simd_active()                                ? ""
                     : wasmlm::relaxed_tile_dots() == wasmlm::TileDots::kDotAdd ? " (relaxed tiles: dot-adds)"
                                                                                : " (relaxed tiles: int16 dots)";
  std::printf("%s %lld x %lld, %lld tokens%s: %.3f ms, %.1f GMAC/s, %.1f GB/s of weights%s\n", name.c_str(),
              (long long)rows, (long long)cols, (long long)n_tokens, cold ? " from memory" : "", t * 1e3,
              double(rows) * cols * n_tokens / t / 1e9, bytes / t / 1e9, dots);
  return 0;
}

// `--attention HEAD_DIM SLOTS ROWS [F16|F32 [cache]]`: one decoding step's
// attention kernels over a KV head of SLOTS positions (keys in the cache's
// blocks of 8 slots, values by slot), ROWS query heads sharing it, cycled
// through copies totalling >= 256 MB so they stream from memory (`cache`:
// two copies): GB/s of key and of value bytes, each kernel alone.
int attention_only(char** argv) {
  const int hd = std::atoi(argv[0]);
  const uint32_t slots = static_cast<uint32_t>(std::atoll(argv[1]));
  const int rows = std::atoi(argv[2]);
  const std::string element = argv[3] ? argv[3] : "F16";
  const bool in_cache = argv[3] && argv[4] && std::string(argv[4]) == "cache";
  if (hd <= 0 || hd % 8 != 0 || slots == 0 || slots % AttentionKernels::kKeyBlock != 0 || rows < 1 ||
      rows > AttentionKernels::kMaxRows || (element != "F16" && element != "F32"))
    return std::fprintf(stderr, "--attention HEAD_DIM (a multiple of 8) SLOTS (of 8) ROWS (1-4) [F16|F32]\n"), 2;
  const bool f16 = element == "F16";
  const AttentionKernels kernels{f16 ? KvElement::F16Raw : KvElement::F32, true, hd};
  const size_t esize = f16 ? 2 : 4;
  const uint64_t head_bytes = uint64_t(slots) * hd * esize;
  const size_t copies = in_cache ? 2 : std::max<size_t>(2, kStreamBytes / head_bytes);
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<std::vector<uint8_t>> heads(copies, std::vector<uint8_t>(head_bytes + 16 * hd * esize));
  for (auto& h : heads)
    for (size_t i = 0; i < h.size() / esize; ++i) {
      const float v = dist(rng);
      if (f16) reinterpret_cast<uint16_t*>(h.data())[i] = fp32_to_fp16(v);
      else reinterpret_cast<float*>(h.data())[i] = v;
    }
  std::vector<std::vector<float>> q(rows, std::vector<float>(hd)), s(rows, std::vector<float>(slots + 16)),
      acc(rows, std::vector<float>(hd));
  const float* qp[AttentionKernels::kMaxRows];
  float* sp[AttentionKernels::kMaxRows];
  float* ap[AttentionKernels::kMaxRows];
  // Even attention weights (the scores kernel overwrites them).
  const auto even_weights = [&] {
    for (int r = 0; r < rows; ++r)
      for (uint32_t j = 0; j < slots; ++j) s[r][j] = 1.0f / slots * (f16 ? kF16RawFactor : 1.0f);
  };
  for (int r = 0; r < rows; ++r) {
    for (auto& v : q[r]) v = dist(rng) * (f16 ? kF16RawFactor : 1.0f);
    qp[r] = q[r].data(), sp[r] = s[r].data(), ap[r] = acc[r].data();
  }
  even_weights();
  const double t_scores = best_time([&] {
    for (auto& h : heads) kernels.scores(h.data(), 0, qp, rows, slots, sp);
  }, 1.0) / copies;
  even_weights();
  const double t_values = best_time([&] {
    for (auto& h : heads) kernels.values(h.data(), hd, sp, rows, slots, ap);
  }, 1.0) / copies;
  std::printf("attention %s%s, head dim %d, %u slots, %d rows: scores %.3f ms (%.1f GB/s), values %.3f ms (%.1f GB/s)\n",
              element.c_str(), in_cache ? " in cache" : "", hd, slots, rows, t_scores * 1e3, head_bytes / t_scores / 1e9, t_values * 1e3,
              head_bytes / t_values / 1e9);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 6 && std::string(argv[1]) == "--matmul") return matmul_only(argv + 2);
  if (argc >= 5 && std::string(argv[1]) == "--attention") return attention_only(argv + 2);
  // Optional arguments: the type names to run (default: all).
  std::vector<std::string> only(argv + 1, argv + argc);
  std::printf("wasmlm kernel benchmark (wasm SIMD-128%s in %s; %lld x %lld weights, GB/s of weight bytes)\n\n",
              wasmlm::relaxed_simd_active() ? " with the relaxed 8-bit dot" : "", running_in_node() ? "Node" : "Chromium",
              (long long)kDim, (long long)kDim);
  const double bw = memory_read_gbps();
  std::printf("memory read bandwidth (1 GiB SIMD sum, 1 thread): %.2f GB/s\n\n", bw);
  std::fflush(stdout);

  ThreadPool pool1(1), pool2(2);
  MatmulScratch scratch;
  std::mt19937 rng(42);
  std::vector<float> x(kDim * 32), y(kDim * 32);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (auto& v : x) v = dist(rng);

  const GgmlType types[] = {GgmlType::F32,  GgmlType::F16,  GgmlType::BF16, GgmlType::Q4_0,   GgmlType::Q4_1,
                            GgmlType::Q5_0, GgmlType::Q5_1, GgmlType::Q8_0, GgmlType::Q2_K,   GgmlType::Q3_K,
                            GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K, GgmlType::IQ4_NL, GgmlType::IQ4_XS,
                            GgmlType::IQ2_XXS, GgmlType::IQ2_XS, GgmlType::IQ2_S, GgmlType::IQ3_XXS, GgmlType::IQ3_S,
                            GgmlType::IQ1_S, GgmlType::IQ1_M, GgmlType::TQ1_0, GgmlType::TQ2_0, GgmlType::MXFP4};
  std::vector<Row> rows;
  // The share of the bandwidth: of the faster of SIMD 1T with and without
  // the row touch, as decoding runs whichever it times faster.
  // Types whose rows a model keeps in quads (row_quads.h) run that way, with
  // the rows' own SIMD 1T (the faster of with and without the touch) in the
  // last column.
  std::printf("| type | scalar 1T | SIMD 1T | SIMD 2T | SIMD 1T in cache | faster 1T / bandwidth | 2T / 1T | matmul 32 tok / 32 matvec | SIMD 1T without row touch | SIMD 1T in rows, not quads |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (GgmlType type : types) {
    if (!only.empty() && std::find(only.begin(), only.end(), ggml_type_info(type).name) == only.end()) continue;
    const uint64_t bytes = *ggml_nbytes(type, kDim) * kDim;
    const size_t copies = std::max<size_t>(1, (kStreamBytes + bytes - 1) / bytes);
    std::vector<std::vector<uint8_t>> mats;
    mats.push_back(make_weights(type, rng));
    const std::vector<uint8_t> in_rows = mats.front();
    const bool quads = repack_as_loaded(type, mats.front(), kDim, kDim);
    for (size_t c = 1; c < copies; ++c) mats.push_back(mats.front());
    size_t next = 0;
    auto weight = [&]() {
      const auto& m = mats[next++ % mats.size()];
      return WeightMatrix{type, kDim, kDim, m.data(), *ggml_nbytes(type, kDim), quads};
    };
    auto gbps = [&](ThreadPool& pool, KernelChoice k) {
      const double t = best_time([&] {
        for (size_t c = 0; c < mats.size(); ++c) matvec(weight(), x.data(), y.data(), pool, scratch, k);
      }, k == KernelChoice::Reference ? 0.5 : 0.8, k == KernelChoice::Reference ? 1 : 3);
      return double(bytes) * mats.size() / t / 1e9;
    };
    Row row{ggml_type_info(type).name, gbps(pool1, KernelChoice::Reference), gbps(pool1, KernelChoice::Best),
            gbps(pool2, KernelChoice::Best), 0, 0, 0, 0};
    // The same without the row touch (which decoding chooses by timing).
    scratch.row_touch.pin(false);
    row.untouched = gbps(pool1, KernelChoice::Best);
    scratch.row_touch.pin(true);
    // The kernel matvec uses (a tile of rows at a time where the type has one), on
    // 32 rows that stay in L1/L2: its compute-bound speed.
    {
      const QuantTraits& t = quant_traits(type);
      const uint64_t row_bytes = *ggml_nbytes(type, kDim);
      std::vector<uint8_t> act(*ggml_nbytes(t.vec_dot_type, kDim));
      quant_traits(t.vec_dot_type).from_float(x.data(), act.data(), kDim);
      std::vector<uint8_t> wide;
      // As matmul.cpp picks for one token.
      const bool use_wide = t.vec_dot_wide && (t.wide_one_token || quads);
      const VecDotTileFn tile = quads ? t.vec_dot_quads : t.vec_dot_tile;
      if (use_wide) {
        wide.resize(wide_activation_bytes(t.wide_form, kDim));
        widen_activations(t.wide_form, act.data(), wide.data(), kDim, t.level_offset);
      }
      float sink = 0;
      const double secs = best_time([&] {
        for (int k = 0; k < 64; ++k) {
          if (use_wide && tile) {
            for (int r = 0; r < 32; r += kTileRows) {
              float out[kTileRows];
              tile(kDim, mats.front().data() + r * row_bytes, static_cast<int64_t>(row_bytes), kTileRows, wide.data(), 0,
                   1, out, 0);
              sink += out[0];
            }
            continue;
          }
          for (int r = 0; r < 32; ++r) {
            const uint8_t* row = mats.front().data() + r * row_bytes;
            float out;
            if (use_wide)
              t.vec_dot_wide(kDim, row, wide.data(), 0, 1, &out, 0);
            else
              out = t.vec_dot(kDim, row, act.data());
            sink += out;
          }
        }
      });
      if (sink == 42) std::printf(" ");
      row.in_cache = double(row_bytes) * 32 * 64 / secs / 1e9;
    }
    // Batch: 32 tokens in one matmul versus 32 matvec calls, on the same
    // weights (which after the first call are in the last-level cache for
    // both: the kernels' compute speed).
    const WeightMatrix batch_w = weight();
    const double t_mm = best_time([&] { matmul(batch_w, x.data(), 32, y.data(), pool1, scratch); }, 0.5);
    const double t_mv = best_time([&] {
      for (int tok = 0; tok < 32; ++tok) matvec(batch_w, x.data() + tok * kDim, y.data(), pool1, scratch);
    }, 0.5);
    row.mm_ratio = t_mv / t_mm;
    if (quads) {  // the rows as the file has them, streamed through the same copies, with or without the touch
      for (auto& m : mats) m = in_rows;
      for (bool touch : {true, false}) {
        scratch.row_touch.pin(touch);
        const double t = best_time([&] {
          for (size_t c = 0; c < mats.size(); ++c)
            matvec(WeightMatrix{type, kDim, kDim, mats[c].data(), *ggml_nbytes(type, kDim)}, x.data(), y.data(), pool1,
                   scratch);
        }, 0.8, 3);
        row.in_rows = std::max(row.in_rows, double(bytes) * mats.size() / t / 1e9);
      }
      scratch.row_touch.pin(true);
    }
    char in_rows_cell[32] = "—";
    if (quads) std::snprintf(in_rows_cell, sizeof in_rows_cell, "%.2f", row.in_rows);
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %.0f%% | %.2fx | %.2fx | %.2f | %s |\n", row.type.c_str(), row.scalar,
                row.simd1, row.simd2, row.in_cache, 100 * std::max(row.simd1, row.untouched) / bw, row.simd2 / row.simd1, row.mm_ratio,
                row.untouched, in_rows_cell);
    std::fflush(stdout);
    rows.push_back(row);
  }
  return 0;
}
