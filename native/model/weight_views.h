// Typed views of a WeightStore's tensors for the model builders: matrices
// for the matrix kernels, small vectors read as floats. Each checks the
// shape and fails with a BadFormat/Unsupported error naming the tensor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/matmul.h"
#include "model/weight_store.h"

namespace wasmlm {

// The tensor (all its bytes received); BadFormat if missing.
const WeightStore::Tensor& tensor(const WeightStore& store, const std::string& name);

// A weight [ne0 = cols, ne1 = rows] (further dimensions 1) as rows x cols.
WeightMatrix matrix(const WeightStore& store, const std::string& name, uint64_t rows, uint64_t cols);

// A 3-D weight [cols, rows, n] as n matrices of rows x cols.
std::vector<WeightMatrix> matrices(const WeightStore& store, const std::string& name, uint64_t rows, uint64_t cols,
                                   uint64_t n);

// A tensor of n elements (any shape) as floats.
std::vector<float> vector_f32(const WeightStore& store, const std::string& name, uint64_t n);

// The checks of matrices() and vector_f32() on a directory entry alone, for
// refusing a model before its weights are loaded.
void check_matrices(const TensorInfo& info, const std::string& name, uint64_t rows, uint64_t cols, uint64_t n = 1);
void check_vector(const TensorInfo& info, const std::string& name, uint64_t n);
// The directory entry; BadFormat if the file has no such tensor.
const TensorInfo& directory_tensor(const ModelFile& file, const std::string& name);

// The tensor names `prefix`N. (blk.0., blk.1., ...) must cover blocks 0 to
// n_layer - 1: BadFormat naming `key` otherwise.
void check_block_count(const ModelFile& file, const std::string& prefix, uint32_t n_layer, const std::string& key);

}  // namespace wasmlm
