// Attention of a DecoderContext: softmax(scale * softcap(q k)) v over the
// cached positions each query sees (all earlier ones, or the last n_swa in
// a windowed layer), reading the F16 or F32 cache in place.
//
// The arithmetic depends on the positions alone, so a batched prompt,
// token-by-token decoding and any number of threads give the same bits.
// Keys fall in chunks of kChunk positions; for each query row,
//   s_j = scale * (q . k_j), soft-capped where the architecture caps
//   e_j = exp(s_j - max s) (exp_poly.h); L = sum over chunks of (sum over the chunk of e_j)
//   w_j = e_j / L, rounded to F16 with an F16 cache (llama.cpp's F16 KQ)
//   out = sum over chunks of (sum over the chunk of w_j v_j)
// every sum in position order.
//
// A task takes a set of query rows of one KV head (a tile: the group's query
// heads of one or more tokens) and all its chunks, so each key and value is
// loaded and converted once per tile. A decoding step whose KV heads do not
// spread evenly over the threads splits each head's chunks over tasks
// instead (split-K), in three passes, then adds the chunks' sums in order.
#include <algorithm>
#include <cmath>
#include <limits>

#include "compute/attention_kernels.h"
#include "compute/ops.h"
#include "model/decoder_context.h"
#include "quant/quant_types.h"

namespace wasmlm {

namespace {

constexpr uint32_t kChunk = AttentionBuffers::kChunk;
constexpr int kTileRows = AttentionBuffers::kTileRows;
static_assert(KvCache::kKeyBlock == AttentionKernels::kKeyBlock, "the kernels read the cache's key blocks");

struct QueryRow {
  const float* q;        // the query head
  float* out;            // its output
  uint32_t first, end;   // the positions it sees: [first, end)
  int buf;               // its AttentionBuffers row
};

// Query rows of one KV head, and the positions any of them sees.
struct RowSet {
  uint32_t kvh = 0;
  int n = 0;
  QueryRow rows[kTileRows];
  uint32_t lo = 0, end = 0;
  uint64_t chunk0() const { return lo / kChunk; }
  uint64_t n_chunks() const { return (end - 1) / kChunk + 1 - chunk0(); }
};

// One layer's keys and values as the kernels read them.
class LayerAttention {
 public:
  LayerAttention(const KvCache& kv, uint32_t layer, const DecoderHParams& h, AttentionKernels kernels, float kq_scale,
                 AttentionBuffers& buf)
      : kv_(kv), layer_(layer), kernels_(kernels), hd_(h.head_dim),
        cap_(kv.capacity(layer)), softcap_(h.attn_softcap), kq_scale_(kq_scale),
        f16_(kv.type() == KvCacheType::F16), q8_(kv.type() == KvCacheType::Q8_0),
        factor_(kernels.element == KvElement::F16Raw ? kF16RawFactor : 1.0f),
        v_stride_(q8_ ? kv.row_bytes() : hd_), buf_(buf) {}

  // The query as the kernels multiply it: rounded to F16 with an F16 cache
  // (as llama.cpp's F16 KQ), times the raw conversion's factor; quantized to
  // Q8_0 with a Q8_0 cache (as llama.cpp's flash attention).
  void prepare(const QueryRow& r) {
    float* q = buf_.query(r.buf);
    if (q8_) return quantize_row_q8_0(r.q, q, static_cast<int64_t>(hd_));
    if (f16_) return round_to_f16(r.q, q, static_cast<uint32_t>(hd_), 1.0f, factor_, kernels_.simd);
    std::copy(r.q, r.q + hd_, q);  // factor_ is 1 without an F16 cache
  }

  // Chunks [c0, c1) (relative to the set's first): scores of every row, and
  // their maxima per chunk. The kernels run over all the chunks at once: a
  // score does not depend on its chunk, and long calls let them read the
  // keys in several streams (attention_kernels.cpp).
  void scores(RowSet& set, uint64_t c0, uint64_t c1) {
    if (c0 >= c1) return;
    for_segments(chunk_begin(set, c0), chunk_end(set, c1 - 1), [&](uint32_t sa, uint32_t sb) {
      for (int r0 = 0; r0 < set.n; r0 += AttentionKernels::kMaxRows) {
        const int nr = std::min(AttentionKernels::kMaxRows, set.n - r0);
        uint32_t ua = sb, ub = sa;  // the block's rows' positions in this segment
        for (int r = r0; r < r0 + nr; ++r) {
          ua = std::min(ua, std::max(sa, set.rows[r].first));
          ub = std::max(ub, std::min(sb, set.rows[r].end));
        }
        if (ua >= ub) continue;
        const float* q[AttentionKernels::kMaxRows];
        float* s[AttentionKernels::kMaxRows];
        for (int r = 0; r < nr; ++r) {
          q[r] = buf_.query(set.rows[r0 + r].buf);
          s[r] = buf_.scores(set.rows[r0 + r].buf) + (ua - set.lo);
        }
        kernels_.scores(keys(set.kvh), ua % cap_, q, nr, ub - ua, s);
      }
    });
    for (uint64_t c = c0; c < c1; ++c) {
      const uint32_t a = chunk_begin(set, c), b = chunk_end(set, c);
      for (int r = 0; r < set.n; ++r) {
        const QueryRow& row = set.rows[r];
        float* s = buf_.scores(row.buf) - set.lo;
        const uint32_t ra = std::max(a, row.first), rb = std::max(ra, std::min(b, row.end));
        if (softcap_ != 0.0f)
          for (uint32_t p = ra; p < rb; ++p) s[p] = softcap(s[p], softcap_);
        buf_.chunk_max(row.buf)[c] = scale_scores(s + ra, rb - ra, kq_scale_, kernels_.simd);
      }
    }
  }

  // Chunks [c0, c1): e_j = exp(s_j - max) in place, and their sums per chunk.
  void exponentials(RowSet& set, uint64_t c0, uint64_t c1) {
    for (int r = 0; r < set.n; ++r) {
      const QueryRow& row = set.rows[r];
      const float m = row_max(set, row);
      float* s = buf_.scores(row.buf) - set.lo;
      for (uint64_t c = c0; c < c1; ++c) {
        const uint32_t a = std::max(chunk_begin(set, c), row.first), b = std::min(chunk_end(set, c), row.end);
        buf_.chunk_sum(row.buf)[c] = a < b ? exp_scores(s + a, b - a, m, kernels_.simd) : 0.0;
      }
    }
  }

  // Chunks [c0, c1): the weights w_j, and each chunk's sum of w_j v_j.
  void values(RowSet& set, uint64_t c0, uint64_t c1) {
    float inv[kTileRows];
    for (int r = 0; r < set.n; ++r) {
      const QueryRow& row = set.rows[r];
      double sum = 0;
      for (uint64_t c = first_chunk(set, row); c <= last_chunk(set, row); ++c) sum += buf_.chunk_sum(row.buf)[c];
      inv[r] = static_cast<float>(1.0 / sum);
    }
    for (uint64_t c = c0; c < c1; ++c) {
      const uint32_t a = chunk_begin(set, c), b = chunk_end(set, c);
      for (int r = 0; r < set.n; ++r) {
        const QueryRow& row = set.rows[r];
        float* w = buf_.scores(row.buf) - set.lo;
        const uint32_t ra = std::max(a, row.first), rb = std::min(b, row.end);
        if (f16_) {
          if (ra < rb) round_to_f16(w + ra, w + ra, rb - ra, inv[r], factor_, kernels_.simd);
        } else {
          for (uint32_t p = ra; p < rb; ++p) w[p] *= inv[r];  // factor_ is 1
        }
        std::fill(buf_.partial(row.buf, c), buf_.partial(row.buf, c) + hd_, 0.f);
      }
      for_segments(a, b, [&](uint32_t sa, uint32_t sb) {
        for (int r0 = 0; r0 < set.n; r0 += AttentionKernels::kMaxRows)
          value_block(set, c, r0, std::min(AttentionKernels::kMaxRows, set.n - r0), sa, sb);
      });
    }
  }

  // out = the chunks' sums of w_j v_j, added in order.
  void merge(const RowSet& set) {
    for (int r = 0; r < set.n; ++r) {
      const QueryRow& row = set.rows[r];
      std::fill(row.out, row.out + hd_, 0.f);
      for (uint64_t c = first_chunk(set, row); c <= last_chunk(set, row); ++c) {
        const float* p = buf_.partial(row.buf, c);
        for (uint64_t i = 0; i < hd_; ++i) row.out[i] += p[i];
      }
    }
  }

 private:
  uint32_t chunk_begin(const RowSet& set, uint64_t c) const {
    return std::max<uint32_t>(set.lo, static_cast<uint32_t>((set.chunk0() + c) * kChunk));
  }
  uint32_t chunk_end(const RowSet& set, uint64_t c) const {
    return std::min<uint32_t>(set.end, static_cast<uint32_t>((set.chunk0() + c + 1) * kChunk));
  }
  uint64_t first_chunk(const RowSet& set, const QueryRow& row) const { return row.first / kChunk - set.chunk0(); }
  uint64_t last_chunk(const RowSet& set, const QueryRow& row) const { return (row.end - 1) / kChunk - set.chunk0(); }

  float row_max(const RowSet& set, const QueryRow& row) {
    float m = -std::numeric_limits<float>::infinity();
    for (uint64_t c = first_chunk(set, row); c <= last_chunk(set, row); ++c) m = std::max(m, buf_.chunk_max(row.buf)[c]);
    return m;
  }

  // Calls f(a', b') for the runs of [a, b) that are contiguous in the
  // cache's slots (two where a ring wraps around).
  template <typename F>
  void for_segments(uint32_t a, uint32_t b, F&& f) const {
    while (a < b) {
      const uint32_t n = std::min(b - a, cap_ - a % cap_);
      f(a, a + n);
      a += n;
    }
  }

  const void* keys(uint32_t kvh) const {
    if (q8_) return kv_.kq(layer_, kvh);
    return f16_ ? static_cast<const void*>(kv_.k16(layer_, kvh)) : kv_.k32(layer_, kvh);
  }
  const void* value(uint32_t kvh, uint32_t pos) const {
    if (q8_) return kv_.vq(layer_, kvh) + uint64_t(pos % cap_) * v_stride_;
    const uint64_t at = uint64_t(pos % cap_) * hd_;
    return f16_ ? static_cast<const void*>(kv_.v16(layer_, kvh) + at) : kv_.v32(layer_, kvh) + at;
  }

  // Rows [r0, r0 + nr) over the segment [sa, sb): the positions all of them
  // see in one call, the others row by row, each row's in position order.
  void value_block(RowSet& set, uint64_t c, int r0, int nr, uint32_t sa, uint32_t sb) {
    uint32_t ra[AttentionKernels::kMaxRows], rb[AttentionKernels::kMaxRows];
    uint32_t ca = sa, cb = sb;  // the positions common to the block
    for (int r = 0; r < nr; ++r) {
      ra[r] = std::max(sa, set.rows[r0 + r].first);
      rb[r] = std::min(sb, set.rows[r0 + r].end);
      ca = std::max(ca, ra[r]);
      cb = std::min(cb, rb[r]);
    }
    auto one = [&](int r, uint32_t a, uint32_t b) {
      if (a >= b) return;
      const QueryRow& row = set.rows[r0 + r];
      const float* w = buf_.scores(row.buf) + (a - set.lo);
      float* acc = buf_.partial(row.buf, c);
      kernels_.values(value(set.kvh, a), v_stride_, &w, 1, b - a, &acc);
    };
    if (ca >= cb) {
      for (int r = 0; r < nr; ++r) one(r, ra[r], rb[r]);
      return;
    }
    for (int r = 0; r < nr; ++r) one(r, ra[r], ca);
    const float* w[AttentionKernels::kMaxRows];
    float* acc[AttentionKernels::kMaxRows];
    for (int r = 0; r < nr; ++r) {
      w[r] = buf_.scores(set.rows[r0 + r].buf) + (ca - set.lo);
      acc[r] = buf_.partial(set.rows[r0 + r].buf, c);
    }
    kernels_.values(value(set.kvh, ca), v_stride_, w, nr, cb - ca, acc);
    for (int r = 0; r < nr; ++r) one(r, cb, rb[r]);
  }

  const KvCache& kv_;
  uint32_t layer_;
  AttentionKernels kernels_;
  uint64_t hd_;
  uint32_t cap_;
  float softcap_, kq_scale_;
  bool f16_, q8_;
  float factor_;
  uint64_t v_stride_;  // between slots' values: elements (bytes for Q8_0)
  AttentionBuffers& buf_;
};

}  // namespace

void DecoderContext::attention(uint32_t l, uint32_t pos0, int n) {
  const DecoderHParams& h = hp_;
  const uint32_t group = h.n_head / h.n_head_kv;  // query heads per key/value head
  const bool windowed = h.layers[l].windowed;
  auto first_seen = [&](uint32_t pos) { return windowed && pos + 1 > h.n_swa ? pos + 1 - h.n_swa : 0u; };

  AttentionKernels kernels{KvElement::F32, kernels_ == KernelChoice::Best, static_cast<int>(h.head_dim)};
  if (kv_.type() == KvCacheType::F16)
    kernels.element = kernels.simd && !kv_.nonfinite(l) ? KvElement::F16Raw : KvElement::F16;
  if (kv_.type() == KvCacheType::Q8_0) kernels.element = KvElement::Q8_0;
  LayerAttention layer(kv_, l, h, kernels, kq_scale_, attn_);

  const int threads = pool_.size();
  const uint32_t lo = first_seen(pos0);
  const uint64_t chunks = (pos0 + n - 1) / kChunk + 1 - lo / kChunk;
  // The query rows, token-major, in tiles of up to kTileRows per KV head.
  // A decoding step with fewer KV heads than threads and one chunk of keys
  // (too short to split) splits each head's query rows instead, so that its
  // attention uses every thread (Gemma 3: one KV head).
  const uint32_t rows_per_head = uint32_t(n) * group;
  uint32_t tile = kTileRows;
  if (n == 1 && chunks == 1 && h.n_head_kv < uint32_t(threads)) {
    const uint32_t splits = (uint32_t(threads) + h.n_head_kv - 1) / h.n_head_kv;
    tile = std::min<uint32_t>(tile, (rows_per_head + splits - 1) / splits);
  }
  const uint32_t tiles_per_head = (rows_per_head + tile - 1) / tile;
  const int n_sets = static_cast<int>(h.n_head_kv * tiles_per_head);
  auto make_set = [&](int index, int first_buf) {
    RowSet set;
    set.kvh = index / tiles_per_head;
    const uint32_t r0 = (index % tiles_per_head) * tile;
    set.n = static_cast<int>(std::min<uint32_t>(tile, rows_per_head - r0));
    set.lo = UINT32_MAX;
    for (int r = 0; r < set.n; ++r) {
      const uint32_t t = (r0 + r) / group, head = set.kvh * group + (r0 + r) % group;
      const uint32_t pos = pos0 + t;
      QueryRow& row = set.rows[r];
      row.q = &q_[t * h.q_dim() + uint64_t(head) * h.head_dim];
      row.out = &xb2_[t * h.q_dim() + uint64_t(head) * h.head_dim];
      row.first = first_seen(pos);
      row.end = pos + 1;
      row.buf = first_buf + r;
      set.lo = std::min(set.lo, row.first);
      set.end = std::max(set.end, row.end);
    }
    return set;
  };

  if (n == 1 && threads > 1 && n_sets % threads != 0 && chunks > 1 && n_sets * kTileRows <= attn_.rows()) {
    // Split-K: every set stays in memory, and each pass spreads its chunks.
    std::vector<RowSet> sets;
    for (int i = 0; i < n_sets; ++i) sets.push_back(make_set(i, i * kTileRows));
    const int parts = static_cast<int>(std::min<uint64_t>(chunks, (2 * threads + n_sets - 1) / n_sets));
    auto pass = [&](auto&& step) {
      pool_.parallel_for(n_sets * parts, [&](int task, int) {
        RowSet& set = sets[task / parts];
        const int part = task % parts;
        const uint64_t nc = set.n_chunks();
        step(set, nc * part / parts, nc * (part + 1) / parts);
      });
    };
    for (RowSet& set : sets)
      for (int r = 0; r < set.n; ++r) layer.prepare(set.rows[r]);
    pass([&](RowSet& set, uint64_t c0, uint64_t c1) { layer.scores(set, c0, c1); });
    pass([&](RowSet& set, uint64_t c0, uint64_t c1) { layer.exponentials(set, c0, c1); });
    pass([&](RowSet& set, uint64_t c0, uint64_t c1) { layer.values(set, c0, c1); });
    for (const RowSet& set : sets) layer.merge(set);
    return;
  }
  pool_.parallel_for(n_sets, [&](int index, int thread) {
    RowSet set = make_set(index, thread * kTileRows);
    for (int r = 0; r < set.n; ++r) layer.prepare(set.rows[r]);
    const uint64_t nc = set.n_chunks();
    layer.scores(set, 0, nc);
    layer.exponentials(set, 0, nc);
    layer.values(set, 0, nc);
    layer.merge(set);
  });
}

}  // namespace wasmlm
