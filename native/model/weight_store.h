// The model's weights in memory: one allocation per tensor, filled as the
// file's bytes stream past (a TensorSink), so the file itself is never held
// whole. In wasm these allocations are the weights' only copy.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/incremental_parser.h"

namespace wasmlm {

// Frees memory from the aligned operator new[] the store allocates with.
struct AlignedBytesDelete {
  void operator()(uint8_t* p) const;
};
using AlignedBytes = std::unique_ptr<uint8_t, AlignedBytesDelete>;

class WeightStore final : public TensorSink {
 public:
  void tensor_bytes(size_t index, const TensorInfo& info, uint64_t offset_in_tensor, const uint8_t* data,
                    size_t n) override;

  struct Tensor {
    TensorInfo info;
    AlignedBytes data;  // 64-byte aligned, info.nbytes bytes (+ zero padding)
    uint64_t received = 0;
    bool quads = false;  // rows repacked in quads (repack_on_load)
    bool complete() const { return received == info.nbytes; }
  };

  // Quantization at load time: each F32/F16/BF16 tensor that `select` picks
  // is quantized to `type` (or what quantize_choice() gives where its rows
  // cannot hold `type`) as soon as its bytes have arrived, so the store never
  // holds more than one unquantized tensor. Set before loading.
  void quantize_on_load(GgmlType type, std::function<bool(const TensorInfo&)> select);
  struct Quantized {
    std::string name;
    GgmlType from, to;
  };
  // The tensors quantized on load so far, in the order they arrived.
  const std::vector<Quantized>& quantized() const { return quantized_; }

  // Matrices that `select` picks are repacked into row quads (row_quads.h)
  // as soon as their bytes have arrived (and been quantized), where their
  // type has a quad kernel in this engine and their rows come in fours:
  // only those only the matrix kernels read. Set before loading.
  void repack_on_load(std::function<bool(const TensorInfo&)> select);
  uint64_t tensors_in_quads() const { return tensors_in_quads_; }

  // nullptr if the file has no such tensor or its bytes have not all arrived.
  const Tensor* find(const std::string& name) const;
  uint64_t bytes_allocated() const { return bytes_allocated_; }
  size_t size() const { return tensors_.size(); }

 private:
  std::vector<Tensor> tensors_;
  std::unordered_map<std::string, size_t> by_name_;
  std::unordered_map<size_t, size_t> by_file_index_;
  uint64_t bytes_allocated_ = 0;
  GgmlType quantize_to_ = GgmlType::F32;
  std::function<bool(const TensorInfo&)> quantize_select_;
  std::vector<Quantized> quantized_;
  std::function<bool(const TensorInfo&)> repack_select_;
  uint64_t tensors_in_quads_ = 0;

  void quantize(Tensor& t);
  void repack(Tensor& t);
};

// Streams a model file held in memory (or read in pieces by `read_at`)
// through the parser into `store`; returns the directory.
ModelFile load_weights(uint64_t file_size, const ReadAt& read_at, WeightStore& store);

}  // namespace wasmlm
