#include "model/weight_store.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "core/error.h"
#include "model/quantize_choice.h"
#include "quant/quant_traits.h"
#include "quant/row_quads.h"

namespace wasmlm {

namespace {
constexpr size_t kAlignment = 64;
constexpr size_t kReadChunk = 1 << 20;

// n bytes, 64-byte aligned, followed by kAlignment zero bytes (SIMD kernels
// may read a little past the last block).
AlignedBytes allocate(uint64_t n, const TensorInfo& info) {
  uint8_t* p = static_cast<uint8_t*>(::operator new[](n + kAlignment, std::align_val_t(kAlignment), std::nothrow));
  if (!p)
    fail(ErrorCode::OutOfMemory, info.offset,
         "cannot allocate " + std::to_string(n) + " bytes for tensor '" + info.name + "'");
  std::memset(p + n, 0, kAlignment);
  return AlignedBytes(p);
}

}  // namespace

void AlignedBytesDelete::operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(kAlignment)); }

void WeightStore::tensor_bytes(size_t index, const TensorInfo& info, uint64_t offset_in_tensor,
                               const uint8_t* data, size_t n) {
  auto it = by_file_index_.find(index);
  if (it == by_file_index_.end()) {
    Tensor t;
    t.info = info;
    t.data = allocate(info.nbytes, info);
    const uint64_t size = info.nbytes + kAlignment;
    bytes_allocated_ += size;
    it = by_file_index_.emplace(index, tensors_.size()).first;
    by_name_[info.name] = tensors_.size();
    tensors_.push_back(std::move(t));
  }
  Tensor& t = tensors_[it->second];
  if (offset_in_tensor + n > t.info.nbytes)
    fail(ErrorCode::Internal, t.info.offset + offset_in_tensor, "tensor bytes beyond the tensor's size");
  std::memcpy(t.data.get() + offset_in_tensor, data, n);
  t.received += n;
  if (!t.complete()) return;
  if (quantize_select_ && quantize_select_(t.info)) quantize(t);
  if (repack_select_ && repack_select_(t.info)) repack(t);
}

void WeightStore::repack_on_load(std::function<bool(const TensorInfo&)> select) { repack_select_ = std::move(select); }

void WeightStore::repack(Tensor& t) {
  const TensorInfo& i = t.info;
  const QuantTraits& q = quant_traits(i.type);
  if (!q.vec_dot_quads || i.n_dims != 2 || i.ne[1] % kTileRows != 0 || !i.rows_block_aligned()) return;
  pack_row_quads(i.type, static_cast<int64_t>(i.ne[0]), static_cast<int64_t>(i.ne[1]), t.data.get());
  t.quads = true;
  ++tensors_in_quads_;
}

void WeightStore::quantize_on_load(GgmlType type, std::function<bool(const TensorInfo&)> select) {
  const QuantTraits& q = quant_traits(type);
  if (!q.from_float || !ggml_type_info(type).quantized)
    fail(ErrorCode::Unsupported, kNoOffset, std::string("cannot quantize to ") + ggml_type_info(type).name);
  quantize_to_ = type;
  quantize_select_ = std::move(select);
}

void WeightStore::quantize(Tensor& t) {
  const TensorInfo& in = t.info;
  const std::optional<GgmlType> to = quantize_choice(quantize_to_, in);
  if (!to || *to == in.type) return;
  const uint64_t n = in.n_elements();
  TensorInfo out = in;
  out.type = *to;
  out.nbytes = *ggml_nbytes(*to, n);
  AlignedBytes data = allocate(out.nbytes, out);
  // Row by row in slices, so a F16/BF16 tensor is never held whole as floats.
  const uint64_t cols = in.ne[0], rows = n / cols;
  const uint64_t in_row = in.nbytes / rows, out_row = out.nbytes / rows;
  const uint64_t slice_rows = std::max<uint64_t>(1, (1u << 20) / cols);
  const QuantTraits& q = quant_traits(*to);
  const FromFloatFn to_quantized = q.from_float_fast ? q.from_float_fast : q.from_float;  // the same bytes
  std::vector<float> converted(in.type == GgmlType::F32 ? 0 : std::min(rows, slice_rows) * cols);
  for (uint64_t r = 0; r < rows; r += slice_rows) {
    const uint64_t count = std::min(slice_rows, rows - r) * cols;
    const uint8_t* src = t.data.get() + r * in_row;
    const float* values = reinterpret_cast<const float*>(src);
    if (in.type != GgmlType::F32) {
      quant_traits(in.type).to_float(src, converted.data(), static_cast<int64_t>(count));
      values = converted.data();
    }
    to_quantized(values, data.get() + r * out_row, static_cast<int64_t>(count));
  }
  quantized_.push_back({in.name, in.type, *to});
  bytes_allocated_ = bytes_allocated_ - in.nbytes + out.nbytes;
  t.data = std::move(data);
  t.info = out;
  t.received = out.nbytes;
}

const WeightStore::Tensor* WeightStore::find(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  const Tensor& t = tensors_[it->second];
  return t.complete() ? &t : nullptr;
}

ModelFile load_weights(uint64_t file_size, const ReadAt& read_at, WeightStore& store) {
  IncrementalParser parser(file_size);
  parser.set_sink(&store);
  std::vector<uint8_t> buf(kReadChunk);
  uint64_t at = 0;
  while (!parser.done()) {
    const size_t got = read_at(at, buf.data(), buf.size());
    if (got == 0) {
      parser.finish();
      break;
    }
    parser.push(buf.data(), got);
    at += got;
  }
  return parser.take_file();
}

}  // namespace wasmlm
