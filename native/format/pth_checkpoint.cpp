#include "format/pth_checkpoint.h"

#include <algorithm>
#include <cstring>

#include "core/checked_math.h"
#include "core/error.h"
#include "format/pth_legacy_checkpoint.h"
#include "format/pth_read_at.h"
#include "format/pth_zip_checkpoint.h"
#include "format/zip_reader.h"

namespace wasmlm {

const char* pth_format_name(PthFormat format) {
  switch (format) {
    case PthFormat::Zip: return "pytorch-zip";
    case PthFormat::Legacy: return "pytorch-legacy";
  }
  return "?";
}

uint64_t PthTensor::numel() const {
  for (int64_t d : shape)
    if (d == 0) return 0;
  uint64_t n = 1;
  for (int64_t d : shape) n = checked_mul(n, static_cast<uint64_t>(d), kNoOffset, "tensor '" + name + "''s element count");
  return n;
}

uint64_t PthTensor::nbytes() const {
  return checked_mul(numel(), pth_dtype_size(dtype), kNoOffset, "tensor '" + name + "''s size in bytes");
}

bool PthTensor::contiguous() const {
  if (numel() == 0) return true;
  uint64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && static_cast<uint64_t>(stride[i]) != expected) return false;
    expected *= static_cast<uint64_t>(shape[i]);  // a factor of numel(): no overflow
  }
  return true;
}

const PthTensor* PthCheckpoint::find(const std::string& name) const {
  for (const PthTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

uint64_t PthCheckpoint::data_offset(const PthTensor& t) const {
  const PthStorage& s = storages.at(t.storage);
  return checked_add(s.offset, checked_mul(t.storage_offset, pth_dtype_size(t.dtype), s.offset, "a storage offset"), s.offset,
                     "tensor '" + t.name + "''s offset");
}

namespace {

bool looks_like_tar(const uint8_t* head, size_t n) {
  return n >= 262 && std::memcmp(head + 257, "ustar", 5) == 0;
}

}  // namespace

PthCheckpointReader::PthCheckpointReader(uint64_t file_size, ReadAt read_at)
    : file_size_(file_size), read_at_(std::move(read_at)) {}
PthCheckpointReader::~PthCheckpointReader() = default;

PthCheckpoint PthCheckpointReader::read() {
  if (!zip_ && !legacy_) {
    uint8_t head[512];
    size_t n = static_cast<size_t>(std::min<uint64_t>(file_size_, sizeof head));
    read_exact(read_at_, 0, head, n, "file header");
    if (looks_like_zip(head, n)) {
      zip_ = std::make_unique<PthZipReader>(file_size_, read_at_);
    } else if (looks_like_legacy_pth(head, n)) {
      legacy_ = std::make_unique<PthLegacyReader>(file_size_, read_at_);
    } else if (looks_like_tar(head, n)) {
      fail(ErrorCode::Unsupported, 257, "PyTorch tar checkpoint (torch < 0.4, a tar of sys_info/pickle/storages/tensors) "
                                        "is not supported; re-save it with a current torch.save");
    } else {
      fail(ErrorCode::BadFormat, 0, "not a PyTorch checkpoint: neither a zip archive, a legacy torch pickle nor a tar file");
    }
  }
  return zip_ ? zip_->read() : legacy_->read();
}

uint64_t PthCheckpointReader::pickle_ops() const {
  return zip_ ? zip_->pickle_ops() : legacy_ ? legacy_->pickle_ops() : 0;
}

PthCheckpoint read_pth_checkpoint(uint64_t file_size, const ReadAt& read_at) {
  return PthCheckpointReader(file_size, read_at).read();
}

PthCheckpoint read_pth_checkpoint(const uint8_t* data, size_t size) {
  return read_pth_checkpoint(size, read_from_memory(data, size));
}

}  // namespace wasmlm
