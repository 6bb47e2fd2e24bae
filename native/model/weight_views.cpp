#include "model/weight_views.h"

#include "core/error.h"
#include "quant/quant_traits.h"

namespace wasmlm {

const WeightStore::Tensor& tensor(const WeightStore& store, const std::string& name) {
  const WeightStore::Tensor* t = store.find(name);
  if (!t) fail(ErrorCode::BadFormat, kNoOffset, "the model has no (complete) tensor '" + name + "'");
  return *t;
}

std::vector<WeightMatrix> matrices(const WeightStore& store, const std::string& name, uint64_t rows, uint64_t cols,
                                   uint64_t n) {
  const WeightStore::Tensor& t = tensor(store, name);
  const TensorInfo& i = t.info;
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
  const uint64_t row_bytes = i.nbytes / (rows * n);
  std::vector<WeightMatrix> out;
  for (uint64_t k = 0; k < n; ++k)
    out.push_back(WeightMatrix{i.type, static_cast<int64_t>(cols), static_cast<int64_t>(rows),
                               t.data.get() + k * rows * row_bytes, row_bytes});
  return out;
}

WeightMatrix matrix(const WeightStore& store, const std::string& name, uint64_t rows, uint64_t cols) {
  return matrices(store, name, rows, cols, 1)[0];
}

std::vector<float> vector_f32(const WeightStore& store, const std::string& name, uint64_t n) {
  const WeightStore::Tensor& t = tensor(store, name);
  if (t.info.n_elements() != n)
    fail(ErrorCode::BadFormat, t.info.offset, "tensor '" + name + "' should have " + std::to_string(n) + " elements");
  const ToFloatFn to_float = quant_traits(t.info.type).to_float;
  if (!to_float) fail(ErrorCode::Unsupported, t.info.offset, "cannot read tensor '" + name + "' as floats");
  std::vector<float> out(n);
  to_float(t.data.get(), out.data(), static_cast<int64_t>(n));
  return out;
}


}  // namespace wasmlm
