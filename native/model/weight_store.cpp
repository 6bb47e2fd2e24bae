#include "model/weight_store.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "core/error.h"

namespace wasmlm {

namespace {
constexpr size_t kAlignment = 64;
constexpr size_t kReadChunk = 1 << 20;

}  // namespace

void AlignedBytesDelete::operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(kAlignment)); }

void WeightStore::tensor_bytes(size_t index, const TensorInfo& info, uint64_t offset_in_tensor,
                               const uint8_t* data, size_t n) {
  auto it = by_file_index_.find(index);
  if (it == by_file_index_.end()) {
    Tensor t;
    t.info = info;
    // Padded so SIMD kernels may read a little past the last block.
    const uint64_t size = info.nbytes + kAlignment;
    uint8_t* p = static_cast<uint8_t*>(::operator new[](size, std::align_val_t(kAlignment), std::nothrow));
    if (!p)
      fail(ErrorCode::OutOfMemory, info.offset,
           "cannot allocate " + std::to_string(info.nbytes) + " bytes for tensor '" + info.name + "'");
    std::memset(p + info.nbytes, 0, kAlignment);
    t.data = AlignedBytes(p);
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
