// The element types a PyTorch checkpoint's tensors can have here, named as
// the project names them (GGUF-style), with torch's storage class names.
#pragma once

#include <cstdint>
#include <string>

namespace wasmlm {

enum class PthDtype : uint8_t { BF16, F16, F32, F64, I8, I16, I32, I64, U8, BOOL };

const char* pth_dtype_name(PthDtype dtype);
uint32_t pth_dtype_size(PthDtype dtype);
// "FloatStorage" -> F32, ...; false for any other name.
bool pth_dtype_from_storage_class(const std::string& name, PthDtype& out);
// "float32"/"float" -> F32, ... (torch.<dtype> globals); false for any other name.
bool pth_dtype_from_torch_name(const std::string& name, PthDtype& out);

}  // namespace wasmlm
