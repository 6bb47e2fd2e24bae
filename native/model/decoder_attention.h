// The scratch memory of a DecoderContext's attention (decoder_attention.cpp):
// per query row being worked on, its prepared query, its scores (then
// weights) over the keys it sees, and per chunk of keys the scores' maximum,
// the exponentials' sum and the weighted values' sum.
#pragma once

#include <cstdint>
#include <vector>

namespace wasmlm {

class AttentionBuffers {
 public:
  // Keys fall in chunks of kChunk positions; every sum over keys is summed per
  // chunk, then over the chunks in order (which fixes the arithmetic however
  // the work is split).
  static constexpr uint32_t kChunk = 256;
  // Query rows of one KV head a task takes at once.
  static constexpr int kTileRows = 8;

  // rows: how many rows can be worked on at once; span: the most keys a row
  // set sees (a layer's capacity).
  void resize(int rows, uint32_t span, uint32_t head_dim) {
    head_dim_ = (uint64_t(head_dim) + 3) / 4 * 4;
    span_ = (uint64_t(span) + 3) / 4 * 4;
    chunks_ = span / kChunk + 2;  // a span that does not start on a chunk touches one more
    row_floats_ = head_dim_ + span_ + chunks_ + chunks_ * head_dim_;
    floats_.assign(uint64_t(rows) * row_floats_, 0.f);
    sums_.assign(uint64_t(rows) * chunks_, 0.0);
    rows_ = rows;
  }
  int rows() const { return rows_; }
  uint64_t chunks() const { return chunks_; }

  float* query(int row) { return &floats_[row * row_floats_]; }
  float* scores(int row) { return query(row) + head_dim_; }
  float* chunk_max(int row) { return scores(row) + span_; }
  float* partial(int row, uint64_t chunk) { return chunk_max(row) + chunks_ + chunk * head_dim_; }
  double* chunk_sum(int row) { return &sums_[row * chunks_]; }

 private:
  std::vector<float> floats_;
  std::vector<double> sums_;
  uint64_t head_dim_ = 0, span_ = 0, chunks_ = 0, row_floats_ = 0;
  int rows_ = 0;
};

}  // namespace wasmlm
