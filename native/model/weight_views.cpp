#include "model/weight_views.h"

#include <algorithm>

#include "core/error.h"
#include "quant/quant_traits.h"

namespace wasmlm {

const WeightStore::Tensor& tensor(const WeightStore& store, const std::string& name) {
  const WeightStore::Tensor* t = store.find(name);
  if (!t) fail(ErrorCode::BadFormat, kNoOffset, "the model has no (complete) tensor '" + name + "'");
  return *t;
}

void check_matrices(const TensorInfo& i, const std::string& name, uint64_t rows, uint64_t cols, uint64_t n) {
  if (rows == 0 || cols == 0 || n == 0)
    fail(ErrorCode::BadFormat, i.offset, "the hyperparameters make tensor '" + name + "' an empty matrix (" +
                                             std::to_string(rows) + " x " + std::to_string(cols) + ")");
  bool fits = i.n_dims >= 2 && i.ne[0] == cols && i.ne[1] == rows;
  for (int d = 2; d < i.n_dims; ++d) fits = fits && i.ne[d] == (d == 2 ? n : 1);
  if (!fits || (i.n_dims == 2 && n != 1)) {
    std::string shape;
    for (int d = 0; d < i.n_dims; ++d) shape += (d ? ", " : "") + std::to_string(i.ne[d]);
    fail(ErrorCode::BadFormat, i.offset,
         "tensor '" + name + "' has shape [" + shape + "], expected [" + std::to_string(cols) + ", " +
             std::to_string(rows) + (n != 1 ? ", " + std::to_string(n) : std::string()) + "]");
  }
  if (!i.rows_block_aligned())
    fail(ErrorCode::Unsupported, i.offset,
         "tensor '" + name + "' has " + ggml_type_info(i.type).name + " blocks running across its rows of " +
             std::to_string(cols) + "; llama.cpp refuses such files too: re-quantize the model");
  if (!quant_traits(i.type).vec_dot)
    fail(ErrorCode::Unsupported, i.offset,
         std::string("tensor type ") + ggml_type_info(i.type).name + " (in '" + name + "') cannot be computed yet");
}

std::vector<WeightMatrix> matrices(const WeightStore& store, const std::string& name, uint64_t rows, uint64_t cols,
                                   uint64_t n) {
  const WeightStore::Tensor& t = tensor(store, name);
  const TensorInfo& i = t.info;
  check_matrices(i, name, rows, cols, n);
  const uint64_t row_bytes = i.nbytes / (rows * n);
  std::vector<WeightMatrix> out;
  for (uint64_t k = 0; k < n; ++k)
    out.push_back(WeightMatrix{i.type, static_cast<int64_t>(cols), static_cast<int64_t>(rows),
                               t.data.get() + k * rows * row_bytes, row_bytes, t.quads});
  return out;
}

WeightMatrix matrix(const WeightStore& store, const std::string& name, uint64_t rows, uint64_t cols) {
  return matrices(store, name, rows, cols, 1)[0];
}

void check_vector(const TensorInfo& info, const std::string& name, uint64_t n) {
  if (info.n_elements() != n)
    fail(ErrorCode::BadFormat, info.offset, "tensor '" + name + "' should have " + std::to_string(n) + " elements");
  if (!quant_traits(info.type).to_float)
    fail(ErrorCode::Unsupported, info.offset, "cannot read tensor '" + name + "' as floats");
}

std::vector<float> vector_f32(const WeightStore& store, const std::string& name, uint64_t n) {
  const WeightStore::Tensor& t = tensor(store, name);
  check_vector(t.info, name, n);
  std::vector<float> out(n);
  quant_traits(t.info.type).to_float(t.data.get(), out.data(), static_cast<int64_t>(n));
  return out;
}

const TensorInfo& directory_tensor(const ModelFile& file, const std::string& name) {
  const TensorInfo* t = file.find_tensor(name);
  if (!t) fail(ErrorCode::BadFormat, kNoOffset, "the model has no tensor '" + name + "'");
  return *t;
}

void check_block_count(const ModelFile& file, const std::string& prefix, uint32_t n_layer, const std::string& key) {
  uint64_t blocks = 0;  // highest block index named, plus one
  for (const TensorInfo& t : file.tensors) {
    if (t.name.compare(0, prefix.size(), prefix) != 0) continue;
    uint64_t index = 0;
    size_t i = prefix.size();
    for (; i < t.name.size() && i < prefix.size() + 9 && t.name[i] >= '0' && t.name[i] <= '9'; ++i)
      index = index * 10 + static_cast<uint64_t>(t.name[i] - '0');
    if (i > prefix.size() && i < t.name.size() && t.name[i] == '.') blocks = std::max(blocks, index + 1);
  }
  if (blocks < n_layer)
    fail(ErrorCode::BadFormat, kNoOffset,
         key + " is " + std::to_string(n_layer) + " but the file has tensors for " + std::to_string(blocks) + " blocks" +
             (blocks ? " (" + prefix + "0 to " + prefix + std::to_string(blocks - 1) + ")" : std::string()));
}

}  // namespace wasmlm
