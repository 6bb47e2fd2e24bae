#include "compute/attention_kernels.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "compute/exp_poly.h"
#include "compute/touch_lines.h"
#include "quant/blocks.h"
#include "quant/fp16.h"
#include "quant/simd128.h"

namespace wasmlm {

namespace {

// Dim i of key j (scores) or dim j of key i (values) as the kernels multiply it.
inline float element_at(KvElement e, const void* p, uint64_t at) {
  switch (e) {
    case KvElement::F32: return static_cast<const float*>(p)[at];
    case KvElement::F16: return fp16_to_fp32(static_cast<const uint16_t*>(p)[at]);
    case KvElement::F16Raw: break;
    case KvElement::Q8_0: {
      const block_q8_0& b = static_cast<const block_q8_0*>(p)[at / QK8_0];
      return fp16_to_fp32(b.d) * b.qs[at % QK8_0];
    }
  }
  return fp16_to_fp32(static_cast<const uint16_t*>(p)[at]) * 0x1.0p-112f;  // exact
}

#ifdef __wasm_simd128__
template <KvElement E>
using ElementT = std::conditional_t<E == KvElement::F32, float, uint16_t>;

// 8 consecutive elements at p as two f32x4.
template <KvElement E>
inline void load8(const ElementT<E>* p, v128_t* lo, v128_t* hi) {
  if constexpr (E == KvElement::F32) {
    *lo = wasm_v128_load(p);
    *hi = wasm_v128_load(p + 4);
  } else {
    const v128_t h = wasm_v128_load(p);
    if constexpr (E == KvElement::F16Raw) {
      simd::fp16x8_to_f32_raw(h, lo, hi);
    } else {
      *lo = simd::fp16x4_to_f32(wasm_u32x4_extend_low_u16x8(h));
      *hi = simd::fp16x4_to_f32(wasm_u32x4_extend_high_u16x8(h));
    }
  }
}

inline v128_t madd(v128_t acc, v128_t a, v128_t b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }

// Decoding reads each key and value once, from memory at long contexts, so
// the kernels read in more than one stream where they can. Measured for one
// F16 head of 64 dims and 4096 slots from memory (Zen 5 VM, Chromium, one
// query row): scores 7.2 -> 15-16.6 GB/s with the W blocks of a pass taken
// from W parts of the slots (touching ahead instead: 7.6); values 8.7 ->
// 10.4 touching each row a few slots ahead in the first pass over dims (the
// later passes then find the rest of the rows in cache; their sums run in
// slot order, so they cannot be split).
constexpr uint32_t kTouchValueSlots = 4;

// R rows x W key blocks of scores per pass: block p of each of W parts of
// the blocks holding the slots.
template <KvElement E, int R, int W>
void scores_simd(const void* k, uint32_t slot0, int hd, const float* const* q, uint32_t n, float* const* s) {
  constexpr int B = AttentionKernels::kKeyBlock;
  const size_t block_values = size_t(B) * hd;
  const ElementT<E>* k0 = static_cast<const ElementT<E>*>(k) + (slot0 / B) * block_values;
  const int64_t j0 = -int64_t(slot0 % B);  // the first block's first slot, relative to slot0
  const int64_t blocks = (int64_t(n) - j0 + B - 1) / B;
  const int64_t part = (blocks + W - 1) / W;
  for (int64_t p = 0; p < part; ++p) {
    const ElementT<E>* kb[W];
    int64_t jb[W];
    bool in[W];  // the last part may be short: its missing block reads the first part's again
    for (int w = 0; w < W; ++w) {
      const int64_t b = p + w * part;
      in[w] = b < blocks;
      kb[w] = k0 + (in[w] ? b : p) * block_values;
      jb[w] = j0 + b * B;
    }
    v128_t acc[R][2 * W];
    for (int r = 0; r < R; ++r)
      for (int w = 0; w < 2 * W; ++w) acc[r][w] = wasm_f32x4_splat(0);
    for (int i = 0; i < hd; ++i) {
      v128_t kv[2 * W];
      for (int w = 0; w < W; ++w) load8<E>(kb[w] + i * B, &kv[2 * w], &kv[2 * w + 1]);
      for (int r = 0; r < R; ++r) {
        const v128_t qi = wasm_v128_load32_splat(q[r] + i);
        for (int w = 0; w < 2 * W; ++w) acc[r][w] = madd(acc[r][w], qi, kv[w]);
      }
    }
    for (int w = 0; w < W; ++w) {
      if (!in[w]) continue;
      const int64_t j = jb[w];
      if (j >= 0 && j + B <= int64_t(n)) {
        for (int r = 0; r < R; ++r) {
          wasm_v128_store(s[r] + j, acc[r][2 * w]);
          wasm_v128_store(s[r] + j + 4, acc[r][2 * w + 1]);
        }
      } else {  // a first or last block: only the lanes of slots in range
        alignas(16) float lanes[B];
        for (int r = 0; r < R; ++r) {
          wasm_v128_store(lanes, acc[r][2 * w]);
          wasm_v128_store(lanes + 4, acc[r][2 * w + 1]);
          for (int x = 0; x < B; ++x)
            if (j + x >= 0 && j + x < int64_t(n)) s[r][j + x] = lanes[x];
        }
      }
    }
  }
}

// R rows x 8 W dims of the weighted value sums per pass; the dims past the
// last multiple of 8 in scalar code (the same sums).
template <KvElement E, int R, int W>
void values_simd(const void* v, uint64_t v_stride, int hd, const float* const* w, uint32_t n, float* const* acc) {
  int i0 = 0;
  for (; i0 + 8 * W <= hd; i0 += 8 * W) {
    v128_t o[R][2 * W];
    for (int r = 0; r < R; ++r)
      for (int x = 0; x < 2 * W; ++x) o[r][x] = wasm_v128_load(acc[r] + i0 + 4 * x);
    const ElementT<E>* vj = static_cast<const ElementT<E>*>(v) + i0;
    for (uint32_t j = 0; j < n; ++j, vj += v_stride) {
      if (i0 == 0 && j + kTouchValueSlots < n) touch_lines(vj + kTouchValueSlots * v_stride, hd * sizeof(ElementT<E>));
      v128_t vv[2 * W];
      for (int x = 0; x < W; ++x) load8<E>(vj + 8 * x, &vv[2 * x], &vv[2 * x + 1]);
      for (int r = 0; r < R; ++r) {
        const v128_t a = wasm_v128_load32_splat(w[r] + j);
        for (int x = 0; x < 2 * W; ++x) o[r][x] = madd(o[r][x], a, vv[x]);
      }
    }
    for (int r = 0; r < R; ++r)
      for (int x = 0; x < 2 * W; ++x) wasm_v128_store(acc[r] + i0 + 4 * x, o[r][x]);
  }
  for (int r = 0; r < R; ++r)
    for (int i = i0; i < hd; ++i) {
      float a = acc[r][i];
      for (uint32_t j = 0; j < n; ++j) a += w[r][j] * element_at(E, v, uint64_t(j) * v_stride + i);
      acc[r][i] = a;
    }
}

template <KvElement E>
void scores_rows(const void* k, uint32_t slot0, int hd, const float* const* q, int rows, uint32_t n, float* const* s) {
  switch (rows) {
    case 1: scores_simd<E, 1, 2>(k, slot0, hd, q, n, s); break;
    case 2: scores_simd<E, 2, 2>(k, slot0, hd, q, n, s); break;
    case 3: scores_simd<E, 3, 1>(k, slot0, hd, q, n, s); break;
    default: scores_simd<E, 4, 1>(k, slot0, hd, q, n, s); break;
  }
}

template <KvElement E>
void values_rows(const void* v, uint64_t v_stride, int hd, const float* const* w, int rows, uint32_t n, float* const* acc) {
  switch (rows) {
    case 1: values_simd<E, 1, 2>(v, v_stride, hd, w, n, acc); break;
    case 2: values_simd<E, 2, 1>(v, v_stride, hd, w, n, acc); break;
    case 3: values_simd<E, 3, 1>(v, v_stride, hd, w, n, acc); break;
    default: values_simd<E, 4, 1>(v, v_stride, hd, w, n, acc); break;
  }
}
#endif


// Q8_0 rows: the integer dot of each block (exact in any order), then the
// blocks' float sum in order, the same in scalar and SIMD code.
inline int32_t block_dot_q8(const block_q8_0& a, const block_q8_0& b, bool simd) {
#ifdef __wasm_simd128__
  if (simd)
    return simd::hsum_i32(simd::block_dot_i8x32(wasm_v128_load(a.qs), wasm_v128_load(a.qs + 16), b.qs));
#else
  (void)simd;
#endif
  int32_t sum = 0;
  for (int i = 0; i < QK8_0; ++i) sum += a.qs[i] * b.qs[i];
  return sum;
}

void scores_q8(const void* k, uint32_t slot0, int hd, const float* const* q, int rows, uint32_t n, float* const* s,
               bool simd) {
  const int nb = hd / QK8_0;
  const auto* kb = static_cast<const block_q8_0*>(k) + uint64_t(slot0) * nb;
  for (uint32_t j = 0; j < n; ++j, kb += nb)
    for (int r = 0; r < rows; ++r) {
      const auto* qb = reinterpret_cast<const block_q8_0*>(q[r]);
      float sum = 0;
      for (int b = 0; b < nb; ++b)
        sum += static_cast<float>(block_dot_q8(kb[b], qb[b], simd)) * (fp16_to_fp32(kb[b].d) * fp16_to_fp32(qb[b].d));
      s[r][j] = sum;
    }
}

void values_q8(const void* v, uint64_t v_stride, int hd, const float* const* w, int rows, uint32_t n, float* const* acc,
               bool simd) {
  const auto* base = static_cast<const uint8_t*>(v);
#ifdef __wasm_simd128__
  if (simd) {
    for (int b = 0; b < hd / QK8_0; ++b) {
      v128_t o[AttentionKernels::kMaxRows][8];
      for (int r = 0; r < rows; ++r)
        for (int x = 0; x < 8; ++x) o[r][x] = wasm_v128_load(acc[r] + b * QK8_0 + 4 * x);
      for (uint32_t j = 0; j < n; ++j) {
        const block_q8_0& blk = reinterpret_cast<const block_q8_0*>(base + j * v_stride)[b];
        const v128_t d = wasm_f32x4_splat(fp16_to_fp32(blk.d));
        v128_t vv[8];
        for (int h = 0; h < 2; ++h) {
          const v128_t q = wasm_v128_load(blk.qs + 16 * h);
          const v128_t lo = wasm_i16x8_extend_low_i8x16(q), hi = wasm_i16x8_extend_high_i8x16(q);
          vv[4 * h + 0] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(lo)), d);
          vv[4 * h + 1] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(lo)), d);
          vv[4 * h + 2] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(hi)), d);
          vv[4 * h + 3] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(hi)), d);
        }
        for (int r = 0; r < rows; ++r) {
          const v128_t a = wasm_v128_load32_splat(w[r] + j);
          for (int x = 0; x < 8; ++x) o[r][x] = madd(o[r][x], a, vv[x]);
        }
      }
      for (int r = 0; r < rows; ++r)
        for (int x = 0; x < 8; ++x) wasm_v128_store(acc[r] + b * QK8_0 + 4 * x, o[r][x]);
    }
    return;
  }
#else
  (void)simd;
#endif
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < hd; ++i) {
      float a = acc[r][i];
      for (uint32_t j = 0; j < n; ++j) {
        const block_q8_0& blk = reinterpret_cast<const block_q8_0*>(base + j * v_stride)[i / QK8_0];
        a += w[r][j] * (fp16_to_fp32(blk.d) * blk.qs[i % QK8_0]);
      }
      acc[r][i] = a;
    }
}

}  // namespace

void AttentionKernels::scores(const void* k, uint32_t slot0, const float* const* q, int rows, uint32_t n,
                              float* const* s) const {
  if (element == KvElement::Q8_0) return scores_q8(k, slot0, head_dim, q, rows, n, s, simd);
#ifdef __wasm_simd128__
  if (simd) {
    switch (element) {
      case KvElement::Q8_0: break;
      case KvElement::F32: return scores_rows<KvElement::F32>(k, slot0, head_dim, q, rows, n, s);
      case KvElement::F16Raw: return scores_rows<KvElement::F16Raw>(k, slot0, head_dim, q, rows, n, s);
      case KvElement::F16: return scores_rows<KvElement::F16>(k, slot0, head_dim, q, rows, n, s);
    }
  }
#endif
  for (int r = 0; r < rows; ++r)
    for (uint32_t j = 0; j < n; ++j) {
      const uint32_t slot = slot0 + j;
      const uint64_t at = uint64_t(slot / kKeyBlock) * kKeyBlock * head_dim + slot % kKeyBlock;
      float sum = 0;
      for (int i = 0; i < head_dim; ++i) sum += q[r][i] * element_at(element, k, at + uint64_t(i) * kKeyBlock);
      s[r][j] = sum;
    }
}

void AttentionKernels::values(const void* v, uint64_t v_stride, const float* const* w, int rows, uint32_t n,
                              float* const* acc) const {
  if (element == KvElement::Q8_0) return values_q8(v, v_stride, head_dim, w, rows, n, acc, simd);
#ifdef __wasm_simd128__
  if (simd) {
    switch (element) {
      case KvElement::Q8_0: break;
      case KvElement::F32: return values_rows<KvElement::F32>(v, v_stride, head_dim, w, rows, n, acc);
      case KvElement::F16Raw: return values_rows<KvElement::F16Raw>(v, v_stride, head_dim, w, rows, n, acc);
      case KvElement::F16: return values_rows<KvElement::F16>(v, v_stride, head_dim, w, rows, n, acc);
    }
  }
#endif
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < head_dim; ++i) {
      float a = acc[r][i];
      for (uint32_t j = 0; j < n; ++j) a += w[r][j] * element_at(element, v, uint64_t(j) * v_stride + i);
      acc[r][i] = a;
    }
}

float scale_scores(float* s, uint32_t n, float scale, bool simd) {
  // NaN-propagating, as f32x4.max (and exact, so any order gives the same maximum)
  auto max = [](float a, float b) { return a != a || b != b ? a + b : (a > b ? a : b); };
  float m = -std::numeric_limits<float>::infinity();
  uint32_t j = 0;
#ifdef __wasm_simd128__
  if (simd && n >= 4) {
    const v128_t f = wasm_f32x4_splat(scale);
    v128_t mv = wasm_f32x4_splat(m);
    for (; j + 4 <= n; j += 4) {
      const v128_t x = wasm_f32x4_mul(wasm_v128_load(s + j), f);
      wasm_v128_store(s + j, x);
      mv = wasm_f32x4_max(mv, x);
    }
    m = max(max(wasm_f32x4_extract_lane(mv, 0), wasm_f32x4_extract_lane(mv, 1)),
            max(wasm_f32x4_extract_lane(mv, 2), wasm_f32x4_extract_lane(mv, 3)));
  }
#else
  (void)simd;
#endif
  for (; j < n; ++j) {
    s[j] *= scale;
    m = max(m, s[j]);
  }
  return m;
}

double exp_scores(float* s, uint32_t n, float max, bool simd) {
  // exp_poly's range; above it only scores past their maximum (non-finite
  // ones) fall, and are taken as its end
  constexpr float kLowest = -87.0f, kHighest = 87.0f;
  double sum = 0;
  uint32_t j = 0;
#ifdef __wasm_simd128__
  if (simd) {
    const v128_t m = wasm_f32x4_splat(max), lowest = wasm_f32x4_splat(kLowest), highest = wasm_f32x4_splat(kHighest);
    for (; j + 4 <= n; j += 4) {
      const v128_t x = wasm_f32x4_sub(wasm_v128_load(s + j), m);
      // pmax(x, lo) = x < lo ? lo : x: NaN stays NaN (so does pmin's)
      const v128_t in_range = wasm_f32x4_pmin(wasm_f32x4_pmax(x, lowest), highest);
      const v128_t e = wasm_v128_andnot(exp_poly_f32x4(in_range), wasm_f32x4_lt(x, lowest));
      wasm_v128_store(s + j, e);
      sum += s[j];
      sum += s[j + 1];
      sum += s[j + 2];
      sum += s[j + 3];
    }
  }
#else
  (void)simd;
#endif
  for (; j < n; ++j) {
    const float x = s[j] - max;
    s[j] = x < kLowest ? 0.0f : exp_poly_f32(std::min(std::max(x, kLowest), kHighest));
    sum += s[j];
  }
  return sum;
}

void round_to_f16(const float* x, float* out, uint32_t n, float pre, float factor, bool simd) {
  const auto one = [=](float v) { return fp16_to_fp32(fp32_to_fp16(v * pre)) * factor; };
  uint32_t j = 0;
#ifdef __wasm_simd128__
  // v rounded to F16 as (v + c) - c, where c (v's sign) has v's F16 ulp as
  // its f32 ulp: |c| = 2^(e + 13) for |v| in [2^e, 2^(e+1)), and 0.5 (ulp
  // 2^-24) below F16's normal range. Round to nearest even, as
  // fp32_to_fp16; the sign put back keeps -0. Vectors with a lane past F16's
  // range (or NaN) go lane by lane.
  if (simd) {
    const v128_t p = wasm_f32x4_splat(pre), f = wasm_f32x4_splat(factor), sign = wasm_i32x4_splat(INT32_MIN);
    const v128_t limit = wasm_f32x4_splat(65520.0f);  // F16 rounds from here to infinity
    for (; j + 4 <= n; j += 4) {
      const v128_t v = wasm_f32x4_mul(wasm_v128_load(x + j), p);
      const v128_t s = wasm_v128_and(v, sign);
      if (!wasm_i32x4_all_true(wasm_f32x4_lt(wasm_f32x4_abs(v), limit))) {
        for (uint32_t k = j; k < j + 4; ++k) out[k] = one(x[k]);
        continue;
      }
      v128_t c = wasm_i32x4_add(wasm_v128_and(v, wasm_i32x4_splat(0x7F800000)), wasm_i32x4_splat(13 << 23));
      c = wasm_v128_or(wasm_u32x4_max(c, wasm_i32x4_splat(0x3F000000)), s);
      wasm_v128_store(out + j, wasm_f32x4_mul(wasm_v128_or(wasm_f32x4_sub(wasm_f32x4_add(v, c), c), s), f));
    }
  }
#else
  (void)simd;
#endif
  for (; j < n; ++j) out[j] = one(x[j]);
}

}  // namespace wasmlm
