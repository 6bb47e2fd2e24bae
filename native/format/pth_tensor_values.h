// A checkpoint tensor's values as float, row-major and contiguous, gathered
// from its storage with its strides and storage offset (views and
// column-major tensors come out as torch shows them). Reads only the part of
// the storage the tensor covers.
#pragma once

#include <vector>

#include "format/pth_checkpoint.h"

namespace wasmlm {

// Every dtype converts: floats exactly (F64 rounds to nearest), integers as
// static_cast<float>, BOOL as 0/1. TooLarge past limits::kMaxUnitBytes of output.
std::vector<float> read_pth_tensor_as_float(const PthCheckpoint& checkpoint, const PthTensor& tensor, const ReadAt& read_at);

}  // namespace wasmlm
