#include "format/pth_dtype.h"

namespace wasmlm {

namespace {

struct DtypeRow {
  PthDtype dtype;
  const char* name;
  uint32_t size;
  const char* storage_class;
  const char* torch_name;
  const char* torch_alias;
};

constexpr DtypeRow kRows[] = {
    {PthDtype::BF16, "BF16", 2, "BFloat16Storage", "bfloat16", ""},
    {PthDtype::F16, "F16", 2, "HalfStorage", "float16", "half"},
    {PthDtype::F32, "F32", 4, "FloatStorage", "float32", "float"},
    {PthDtype::F64, "F64", 8, "DoubleStorage", "float64", "double"},
    {PthDtype::I8, "I8", 1, "CharStorage", "int8", ""},
    {PthDtype::I16, "I16", 2, "ShortStorage", "int16", "short"},
    {PthDtype::I32, "I32", 4, "IntStorage", "int32", "int"},
    {PthDtype::I64, "I64", 8, "LongStorage", "int64", "long"},
    {PthDtype::U8, "U8", 1, "ByteStorage", "uint8", ""},
    {PthDtype::BOOL, "BOOL", 1, "BoolStorage", "bool", ""},
};

const DtypeRow& row(PthDtype dtype) { return kRows[static_cast<int>(dtype)]; }

}  // namespace

const char* pth_dtype_name(PthDtype dtype) { return row(dtype).name; }
uint32_t pth_dtype_size(PthDtype dtype) { return row(dtype).size; }

bool pth_dtype_from_storage_class(const std::string& name, PthDtype& out) {
  for (const DtypeRow& r : kRows)
    if (name == r.storage_class) return out = r.dtype, true;
  return false;
}

bool pth_dtype_from_torch_name(const std::string& name, PthDtype& out) {
  for (const DtypeRow& r : kRows)
    if (name == r.torch_name || (*r.torch_alias && name == r.torch_alias)) return out = r.dtype, true;
  return false;
}

}  // namespace wasmlm
