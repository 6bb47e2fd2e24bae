#include "format/pth_unpickler.h"

#include <cstdint>

#include "core/checked_math.h"
#include "core/error.h"
#include "format/limits.h"

namespace wasmlm {

namespace {

enum class Allowed : uint32_t {
  RebuildTensorV2, RebuildParameter, RebuildParameterWithState, OrderedDict, Device, Size, StorageClass, Dtype,
};

// A Global's tag: the Allowed kind in the high bits, the dtype in the low byte.
uint32_t tag_of(Allowed a, PthDtype d = PthDtype::F32) { return static_cast<uint32_t>(a) << 8 | static_cast<uint32_t>(d); }
Allowed allowed_of(uint32_t tag) { return static_cast<Allowed>(tag >> 8); }
PthDtype dtype_of(uint32_t tag) { return static_cast<PthDtype>(tag & 0xff); }

bool find_allowed(const std::string& module, const std::string& name, uint32_t& tag) {
  PthDtype d;
  if (module == "torch._utils") {
    if (name == "_rebuild_tensor_v2") return tag = tag_of(Allowed::RebuildTensorV2), true;
    if (name == "_rebuild_parameter") return tag = tag_of(Allowed::RebuildParameter), true;
    if (name == "_rebuild_parameter_with_state") return tag = tag_of(Allowed::RebuildParameterWithState), true;
  } else if (module == "collections") {
    if (name == "OrderedDict") return tag = tag_of(Allowed::OrderedDict), true;
  } else if (module == "torch") {
    if (name == "device") return tag = tag_of(Allowed::Device), true;
    if (name == "Size") return tag = tag_of(Allowed::Size), true;
    if (pth_dtype_from_storage_class(name, d)) return tag = tag_of(Allowed::StorageClass, d), true;
    if (pth_dtype_from_torch_name(name, d)) return tag = tag_of(Allowed::Dtype, d), true;
  }
  return false;
}

[[noreturn]] void refuse(uint64_t offset, const std::string& message) {
  fail(ErrorCode::Refused, offset, "refused: " + message);
}

int64_t int_arg(const std::vector<PyValue>& args, size_t i, const char* what, uint64_t offset) {
  if (args[i].kind != PyKind::Int)
    fail(ErrorCode::BadFormat, offset, std::string("_rebuild_tensor_v2: ") + what + " is a " +
                                           py_kind_name(args[i].kind) + ", expected an int");
  return args[i].i;
}

std::vector<int64_t> int_tuple(const PickleHeap& heap, PyValue v, const char* what, uint64_t offset) {
  if (v.kind != PyKind::Tuple)
    fail(ErrorCode::BadFormat, offset, std::string("_rebuild_tensor_v2: ") + what + " is a " + py_kind_name(v.kind) +
                                           ", expected a tuple of ints");
  const auto& items = heap.at(v).items;
  if (items.size() > limits::kMaxTensorDims)
    fail(ErrorCode::Unsupported, offset, "tensor with " + std::to_string(items.size()) + " dimensions (limit " +
                                             std::to_string(limits::kMaxTensorDims) + ")");
  std::vector<int64_t> out;
  for (PyValue x : items) {
    if (x.kind != PyKind::Int || x.i < 0)
      fail(ErrorCode::BadFormat, offset, std::string("_rebuild_tensor_v2: ") + what + " holds a " +
                                             (x.kind == PyKind::Int ? "negative int" : py_kind_name(x.kind)));
    out.push_back(x.i);
  }
  return out;
}

}  // namespace

PyValue PthUnpickler::global(PickleHeap& heap, const std::string& module, const std::string& name, uint64_t offset) {
  uint32_t tag;
  if (!find_allowed(module, name, tag)) {
    // STACK_GLOBAL's names are strings of any length: shown cut short.
    auto shown = [](const std::string& s) { return s.size() > 128 ? s.substr(0, 128) + "..." : s; };
    refuse(offset, "global " + shown(module) + "." + shown(name) + " is not one a tensor checkpoint needs (code is never run)");
  }
  return heap.make(PyKind::Global, offset, module + "." + name, tag);
}

PyValue PthUnpickler::call(PickleHeap& heap, PyValue callable, PyValue args_tuple, bool newobj, uint64_t offset) {
  const char* op = newobj ? "NEWOBJ" : "REDUCE";
  if (callable.kind != PyKind::Global) refuse(offset, std::string(op) + " calls a " + py_kind_name(callable.kind));
  const PyObject& g = heap.at(callable);
  // A copy (heap.make may move the heap), of the few arguments these take.
  if (heap.at(args_tuple).items.size() > 7)
    fail(ErrorCode::BadFormat, offset, g.text + " called with " + std::to_string(heap.at(args_tuple).items.size()) + " arguments");
  const std::vector<PyValue> args = heap.at(args_tuple).items;
  auto want_args = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi)
      fail(ErrorCode::BadFormat, offset, g.text + " called with " + std::to_string(args.size()) + " arguments");
  };
  switch (allowed_of(g.tag)) {
    case Allowed::OrderedDict:
      want_args(0, 0);
      return heap.make(PyKind::Dict, offset);
    case Allowed::RebuildTensorV2:
      if (newobj) break;
      return rebuild_tensor(heap, args, offset);
    case Allowed::RebuildParameter:
    case Allowed::RebuildParameterWithState:
      if (newobj) break;
      want_args(3, 4);
      if (args[0].kind != PyKind::Tensor)
        fail(ErrorCode::BadFormat, offset, g.text + ": data is a " + std::string(py_kind_name(args[0].kind)) + ", not a tensor");
      return args[0];
    case Allowed::Device:
      want_args(1, 2);
      return heap.make(PyKind::Opaque, offset, g.text);
    case Allowed::Size:
      want_args(1, 1);
      if (args[0].kind != PyKind::Tuple) fail(ErrorCode::BadFormat, offset, "torch.Size of a non-tuple");
      return args[0];
    case Allowed::StorageClass:
    case Allowed::Dtype:
      break;
  }
  refuse(offset, std::string(op) + " on " + g.text + " (only tensor rebuilding and OrderedDict are called)");
}

PyValue PthUnpickler::rebuild_tensor(PickleHeap& heap, const std::vector<PyValue>& args, uint64_t offset) {
  // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  if (args.size() < 6 || args.size() > 7)
    fail(ErrorCode::BadFormat, offset, "_rebuild_tensor_v2 called with " + std::to_string(args.size()) + " arguments (expected 6 or 7)");
  if (args[0].kind != PyKind::Storage)
    fail(ErrorCode::BadFormat, offset, "_rebuild_tensor_v2: first argument is a " + std::string(py_kind_name(args[0].kind)) +
                                           ", expected a storage");
  const View& view = views_[heap.at(args[0]).tag];
  int64_t storage_offset = int_arg(args, 1, "storage offset", offset);
  if (storage_offset < 0) fail(ErrorCode::BadFormat, offset, "_rebuild_tensor_v2: negative storage offset");
  PthTensorRef t;
  t.storage = view.storage;
  t.dtype = storages_[view.storage].dtype;
  t.storage_offset = checked_add(view.offset, static_cast<uint64_t>(storage_offset), offset, "a tensor's storage offset");
  t.shape = int_tuple(heap, args[2], "size", offset);
  t.stride = int_tuple(heap, args[3], "stride", offset);
  if (t.shape.size() != t.stride.size())
    fail(ErrorCode::BadFormat, offset, "_rebuild_tensor_v2: " + std::to_string(t.shape.size()) + " sizes but " +
                                           std::to_string(t.stride.size()) + " strides");
  // The element count and the byte size must fit in an int64 (zero strides
  // could make a huge tensor of a small storage); the last element must lie
  // inside the storage, and an empty tensor may start at most at its end.
  const PthStorageRef& storage = storages_[view.storage];
  bool empty = false;
  for (int64_t d : t.shape) empty = empty || d == 0;
  if (empty) {
    if (t.storage_offset > storage.numel)
      fail(ErrorCode::BadFormat, offset, "empty tensor at element " + std::to_string(t.storage_offset) + " of storage '" +
                                             storage.key + "', which has " + std::to_string(storage.numel) + " elements");
  } else {
    uint64_t count = 1, last = t.storage_offset;
    for (size_t i = 0; i < t.shape.size(); ++i) {
      const uint64_t d = static_cast<uint64_t>(t.shape[i]), stride = static_cast<uint64_t>(t.stride[i]);
      count = checked_mul(count, d, offset, "the element count of a tensor");
      last = checked_add(last, checked_mul(d - 1, stride, offset, "a tensor's extent"), offset, "a tensor's last element");
    }
    if (count > INT64_MAX / pth_dtype_size(t.dtype))
      fail(ErrorCode::TooLarge, offset, "tensor of " + std::to_string(count) + " " + pth_dtype_name(t.dtype) +
                                            " elements: more than 2^63 bytes");
    if (last >= storage.numel)
      fail(ErrorCode::BadFormat, offset, "tensor reaches element " + std::to_string(last) + " of storage '" + storage.key +
                                             "', which has " + std::to_string(storage.numel) + " elements");
  }
  PyValue v = heap.make(PyKind::Tensor, offset, {}, static_cast<uint32_t>(tensors_.size()));
  tensors_.push_back(std::move(t));
  return v;
}

PyValue PthUnpickler::persistent_load(PickleHeap& heap, PyValue pid, uint64_t offset) {
  if (pid.kind != PyKind::Tuple) refuse(offset, std::string("persistent id is a ") + py_kind_name(pid.kind) + ", not a tuple");
  // The same id object (a memo reference) is the same storage view: shared,
  // not looked up again by its key's bytes.
  if (auto it = loaded_.find(pid.ref); it != loaded_.end()) return it->second;
  const auto& f = heap.at(pid).items;
  if (f.empty() || f[0].kind != PyKind::Str || heap.at(f[0]).text != "storage")
    refuse(offset, "persistent id that is not a ('storage', ...) tuple");
  if (f.size() != 5 && f.size() != 6)
    fail(ErrorCode::BadFormat, offset, "storage persistent id with " + std::to_string(f.size()) + " fields (expected 5 or 6)");
  if (f[1].kind != PyKind::Global || allowed_of(heap.at(f[1]).tag) != Allowed::StorageClass)
    fail(ErrorCode::BadFormat, offset, "storage persistent id: field 1 is not a torch storage class");
  if (f[2].kind != PyKind::Str) fail(ErrorCode::BadFormat, offset, "storage persistent id: key is not a string");
  if (f[4].kind != PyKind::Int || f[4].i < 0)
    fail(ErrorCode::BadFormat, offset, "storage persistent id: element count is not a non-negative int");
  PthDtype dtype = dtype_of(heap.at(f[1]).tag);
  const std::string& key = heap.at(f[2]).text;
  if (key.size() > limits::kMaxTensorNameBytes)
    fail(ErrorCode::TooLarge, offset, "storage key of " + std::to_string(key.size()) + " bytes (limit " +
                                          std::to_string(limits::kMaxTensorNameBytes) + ")");
  uint64_t numel = static_cast<uint64_t>(f[4].i);

  // By the key's string object first: a memo reference to it is not hashed again.
  uint32_t index;
  if (auto by_ref = storage_by_key_ref_.find(f[2].ref); by_ref != storage_by_key_ref_.end()) {
    index = by_ref->second;
  } else if (auto it = storage_by_key_.find(key); it != storage_by_key_.end()) {
    index = it->second;
  } else {
    index = static_cast<uint32_t>(storages_.size());
    storages_.push_back({key, dtype, numel});
    storage_by_key_.emplace(key, index);
  }
  storage_by_key_ref_.emplace(f[2].ref, index);
  if (storages_[index].dtype != dtype || storages_[index].numel != numel)
    fail(ErrorCode::BadFormat, offset, "storage '" + key + "' is named twice with different types or sizes");

  View view{index, 0};
  // Legacy files: (view_key, offset, size) makes this a slice of the storage.
  if (f.size() == 6 && f[5].kind != PyKind::None) {
    if (f[5].kind != PyKind::Tuple || heap.at(f[5]).items.size() != 3)
      fail(ErrorCode::BadFormat, offset, "storage view metadata is not a (key, offset, size) tuple");
    const auto& vm = heap.at(f[5]).items;
    if (vm[1].kind != PyKind::Int || vm[2].kind != PyKind::Int || vm[1].i < 0 || vm[2].i < 0 ||
        checked_add(static_cast<uint64_t>(vm[1].i), static_cast<uint64_t>(vm[2].i), offset, "a storage view's end") > numel)
      fail(ErrorCode::BadFormat, offset, "storage view lies outside storage '" + key + "'");
    view.offset = static_cast<uint64_t>(vm[1].i);
  }
  PyValue v = heap.make(PyKind::Storage, offset, {}, static_cast<uint32_t>(views_.size()));
  views_.push_back(view);
  loaded_.emplace(pid.ref, v);
  return v;
}

void PthUnpickler::build(PickleHeap& heap, PyValue obj, PyValue state, uint64_t offset) {
  // Tensors, parameters and OrderedDicts carry state (requires_grad, hooks,
  // _metadata) that a weight reader does not need: nothing is set or called.
  if (obj.kind == PyKind::Global) refuse(offset, "BUILD on " + heap.at(obj).text);
}

int64_t PthUnpickler::find_storage(const std::string& key) const {
  auto it = storage_by_key_.find(key);
  return it == storage_by_key_.end() ? -1 : static_cast<int64_t>(it->second);
}

}  // namespace wasmlm
