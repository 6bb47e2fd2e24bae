// Every SIMD-128 vec_dot against its scalar reference, on random data:
// K-quants, IQ4_XS, IQ1_*-IQ3_* and the ternary types accumulate integers exactly as the scalar code and must
// agree to the bit; the others reorder float sums and agree within 1e-5.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "compute/matmul.h"
#include "compute/thread_pool.h"
#include "core/ggml_type.h"
#include "quant/fp16.h"
#include "quant/k_scales.h"
#include "quant/quant_traits.h"
#include "quant/quant_types.h"
#include "quant/row_quads.h"
#include "quant/relaxed/relaxed_kernels.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/wide_activations.h"

using namespace wasmlm;

namespace {

std::vector<float> random_floats(int64_t n, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Random weights of `type`: quantized random floats where a quantizer exists,
// else random bytes with sane fp16 scales.
std::vector<uint8_t> random_weights(GgmlType type, int64_t n, std::mt19937& rng) {
  const GgmlTypeInfo& info = ggml_type_info(type);
  std::vector<uint8_t> w(*ggml_nbytes(type, n) + 16);
  const QuantTraits& t = quant_traits(type);
  if (t.from_float) {
    std::vector<float> x = random_floats(n, rng);
    t.from_float(x.data(), w.data(), n);
    return w;
  }
  for (auto& b : w) b = static_cast<uint8_t>(rng());
  // Q2_K: d, dmin at 80; Q3_K: d at 108; IQ4_XS: d at 0; TQ1_0: d at 52; TQ2_0: d at 64.
  auto set_half = [&](size_t at) {
    std::uniform_real_distribution<float> d(-0.05f, 0.05f);
    uint16_t h = fp32_to_fp16(d(rng));
    std::memcpy(&w[at], &h, 2);
  };
  for (int64_t b = 0; b < n / info.block_size; ++b) {
    size_t base = b * info.type_size;
    if (type == GgmlType::Q2_K) { set_half(base + 80); set_half(base + 82); }
    if (type == GgmlType::Q3_K) set_half(base + 108);
    if (type == GgmlType::IQ4_XS) set_half(base + 0);
    if (type == GgmlType::IQ2_XXS || type == GgmlType::IQ2_XS || type == GgmlType::IQ2_S) set_half(base + 0);
    if (type == GgmlType::IQ3_XXS || type == GgmlType::IQ3_S || type == GgmlType::IQ1_S) set_half(base + 0);
    if (type == GgmlType::IQ1_M) {  // d: the top nibbles of the 4 uint16 of scales (bytes 48-55)
      uint16_t h;
      set_half(base + 48);
      std::memcpy(&h, &w[base + 48], 2);
      w[base + 48] = static_cast<uint8_t>(rng());
      for (int k = 0; k < 4; ++k) w[base + 49 + 2 * k] = static_cast<uint8_t>((w[base + 49 + 2 * k] & 0x0F) | (((h >> 4 * k) & 0xF) << 4));
    }
    if (type == GgmlType::TQ1_0) set_half(base + 52);
    if (type == GgmlType::TQ2_0) set_half(base + 64);
  }
  return w;
}

bool integer_exact(GgmlType type) {
  switch (type) {
    case GgmlType::Q2_K: case GgmlType::Q3_K: case GgmlType::Q4_K: case GgmlType::Q5_K: case GgmlType::Q6_K:
    case GgmlType::IQ4_XS: case GgmlType::TQ1_0: case GgmlType::TQ2_0:
    case GgmlType::IQ2_XXS: case GgmlType::IQ2_XS: case GgmlType::IQ2_S:
    case GgmlType::IQ3_XXS: case GgmlType::IQ3_S: case GgmlType::IQ1_S: case GgmlType::IQ1_M:
      return true;
    default:
      return false;
  }
}

// |w| . |a| over the dequantized values: the scale of a dot's rounding error.
double magnitude(const QuantTraits& t, const uint8_t* w, const uint8_t* qa, int64_t n) {
  std::vector<float> wf(n), af(n);
  t.to_float(w, wf.data(), n);
  quant_traits(t.vec_dot_type).to_float(qa, af.data(), n);
  double mag = 0;
  for (int64_t i = 0; i < n; ++i) mag += std::fabs(double(wf[i]) * af[i]);
  return mag;
}

// n_rows random rows of n weights of `type`, one after another, and 16
// bytes of padding (kernels may read a little past the last block).
std::vector<uint8_t> random_rows(GgmlType type, int64_t n, int64_t n_rows, std::mt19937& rng) {
  const uint64_t row_bytes = *ggml_nbytes(type, n);
  std::vector<uint8_t> w;
  for (int64_t r = 0; r < n_rows; ++r) {
    std::vector<uint8_t> row = random_weights(type, n, rng);
    w.insert(w.end(), row.begin(), row.begin() + row_bytes);
  }
  w.resize(w.size() + 16);
  return w;
}

// n_tokens random tokens' activations of n values for the kernels of traits
// t: quantized to its vec_dot type (token k at quantized + k * q_bytes) and
// widened (wide + k * wide_bytes).
struct TokenActivations {
  uint64_t q_bytes, wide_bytes;
  std::vector<uint8_t> quantized, wide;
  const uint8_t* token(int k) const { return quantized.data() + k * q_bytes; }
};

TokenActivations random_activations(const QuantTraits& t, int64_t n, int n_tokens, std::mt19937& rng) {
  TokenActivations a{*ggml_nbytes(t.vec_dot_type, n), wide_activation_bytes(t.wide_form, n), {}, {}};
  a.quantized.resize(a.q_bytes * n_tokens + 16);
  a.wide.resize(a.wide_bytes * n_tokens + 16);
  for (int k = 0; k < n_tokens; ++k) {
    const std::vector<float> x = random_floats(n, rng);
    quant_traits(t.vec_dot_type).from_float(x.data(), a.quantized.data() + k * a.q_bytes, n);
    widen_activations(t.wide_form, a.quantized.data() + k * a.q_bytes, a.wide.data() + k * a.wide_bytes, n, t.level_offset);
  }
  return a;
}

// Calls fn(info, traits) for every type whose traits `has`; returns how many.
template <typename Has, typename Fn>
int for_each_type(Has&& has, Fn&& fn) {
  int n = 0;
  for (uint32_t id = 0; id < 64; ++id) {
    const GgmlTypeInfo* info = ggml_type_info(id);
    if (!info || !has(quant_traits(info->type))) continue;
    fn(*info, quant_traits(info->type));
    ++n;
  }
  return n;
}

}  // namespace

// The multi-token kernels over int16 activations: each token's result must
// be what the scalar reference gives for that token alone, and exactly what
// the kernel gives for that token alone.
TEST(SimdKernels, EveryWideVecDotMatchesItsScalarReferencePerToken) {
  std::mt19937 rng(99);
  int checked = 0;
  for (uint32_t id = 0; id < 64; ++id) {
    const GgmlTypeInfo* info = ggml_type_info(id);
    if (!info) continue;
    const QuantTraits& t = quant_traits(info->type);
    if (!t.vec_dot_wide) continue;
    for (int64_t n : {160, 192, 224, 256, 2080, 4096, 11008}) {  // 5, 6, 7 blocks: a partial last group
      if (n % info->block_size) continue;
      for (int n_tokens : {1, 2, 3, 4, 5, 7, 13, 16}) {
        if (n_tokens > t.wide_tokens) continue;
        std::vector<uint8_t> w = random_weights(info->type, n, rng);
        const TokenActivations a = random_activations(t, n, n_tokens, rng);
        const std::vector<uint8_t>& qa = a.quantized;
        const std::vector<uint8_t>& wide = a.wide;
        const uint64_t q_bytes = a.q_bytes, wide_bytes = a.wide_bytes;
        ASSERT_LE(t.wide_tokens, kMaxWideTokens);
        float out[2 * kMaxWideTokens];
        t.vec_dot_wide(n, w.data(), wide.data(), static_cast<int64_t>(wide_bytes), n_tokens, out, 2);
        for (int tok = 0; tok < n_tokens; ++tok) {
          const float ref = t.vec_dot_ref(n, w.data(), qa.data() + tok * q_bytes);
          SCOPED_TRACE(std::string(info->name) + " n=" + std::to_string(n) + " tokens=" + std::to_string(n_tokens) +
                       " token " + std::to_string(tok));
          if (integer_exact(info->type)) {
            EXPECT_EQ(out[2 * tok], ref);
          } else {
            EXPECT_NEAR(out[2 * tok], ref, 1e-5 * magnitude(t, w.data(), qa.data() + tok * q_bytes, n) + 1e-6);
          }
          // The same bits as the token alone: a batched prompt gives the
          // logits of token-by-token evaluation.
          float alone;
          t.vec_dot_wide(n, w.data(), wide.data() + tok * wide_bytes, static_cast<int64_t>(wide_bytes), 1, &alone, 0);
          EXPECT_EQ(out[2 * tok], alone);
          // Where one token takes vec_dot instead (matmul.cpp), it must
          // give the same bits too.
          if (!t.wide_one_token) EXPECT_EQ(t.vec_dot(n, w.data(), qa.data() + tok * q_bytes), alone);
        }
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, 12 + 1 /*BF16*/ + 1 /*IQ4_XS*/ + 3 /*TQ1_0, TQ2_0, MXFP4*/ + 3 /*IQ2_XXS, IQ2_XS, IQ2_S*/ + 4 /*IQ3_XXS, IQ3_S, IQ1_S, IQ1_M*/);
}

// The tile kernels (up to kTileRows rows at once, what matmul uses for the
// types that have one): each row's result is, to the bit, what vec_dot_wide
// gives that row alone, for every row count (a matrix's last rows) and token
// count, with a partial last group of blocks, with each kind of integer
// dots the relaxed tiles may choose (relaxed_tile_dots).
struct PinnedTileDots {
  explicit PinnedTileDots(TileDots dots) { pin_relaxed_tile_dots(dots); }
  ~PinnedTileDots() { unpin_relaxed_tile_dots(); }
};

void expect_tiles_give_each_row_its_bits() {
  std::mt19937 rng(7);
  int checked = 0;
  for (uint32_t id = 0; id < 64; ++id) {
    const GgmlTypeInfo* info = ggml_type_info(id);
    if (!info) continue;
    const QuantTraits& t = quant_traits(info->type);
    if (!t.vec_dot_tile) continue;
    ASSERT_TRUE(t.vec_dot_wide);
    for (int64_t n : {32, 160, 224, 256, 768, 4096}) {  // 1, 5, 7, 8, 24, 128 blocks of 32; 1, 3, 16 of 256
      if (n % info->block_size) continue;
      const uint64_t row_bytes = *ggml_nbytes(info->type, n);
      const std::vector<uint8_t> w = random_rows(info->type, n, kTileRows, rng);
      const TokenActivations a = random_activations(t, n, kMaxWideTokens, rng);
      const uint8_t* wide = a.wide.data();
      const uint64_t wide_bytes = a.wide_bytes;
      for (int n_rows = 1; n_rows <= kTileRows; ++n_rows)
        for (int n_tokens : {1, 2, 5, 16}) {
          const int64_t stride = kTileRows + 1;
          std::vector<float> out(n_tokens * stride, NAN);
          t.vec_dot_tile(n, w.data(), static_cast<int64_t>(row_bytes), n_rows, wide,
                         static_cast<int64_t>(wide_bytes), n_tokens, out.data(), stride);
          for (int tok = 0; tok < n_tokens; ++tok)
            for (int r = 0; r < kTileRows + 1; ++r) {
              SCOPED_TRACE(std::string(info->name) + " n=" + std::to_string(n) + " rows=" + std::to_string(n_rows) +
                           " tokens=" + std::to_string(n_tokens) + " token " + std::to_string(tok) + " row " +
                           std::to_string(r));
              if (r >= n_rows) {  // past the tile's rows: untouched
                EXPECT_TRUE(std::isnan(out[tok * stride + r]));
                continue;
              }
              float alone;
              t.vec_dot_wide(n, w.data() + r * row_bytes, wide + tok * wide_bytes,
                             static_cast<int64_t>(wide_bytes), 1, &alone, 0);
              EXPECT_EQ(out[tok * stride + r], alone);
            }
        }
    }
    ++checked;
  }
  EXPECT_EQ(checked, relaxed_simd_active() ? 6 /*Q4_0, Q5_0, Q4_1, MXFP4, Q4_K, Q5_K*/ + relaxed_dot_add_unsigned() /*Q8_0*/ : 0);
}

TEST(SimdKernels, EveryTileGivesEachRowTheBitsOfThatRowAlone) {
  std::vector<TileDots> kinds = {TileDots::kInt16};
  if (relaxed_simd_active() && relaxed_dot_add_exact()) kinds.push_back(TileDots::kDotAdd);
  for (TileDots dots : kinds) {
    SCOPED_TRACE(dots == TileDots::kDotAdd ? "dot-add tiles" : "int16 tiles");
    const PinnedTileDots pin(dots);
    expect_tiles_give_each_row_its_bits();
  }
}

// Row quads (row_quads.h): packing 4 rows and unpacking the quad gives
// them back, and the quad kernel gives each row, for every token count, the
// bits of vec_dot_wide for that row and token alone (a matrix in quads
// gives the logits of one in rows), which are the scalar reference's for the
// integer-exact types. 160: a partial last group of 32-weight blocks.
TEST(SimdKernels, EveryRowQuadGivesEachRowTheBitsOfThatRowAlone) {
  std::mt19937 rng(11);
  const int checked = for_each_type([](const QuantTraits& t) { return t.vec_dot_quads != nullptr; },
                                    [&](const GgmlTypeInfo& info, const QuantTraits& t) {
    ASSERT_TRUE(t.vec_dot_wide);
    for (int64_t n : {160, 256, 768, 4096}) {
      if (n % info.block_size) continue;
      const uint64_t row_bytes = *ggml_nbytes(info.type, n);
      const std::vector<uint8_t> w = random_rows(info.type, n, kTileRows, rng);
      std::vector<uint8_t> quad = w;
      pack_row_quads(info.type, n, kTileRows, quad.data());
      EXPECT_NE(quad, w);
      std::vector<uint8_t> back = w;
      std::fill(back.begin(), back.end() - 16, 0);
      unpack_row_quad(info.type, n, quad.data(), back.data());
      EXPECT_EQ(back, w) << info.name << " n=" << n;
      const TokenActivations a = random_activations(t, n, kMaxWideTokens, rng);
      for (int n_tokens : {1, 2, 5, 16, kMaxWideTokens}) {
        const int64_t stride = kTileRows + 1;
        std::vector<float> out(n_tokens * stride, NAN);
        t.vec_dot_quads(n, quad.data(), static_cast<int64_t>(row_bytes), kTileRows, a.wide.data(),
                        static_cast<int64_t>(a.wide_bytes), n_tokens, out.data(), stride);
        for (int tok = 0; tok < n_tokens; ++tok) {
          for (int r = 0; r < kTileRows; ++r) {
            SCOPED_TRACE(std::string(info.name) + " n=" + std::to_string(n) + " tokens=" + std::to_string(n_tokens) +
                         " token " + std::to_string(tok) + " row " + std::to_string(r));
            float alone;
            t.vec_dot_wide(n, w.data() + r * row_bytes, a.wide.data() + tok * a.wide_bytes,
                           static_cast<int64_t>(a.wide_bytes), 1, &alone, 0);
            EXPECT_EQ(out[tok * stride + r], alone);
            if (integer_exact(info.type))
              EXPECT_EQ(out[tok * stride + r], t.vec_dot_ref(n, w.data() + r * row_bytes, a.token(tok)));
          }
          EXPECT_TRUE(std::isnan(out[tok * stride + kTileRows]));
        }
      }
    }
  });
  EXPECT_EQ(checked, relaxed_simd_active() && relaxed_dot_add_one_instruction() ? 3 /*Q4_0, Q4_K, Q5_K*/ : 0);
}

// Q4_K's one-token quad kernel with the high nibbles read in place (where
// the dot-add reads unsigned bytes, as the table then picks) gives the bits
// of the one that shifts them down, which every engine with a one-instruction
// dot-add may run: random rows, and rows of bytes 0xFF, 0xF0 and 0x0F (the
// largest levels in place, 240) against activations at +-127.
TEST(SimdKernels, Q4_KQuadsGiveTheSameBitsWithTheHighNibblesInPlace) {
  if (!relaxed_simd_active() || !relaxed_dot_add_unsigned())
    GTEST_SKIP() << "the dot-add does not read unsigned bytes here";
  EXPECT_EQ(quant_traits(GgmlType::Q4_K).vec_dot_quads, vec_dot_q4_K_q8_K_quads_unsigned_relaxed);
  std::mt19937 rng(5);
  const QuantTraits& t = quant_traits(GgmlType::Q4_K);
  for (int64_t n : {256, 768, 4096}) {
    const uint64_t row_bytes = *ggml_nbytes(GgmlType::Q4_K, n);
    for (int fill : {-1, 0xFF, 0xF0, 0x0F}) {
      std::vector<uint8_t> w = random_rows(GgmlType::Q4_K, n, kTileRows, rng);
      if (fill >= 0)
        for (int64_t b = 0; b < kTileRows * n / QK_K; ++b)
          std::memset(w.data() + b * sizeof(block_q4_K) + offsetof(block_q4_K, qs), fill, QK_K / 2);
      pack_row_quads(GgmlType::Q4_K, n, kTileRows, w.data());
      TokenActivations a = random_activations(t, n, 2, rng);
      if (fill >= 0) {  // token 1: every activation +127 or -127
        std::vector<float> x(n);
        for (auto& v : x) v = rng() % 2 ? 1.0f : -1.0f;
        quant_traits(GgmlType::Q8_K).from_float(x.data(), a.wide.data() + a.wide_bytes, n);
      }
      for (int tok = 0; tok < 2; ++tok) {
        float in_place[kTileRows], shifted[kTileRows];
        const uint8_t* act = a.wide.data() + tok * a.wide_bytes;
        vec_dot_q4_K_q8_K_quads_unsigned_relaxed(n, w.data(), static_cast<int64_t>(row_bytes), kTileRows, act, 0, 1,
                                                 in_place, 1);
        vec_dot_q4_K_q8_K_quads_relaxed(n, w.data(), static_cast<int64_t>(row_bytes), kTileRows, act, 0, 1, shifted, 1);
        for (int r = 0; r < kTileRows; ++r)
          EXPECT_EQ(in_place[r], shifted[r]) << "n=" << n << " fill " << fill << " token " << tok << " row " << r;
      }
    }
  }
}

// Matrix products over rows in quads give those of the rows as the file has
// them, bit for bit: the best kernels for one token and for prompts (over
// two row tasks of the pool), and the reference kernels, which read each
// quad unpacked.
TEST(SimdKernels, MatmulOverRowQuadsGivesTheResultsOfTheRows) {
  std::mt19937 rng(12);
  const int checked = for_each_type([](const QuantTraits& t) { return t.vec_dot_quads != nullptr; },
                                    [&](const GgmlTypeInfo& info, const QuantTraits&) {
    const int64_t rows = 72, cols = 512;  // 18 quads: 2 tasks of the pool
    const uint64_t row_bytes = *ggml_nbytes(info.type, cols);
    const std::vector<uint8_t> w = random_rows(info.type, cols, rows, rng);
    std::vector<uint8_t> quads = w;
    pack_row_quads(info.type, cols, rows, quads.data());
    const WeightMatrix in_rows{info.type, cols, rows, w.data(), row_bytes};
    const WeightMatrix in_quads{info.type, cols, rows, quads.data(), row_bytes, true};
    ThreadPool pool(1);
    MatmulScratch scratch;
    for (int64_t n_tokens : {1, 3, 37})
      for (KernelChoice k : {KernelChoice::Best, KernelChoice::Reference}) {
        const std::vector<float> x = random_floats(cols * n_tokens, rng);
        std::vector<float> want(rows * n_tokens), got(rows * n_tokens);
        matmul(in_rows, x.data(), n_tokens, want.data(), pool, scratch, k);
        matmul(in_quads, x.data(), n_tokens, got.data(), pool, scratch, k);
        EXPECT_EQ(got, want) << info.name << " tokens=" << n_tokens
                             << (k == KernelChoice::Best ? " best kernels" : " reference kernels");
      }
  });
  EXPECT_EQ(checked, relaxed_simd_active() && relaxed_dot_add_one_instruction() ? 3 /*Q4_0, Q4_K, Q5_K*/ : 0);
}

// MXFP4 rows whose scales take every exponent of a range, the two below the
// normal floats included (2^-128, 2^-127) and up to 2^103, through the kernel matmul picks
// for one token and for 4: each result near the scalar reference's.
TEST(SimdKernels, Mxfp4ScalesOfEveryExponent) {
  const QuantTraits& t = quant_traits(GgmlType::MXFP4);
  std::mt19937 rng(5);
  const int64_t n = 32 * 12;  // three groups of four blocks
  for (int e0 : {0, 12, 60, 108, 120, 200, 220}) {
    std::vector<uint8_t> w(*ggml_nbytes(GgmlType::MXFP4, n));
    for (int64_t b = 0; b < n / 32; ++b) {
      w[17 * b] = static_cast<uint8_t>(e0 + b);
      for (int j = 1; j < 17; ++j) w[17 * b + j] = static_cast<uint8_t>(rng());
    }
    const uint64_t q_bytes = *ggml_nbytes(t.vec_dot_type, n), wide_bytes = wide_activation_bytes(t.wide_form, n);
    std::vector<uint8_t> qa(q_bytes * 4), wide(wide_bytes * 4 + 16);
    for (int tok = 0; tok < 4; ++tok) {
      std::vector<float> a = random_floats(n, rng);
      quant_traits(t.vec_dot_type).from_float(a.data(), qa.data() + tok * q_bytes, n);
      if (t.vec_dot_wide) widen_activations(t.wide_form, qa.data() + tok * q_bytes, wide.data() + tok * wide_bytes, n, t.level_offset);
    }
    for (int n_tokens : {1, 4}) {
      float out[4];
      for (int tok = 0; tok < n_tokens; ++tok) out[tok] = t.vec_dot(n, w.data(), qa.data() + tok * q_bytes);
      if (t.vec_dot_wide && (n_tokens > 1 || t.wide_one_token))
        t.vec_dot_wide(n, w.data(), wide.data(), static_cast<int64_t>(wide_bytes), n_tokens, out, 1);
      for (int tok = 0; tok < n_tokens; ++tok) {
        SCOPED_TRACE("e from " + std::to_string(e0) + ", " + std::to_string(n_tokens) + " tokens, token " +
                     std::to_string(tok));
        const double mag = magnitude(t, w.data(), qa.data() + tok * q_bytes, n);
        ASSERT_GT(mag, 0);
        EXPECT_NEAR(out[tok], t.vec_dot_ref(n, w.data(), qa.data() + tok * q_bytes), 1e-5 * mag);
      }
    }
  }
}

// Rows of the 32-weight types whose every level is one byte pattern (the
// largest and smallest levels among them) against activations all +127 or
// all -127: the integer sums the kernels keep in int16 lanes are at their
// largest, so a lane that could overflow would wrap here. Through the kernel
// matmul picks for one token and for 4.
TEST(SimdKernels, LargestLevelsAgainstFullScaleActivations) {
  const int64_t n = 32 * 12;  // three groups of four blocks
  struct Header {
    GgmlType type;
    int halves;  // leading fp16 scales (d, or d and m); MXFP4: one E8M0 byte
  };
  for (const Header& h : {Header{GgmlType::Q4_0, 1}, Header{GgmlType::Q4_1, 2}, Header{GgmlType::Q5_0, 1},
                          Header{GgmlType::Q5_1, 2}, Header{GgmlType::Q8_0, 1}, Header{GgmlType::IQ4_NL, 1},
                          Header{GgmlType::MXFP4, 0}}) {
    const QuantTraits& t = quant_traits(h.type);
    const uint64_t block_bytes = ggml_type_info(h.type).type_size;
    for (uint8_t fill : {0x00, 0xFF, 0x77, 0x88, 0x7F, 0x81, 0x80}) {
      std::vector<uint8_t> w(*ggml_nbytes(h.type, n), fill);
      for (int64_t b = 0; b < n / 32; ++b) {
        uint8_t* block = w.data() + b * block_bytes;
        const uint16_t scale = fp32_to_fp16(0.01f);
        for (int k = 0; k < h.halves; ++k) std::memcpy(block + 2 * k, &scale, 2);
        if (h.halves == 0) block[0] = 120;  // 2^-8
      }
      for (float sign : {1.0f, -1.0f}) {
        const std::vector<float> a(n, sign);
        const uint64_t q_bytes = *ggml_nbytes(t.vec_dot_type, n);
        std::vector<uint8_t> qa(q_bytes * 4);
        for (int tok = 0; tok < 4; ++tok) quant_traits(t.vec_dot_type).from_float(a.data(), qa.data() + tok * q_bytes, n);
        ASSERT_EQ(static_cast<int8_t>(qa[q_bytes - 1]), sign > 0 ? 127 : -127);
        const float ref = t.vec_dot_ref(n, w.data(), qa.data());
        const double mag = magnitude(t, w.data(), qa.data(), n);
        SCOPED_TRACE(std::string(ggml_type_info(h.type).name) + " levels byte " + std::to_string(fill) +
                     (sign > 0 ? ", activations +127" : ", activations -127"));
        for (int n_tokens : {1, 4}) {
          float out[4];
          if (t.vec_dot_wide && (n_tokens > 1 || t.wide_one_token)) {
            const uint64_t wide_bytes = wide_activation_bytes(t.wide_form, n);
            std::vector<uint8_t> wide(wide_bytes * 4 + 16);
            for (int tok = 0; tok < 4; ++tok)
              widen_activations(t.wide_form, qa.data() + tok * q_bytes, wide.data() + tok * wide_bytes, n, t.level_offset);
            t.vec_dot_wide(n, w.data(), wide.data(), static_cast<int64_t>(wide_bytes), n_tokens, out, 1);
          } else {
            for (int tok = 0; tok < n_tokens; ++tok) out[tok] = t.vec_dot(n, w.data(), qa.data() + tok * q_bytes);
          }
          for (int tok = 0; tok < n_tokens; ++tok) EXPECT_NEAR(out[tok], ref, 1e-5 * mag + 1e-6) << n_tokens << " tokens";
        }
      }
    }
  }
}

// Q8_0 on the dot-adds (where the engine reads their 7-bit operand as
// unsigned bytes) gives the bits of its SIMD-128 kernel, which the model
// reference tests run under Node: every byte, -128 included, 1 to 16 tokens.
TEST(SimdKernels, Q8_0OnTheDotAddsGivesTheBitsOfItsSimd128Kernel) {
  const QuantTraits& t = quant_traits(GgmlType::Q8_0);
  if (!relaxed_dot_add_unsigned()) {
    EXPECT_EQ(t.vec_dot_wide, vec_dot_q8_0_q8_0w);
    GTEST_SKIP() << "the dot-add does not read unsigned bytes here: Q8_0 keeps SIMD-128";
  }
  ASSERT_EQ(t.wide_form, WideForm::Q8_0Groups);
  std::mt19937 rng(11);
  for (int64_t n : {32, 160, 4096}) {
    std::vector<uint8_t> w(*ggml_nbytes(GgmlType::Q8_0, n));
    for (auto& b : w) b = static_cast<uint8_t>(rng());
    for (int64_t b = 0; b < n / 32; ++b) {
      const uint16_t scale = fp32_to_fp16(std::uniform_real_distribution<float>(-0.05f, 0.05f)(rng));
      std::memcpy(&w[34 * b], &scale, 2);
    }
    for (int j = 2; j < 34; ++j) w[j] = static_cast<uint8_t>(0x80 + j % 2);  // -128 and -127
    const uint64_t q_bytes = *ggml_nbytes(GgmlType::Q8_0, n), wide_bytes = wide_activation_bytes(t.wide_form, n),
                   simd_bytes = wide_activation_bytes(WideForm::Q8_0WideGroups, n);
    std::vector<uint8_t> qa(q_bytes), wide(wide_bytes * kMaxWideTokens + 16), simd(simd_bytes * kMaxWideTokens + 16);
    for (int tok = 0; tok < kMaxWideTokens; ++tok) {
      std::vector<float> a = random_floats(n, rng);
      if (tok == 0) a[0] = -1e3f, a[1] = 1e3f;  // activations -127 and 127 against -128 and -127
      quant_traits(GgmlType::Q8_0).from_float(a.data(), qa.data(), n);
      widen_activations(t.wide_form, qa.data(), wide.data() + tok * wide_bytes, n, t.level_offset);
      widen_activations(WideForm::Q8_0WideGroups, qa.data(), simd.data() + tok * simd_bytes, n, 0);
    }
    for (int n_tokens : {1, 3, 16}) {
      float got[kMaxWideTokens], want[kMaxWideTokens];
      t.vec_dot_wide(n, w.data(), wide.data(), static_cast<int64_t>(wide_bytes), n_tokens, got, 1);
      for (int tok = 0; tok < n_tokens; ++tok) {  // the SIMD-128 kernel takes up to 4 tokens: one at a time
        vec_dot_q8_0_q8_0w(n, w.data(), simd.data() + tok * simd_bytes, 0, 1, &want[tok], 0);
        EXPECT_EQ(got[tok], want[tok]) << "n=" << n << " tokens=" << n_tokens << " token " << tok;
      }
    }
  }
}

TEST(SimdKernels, EveryVecDotMatchesItsScalarReference) {
  std::mt19937 rng(1234);
  int checked = 0;
  for (uint32_t id = 0; id < 64; ++id) {
    const GgmlTypeInfo* info = ggml_type_info(id);
    if (!info) continue;
    const QuantTraits& t = quant_traits(info->type);
    if (!t.vec_dot) continue;
    ASSERT_NE(t.vec_dot, t.vec_dot_ref) << info->name << " has no SIMD kernel";
    for (int64_t n : {256, 512, 4096, 11008}) {
      if (n % info->block_size) continue;
      for (int trial = 0; trial < 8; ++trial) {
        std::vector<uint8_t> w = random_weights(info->type, n, rng);
        std::vector<float> a = random_floats(n, rng);
        std::vector<uint8_t> qa(*ggml_nbytes(t.vec_dot_type, n) + 16);
        quant_traits(t.vec_dot_type).from_float(a.data(), qa.data(), n);
        const float ref = t.vec_dot_ref(n, w.data(), qa.data());
        const float got = t.vec_dot(n, w.data(), qa.data());
        SCOPED_TRACE(std::string(info->name) + " n=" + std::to_string(n));
        if (integer_exact(info->type)) {
          EXPECT_EQ(got, ref);
        } else {
          // Relative to the sum of magnitudes, since the dot itself may cancel.
          EXPECT_NEAR(got, ref, 1e-5 * magnitude(t, w.data(), qa.data(), n) + 1e-6);
        }
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, 18 + 3 /*IQ2_XXS, IQ2_XS, IQ2_S*/ + 4 /*IQ3_XXS, IQ3_S, IQ1_S, IQ1_M*/);
}

// The SIMD activation quantizers give the reference quantizers' bytes,
// including halfway cases (std::round rounds them away from zero), zero
// blocks and ties for the largest magnitude.
TEST(SimdQuantizeActivations, SameBytesAsReference) {
  std::mt19937 rng(7);
  for (GgmlType type : {GgmlType::Q8_0, GgmlType::Q8_K}) {
    const QuantTraits& t = quant_traits(type);
    ASSERT_NE(t.from_float_fast, nullptr);
    for (int trial = 0; trial < 50; ++trial) {
      const int64_t n = 256 * 4;
      std::vector<float> x = random_floats(n, rng);
      if (trial % 5 == 1) std::fill(x.begin(), x.begin() + 256, 0.f);
      if (trial % 5 == 2)  // values on the quantization grid's halfway points
        for (int64_t i = 0; i < n; ++i) x[i] = (static_cast<int>(rng() % 255) - 127) * 0.5f;
      if (trial % 5 == 3) { x[5] = 3.f; x[9] = -3.f; x[300] = -4.f; x[301] = 4.f; }
      if (trial % 5 == 4)
        for (int64_t i = 0; i < n; ++i) x[i] *= 1e-3f * static_cast<float>(trial);
      const size_t bytes = *ggml_nbytes(type, n);
      std::vector<uint8_t> ref(bytes, 0xAA), fast(bytes, 0x55);
      t.from_float(x.data(), ref.data(), n);
      t.from_float_fast(x.data(), fast.data(), n);
      EXPECT_EQ(ref, fast) << ggml_type_info(type).name << " trial " << trial;
    }
  }
}

// The Q4_K/Q5_K scale unpacking in one vector equals the scalar one for any
// 12 bytes (random ones cover every 6-bit value's high bits).
TEST(SimdKScales, UnpackMatchesScalar) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    uint8_t packed[16], ref[16], fast[16];
    for (auto& b : packed) b = static_cast<uint8_t>(rng());
    unpack_k_scales(packed, ref);
    wasm_v128_store(fast, unpack_k_scales_simd(packed));
    ASSERT_EQ(0, std::memcmp(ref, fast, 16)) << "trial " << trial;
  }
}

// The F16 kernel converts halves as finite numbers and does a row with an inf
// or NaN again exactly: the same as the scalar reference either way.
TEST(SimdF16, InfAndNaNInARowGiveTheReferenceResult) {
  const QuantTraits& t = quant_traits(GgmlType::F16);
  std::mt19937 rng(5);
  for (uint16_t special : {uint16_t(0x7C00), uint16_t(0xFC00), uint16_t(0x7E00), uint16_t(0x7BFF)}) {
    for (int at : {0, 7, 15, 33, 39}) {
      std::vector<uint16_t> w(40);
      std::vector<float> y = random_floats(40, rng);
      for (auto& h : w) h = fp32_to_fp16(std::normal_distribution<float>(0.f, 1.f)(rng));
      w[at] = special;
      const float ref = t.vec_dot_ref(40, w.data(), y.data());
      // The one-token kernel, and the multi-token one over activations scaled by 2^112 (2 tokens).
      std::vector<float> wide(2 * 40 + 4);
      widen_activations(WideForm::F32, y.data(), wide.data(), 40, 0);
      widen_activations(WideForm::F32, y.data(), wide.data() + 40, 40, 0);
      float both[2];
      t.vec_dot_wide(40, w.data(), wide.data(), 40 * sizeof(float), 2, both, 1);
      for (float got : {t.vec_dot(40, w.data(), y.data()), both[0], both[1]}) {
        if (std::isnan(ref)) {
          EXPECT_TRUE(std::isnan(got)) << std::hex << special << " at " << at;
        } else if (std::isinf(ref)) {
          EXPECT_EQ(got, ref) << std::hex << special << " at " << at;
        } else {
          EXPECT_NEAR(got, ref, 1e-5 * 65504 * 40) << std::hex << special << " at " << at;
        }
      }
    }
  }
}
