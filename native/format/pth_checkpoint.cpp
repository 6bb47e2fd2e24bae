#include "format/pth_checkpoint.h"

#include <algorithm>
#include <cstring>

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
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

bool PthTensor::contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && stride[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

const PthTensor* PthCheckpoint::find(const std::string& name) const {
  for (const PthTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {

bool looks_like_tar(const uint8_t* head, size_t n) {
  return n >= 262 && std::memcmp(head + 257, "ustar", 5) == 0;
}

}  // namespace

PthCheckpoint read_pth_checkpoint(uint64_t file_size, const ReadAt& read_at) {
  uint8_t head[512];
  size_t n = static_cast<size_t>(std::min<uint64_t>(file_size, sizeof head));
  read_exact(read_at, 0, head, n, "file header");
  if (looks_like_zip(head, n)) return read_pth_zip(file_size, read_at);
  if (looks_like_legacy_pth(head, n)) return read_pth_legacy(file_size, read_at);
  if (looks_like_tar(head, n))
    fail(ErrorCode::Unsupported, 257, "PyTorch tar checkpoint (torch < 0.4, a tar of sys_info/pickle/storages/tensors) "
                                      "is not supported; re-save it with a current torch.save");
  fail(ErrorCode::BadFormat, 0, "not a PyTorch checkpoint: neither a zip archive, a legacy torch pickle nor a tar file");
}

PthCheckpoint read_pth_checkpoint(const uint8_t* data, size_t size) {
  return read_pth_checkpoint(size, read_from_memory(data, size));
}

}  // namespace wasmlm
