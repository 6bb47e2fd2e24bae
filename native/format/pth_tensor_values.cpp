#include "format/pth_tensor_values.h"

#include <cstring>

#include "core/checked_math.h"
#include "core/error.h"
#include "format/limits.h"
#include "format/pth_read_at.h"
#include "quant/fp16.h"

namespace wasmlm {

namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

float to_float(PthDtype dtype, const uint8_t* p) {
  switch (dtype) {
    case PthDtype::BF16: return bf16_to_fp32(load<uint16_t>(p));
    case PthDtype::F16: return fp16_to_fp32(load<uint16_t>(p));
    case PthDtype::F32: return load<float>(p);
    case PthDtype::F64: return static_cast<float>(load<double>(p));
    case PthDtype::I8: return load<int8_t>(p);
    case PthDtype::I16: return load<int16_t>(p);
    case PthDtype::I32: return static_cast<float>(load<int32_t>(p));
    case PthDtype::I64: return static_cast<float>(load<int64_t>(p));
    case PthDtype::U8: return load<uint8_t>(p);
    case PthDtype::BOOL: return *p ? 1.0f : 0.0f;
  }
  return 0;
}

}  // namespace

std::vector<float> read_pth_tensor_as_float(const PthCheckpoint& ck, const PthTensor& t, const ReadAt& read_at) {
  if (t.storage >= ck.storages.size()) fail(ErrorCode::Internal, kNoOffset, "tensor '" + t.name + "' has no storage");
  const PthStorage& s = ck.storages[t.storage];
  const uint64_t n = t.numel();
  if (n > limits::kMaxUnitBytes / sizeof(float))
    fail(ErrorCode::TooLarge, s.offset, "tensor '" + t.name + "' is too large to materialize at once");
  std::vector<float> out(static_cast<size_t>(n));
  if (n == 0) return out;
  uint64_t last = t.storage_offset;
  for (size_t i = 0; i < t.shape.size(); ++i)
    last = checked_add(last, checked_mul(static_cast<uint64_t>(t.shape[i] - 1), static_cast<uint64_t>(t.stride[i]), s.offset,
                                         "tensor '" + t.name + "''s extent"),
                       s.offset, "tensor '" + t.name + "''s last element");
  uint32_t esize = pth_dtype_size(t.dtype);
  if (last >= s.nbytes / esize)
    fail(ErrorCode::BadFormat, s.offset, "tensor '" + t.name + "' reaches past the end of storage '" + s.key + "'");

  // Both below the storage's size in bytes, which fits in the file.
  uint64_t first_byte = t.storage_offset * esize;
  uint64_t span = (last - t.storage_offset + 1) * esize;
  if (span > limits::kMaxUnitBytes)
    fail(ErrorCode::TooLarge, s.offset, "tensor '" + t.name + "' spans " + std::to_string(span) + " bytes of its storage");
  std::vector<uint8_t> bytes = read_exact(read_at, s.offset + first_byte, static_cast<size_t>(span), "tensor storage");

  // Walk the index like an odometer, last dimension fastest.
  size_t dims = t.shape.size();
  std::vector<int64_t> index(dims, 0);
  uint64_t elem = 0;  // relative to storage_offset
  for (size_t k = 0; k < out.size(); ++k) {
    out[k] = to_float(t.dtype, bytes.data() + elem * esize);
    for (size_t d = dims; d-- > 0;) {
      elem += static_cast<uint64_t>(t.stride[d]);
      if (++index[d] < t.shape[d]) break;
      elem -= static_cast<uint64_t>(t.stride[d]) * static_cast<uint64_t>(t.shape[d]);
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace wasmlm
