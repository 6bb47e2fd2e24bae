// Values built by the pickle machine, held in one arena (PickleHeap) so that
// shared and even cyclic references cost nothing and free with the heap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wasmlm {

enum class PyKind : uint8_t {
  None, Bool, Int, Float,       // immediate
  BigInt,                       // an int beyond 64 bits: its little-endian two's complement bytes in `text`
  Str, Bytes,                   // `text`
  List, Tuple, Dict,            // `items` (a dict's keys and values alternate)
  Global,                       // an allow-listed class or function: `text` is "module.name", `tag` says which
  Storage, Tensor,              // torch objects: `tag` indexes the unpickler's tables
  Opaque,                       // an allowed object we never look into (a torch.device, ...)
};

struct PyValue {
  PyKind kind = PyKind::None;
  uint32_t ref = 0;  // heap index for the non-immediate kinds
  union {
    int64_t i = 0;  // Int, Bool
    double f;       // Float
  };

  static PyValue none() { return {}; }
  static PyValue boolean(bool b) { PyValue v; v.kind = PyKind::Bool; v.i = b; return v; }
  static PyValue integer(int64_t x) { PyValue v; v.kind = PyKind::Int; v.i = x; return v; }
  static PyValue real(double x) { PyValue v; v.kind = PyKind::Float; v.f = x; return v; }
};

struct PyObject {
  PyKind kind;
  uint32_t tag = 0;
  std::string text;
  std::vector<PyValue> items;
};

const char* py_kind_name(PyKind kind);

class PickleHeap {
 public:
  // A new object; TooLarge past limits::kMaxPickleObjects (at `offset`).
  PyValue make(PyKind kind, uint64_t offset, std::string text = {}, uint32_t tag = 0);
  // Adds to a List/Tuple/Dict, counting against limits::kMaxPickleItems.
  void add_item(PyValue container, PyValue item, uint64_t offset);

  PyObject& at(PyValue v) { return objects_[v.ref]; }
  const PyObject& at(PyValue v) const { return objects_[v.ref]; }
  static bool is_object(PyValue v) { return v.kind > PyKind::Float; }

 private:
  std::vector<PyObject> objects_;
  uint64_t items_ = 0;
};

}  // namespace wasmlm
