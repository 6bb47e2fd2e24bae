// Summary of a tensor's dequantized values, accumulated as its bytes stream
// in: count, sum and sum of squares (double), min, max, and the first 32
// values. Used by `wasmlm tensor` and the viewer.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ggml_type.h"

namespace wasmlm {

class TensorStats {
 public:
  TensorStats(GgmlType type, uint64_t n_elements);

  // The next `n` bytes of the tensor, in order; any split is fine.
  void add_bytes(const uint8_t* data, size_t n);
  // True once n_elements values have been seen.
  bool complete() const { return seen_ == n_elements_; }

  uint64_t count() const { return seen_; }
  double sum() const { return sum_; }
  double sum_of_squares() const { return sumsq_; }
  float min() const { return min_; }
  float max() const { return max_; }
  const std::vector<float>& first_values() const { return first_; }

 private:
  void add_blocks(const uint8_t* data, size_t n_blocks);

  GgmlType type_;
  uint64_t n_elements_;
  uint32_t block_size_, type_size_;
  uint64_t seen_ = 0;
  double sum_ = 0, sumsq_ = 0;
  float min_, max_;
  std::vector<float> first_;
  std::vector<uint8_t> partial_;  // bytes of a block split across calls
  std::vector<float> values_;     // scratch
};

}  // namespace wasmlm
