#include "format/pickle_value.h"

#include "core/error.h"
#include "format/limits.h"

namespace wasmlm {

const char* py_kind_name(PyKind kind) {
  switch (kind) {
    case PyKind::None: return "None";
    case PyKind::Bool: return "bool";
    case PyKind::Int: return "int";
    case PyKind::Float: return "float";
    case PyKind::BigInt: return "int";
    case PyKind::Str: return "str";
    case PyKind::Bytes: return "bytes";
    case PyKind::List: return "list";
    case PyKind::Tuple: return "tuple";
    case PyKind::Dict: return "dict";
    case PyKind::Global: return "global";
    case PyKind::Storage: return "storage";
    case PyKind::Tensor: return "tensor";
    case PyKind::Opaque: return "object";
  }
  return "?";
}

PyValue PickleHeap::make(PyKind kind, uint64_t offset, std::string text, uint32_t tag) {
  if (objects_.size() >= limits::kMaxPickleObjects)
    fail(ErrorCode::TooLarge, offset, "pickle builds more than " + std::to_string(limits::kMaxPickleObjects) + " objects");
  PyValue v;
  v.kind = kind;
  v.ref = static_cast<uint32_t>(objects_.size());
  objects_.push_back(PyObject{kind, tag, std::move(text), {}});
  return v;
}

void PickleHeap::add_item(PyValue container, PyValue item, uint64_t offset) {
  if (++items_ > limits::kMaxPickleItems)
    fail(ErrorCode::TooLarge, offset, "pickle containers hold more than " + std::to_string(limits::kMaxPickleItems) + " items");
  objects_[container.ref].items.push_back(item);
}

}  // namespace wasmlm
