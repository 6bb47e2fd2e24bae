#include "format/pth_tensor_names.h"

#include <unordered_set>

#include "core/error.h"
#include "format/limits.h"

namespace wasmlm {

namespace {

class Collector {
 public:
  Collector(const PickleHeap& heap, const PthUnpickler& unpickler, uint64_t offset)
      : heap_(heap), unpickler_(unpickler), offset_(offset) {}

  void walk(PyValue v, const std::string& name, uint32_t depth) {
    if (++visited_ > limits::kMaxPickleWalk)
      fail(ErrorCode::TooLarge, offset_, "checkpoint object has more than " + std::to_string(limits::kMaxPickleWalk) +
                                             " values to visit (shared containers nested too often?)");
    if (depth > limits::kMaxPickleNesting)
      fail(ErrorCode::TooLarge, offset_, "checkpoint object nests containers more than " +
                                             std::to_string(limits::kMaxPickleNesting) + " deep (at '" + name + "')");
    switch (v.kind) {
      case PyKind::Tensor: add(heap_.at(v).tag, name); return;
      case PyKind::Dict: {
        const auto& items = heap_.at(v).items;
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
          std::string key;
          if (!key_text(items[i], key)) continue;
          walk(items[i + 1], name.empty() ? key : name + "." + key, depth + 1);
        }
        return;
      }
      case PyKind::List:
      case PyKind::Tuple: {
        const auto& items = heap_.at(v).items;
        for (size_t i = 0; i < items.size(); ++i)
          walk(items[i], name.empty() ? std::to_string(i) : name + "." + std::to_string(i), depth + 1);
        return;
      }
      default: return;
    }
  }

  std::vector<PthTensor> take() { return std::move(out_); }

 private:
  // Dict keys that can name a tensor: strings and ints. Others are skipped.
  bool key_text(PyValue k, std::string& out) const {
    if (k.kind == PyKind::Str) return out = heap_.at(k).text, true;
    if (k.kind == PyKind::Int) return out = std::to_string(k.i), true;
    return false;
  }

  void add(uint32_t tag, const std::string& name) {
    if (name.size() > limits::kMaxTensorNameBytes)
      fail(ErrorCode::TooLarge, offset_, "tensor name of " + std::to_string(name.size()) + " bytes");
    if (!names_.insert(name).second) fail(ErrorCode::BadFormat, offset_, "two tensors are named '" + name + "'");
    const PthTensorRef& r = unpickler_.tensors()[tag];
    PthTensor t;
    t.name = name;
    t.dtype = r.dtype;
    t.shape = r.shape;
    t.stride = r.stride;
    t.storage_offset = r.storage_offset;
    t.storage = r.storage;
    out_.push_back(std::move(t));
  }

  const PickleHeap& heap_;
  const PthUnpickler& unpickler_;
  uint64_t offset_;
  uint64_t visited_ = 0;
  std::unordered_set<std::string> names_;
  std::vector<PthTensor> out_;
};

}  // namespace

std::vector<PthTensor> collect_pth_tensors(const PickleHeap& heap, PyValue root, const PthUnpickler& unpickler,
                                           uint64_t offset) {
  Collector c(heap, unpickler, offset);
  c.walk(root, "", 0);
  return c.take();
}

}  // namespace wasmlm
