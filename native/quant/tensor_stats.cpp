#include "quant/tensor_stats.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "quant/quant_traits.h"

namespace wasmlm {

namespace {
constexpr size_t kBlocksPerStep = 4096;
constexpr size_t kFirstValues = 32;
}  // namespace

TensorStats::TensorStats(GgmlType type, uint64_t n_elements)
    : type_(type),
      n_elements_(n_elements),
      min_(std::numeric_limits<float>::infinity()),
      max_(-std::numeric_limits<float>::infinity()) {
  const GgmlTypeInfo& info = ggml_type_info(type);
  if (!quant_traits(type).to_float)
    fail(ErrorCode::Unsupported, kNoOffset, std::string("cannot dequantize tensor type ") + info.name + " yet");
  if (n_elements % info.block_size != 0)
    fail(ErrorCode::BadFormat, kNoOffset, "tensor size is not a whole number of blocks");
  block_size_ = info.block_size;
  type_size_ = info.type_size;
}

void TensorStats::add_bytes(const uint8_t* data, size_t n) {
  if (!partial_.empty()) {
    size_t take = std::min(n, type_size_ - partial_.size());
    partial_.insert(partial_.end(), data, data + take);
    data += take;
    n -= take;
    if (partial_.size() < type_size_) return;
    add_blocks(partial_.data(), 1);
    partial_.clear();
  }
  size_t whole = n / type_size_;
  add_blocks(data, whole);
  partial_.assign(data + whole * type_size_, data + n);
}

void TensorStats::add_blocks(const uint8_t* data, size_t n_blocks) {
  const ToFloatFn to_float = quant_traits(type_).to_float;
  std::vector<uint8_t> aligned;  // blocks may arrive at any address
  while (n_blocks > 0) {
    const size_t blocks = std::min(n_blocks, kBlocksPerStep);
    const uint64_t values = uint64_t(blocks) * block_size_;
    if (seen_ + values > n_elements_) fail(ErrorCode::BadFormat, kNoOffset, "more bytes than the tensor holds");
    aligned.assign(data, data + blocks * type_size_);
    values_.resize(values);
    to_float(aligned.data(), values_.data(), static_cast<int64_t>(values));
    for (float v : values_) {
      sum_ += v;
      sumsq_ += double(v) * v;
      min_ = std::min(min_, v);
      max_ = std::max(max_, v);
    }
    for (size_t i = 0; first_.size() < kFirstValues && i < values_.size(); ++i) first_.push_back(values_[i]);
    seen_ += values;
    data += blocks * type_size_;
    n_blocks -= blocks;
  }
}

}  // namespace wasmlm
