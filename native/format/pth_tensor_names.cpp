#include "format/pth_tensor_names.h"

#include <algorithm>
#include <deque>
#include <string_view>

#include "core/error.h"
#include "format/limits.h"

namespace wasmlm {

namespace {

// Walks the object keeping the path to the current value as views of its
// keys: a name is built only for a tensor, after its length is checked, so
// long keys (or one long key shared by many entries) cost nothing on the way.
class Collector {
 public:
  Collector(const PickleHeap& heap, const PthUnpickler& unpickler, uint64_t offset)
      : heap_(heap), unpickler_(unpickler), offset_(offset) {}

  void walk(PyValue v, uint32_t depth) {
    if (++visited_ > limits::kMaxPickleWalk)
      fail(ErrorCode::TooLarge, offset_, "checkpoint object has more than " + std::to_string(limits::kMaxPickleWalk) +
                                             " values to visit (shared containers nested too often?)");
    if (depth > limits::kMaxPickleNesting)
      fail(ErrorCode::TooLarge, offset_, "checkpoint object nests containers more than " +
                                             std::to_string(limits::kMaxPickleNesting) + " deep (at '" +
                                             shown(path_text(65)) + "')");
    switch (v.kind) {
      case PyKind::Tensor: add(heap_.at(v).tag); return;
      case PyKind::Dict: {
        const auto& items = heap_.at(v).items;
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
          if (!may_hold_tensors(items[i + 1])) continue;
          std::string_view key;
          if (items[i].kind == PyKind::Str) {
            key = heap_.at(items[i]).text;
          } else if (items[i].kind == PyKind::Int) {
            number_keys_.push_back(std::to_string(items[i].i));
            key = number_keys_.back();
          } else {
            continue;  // dict keys that cannot name a tensor
          }
          enter(key, items[i + 1], depth);
          if (items[i].kind == PyKind::Int) number_keys_.pop_back();
        }
        return;
      }
      case PyKind::List:
      case PyKind::Tuple: {
        const auto& items = heap_.at(v).items;
        for (size_t i = 0; i < items.size(); ++i) {
          if (!may_hold_tensors(items[i])) continue;
          number_keys_.push_back(std::to_string(i));
          enter(number_keys_.back(), items[i], depth);
          number_keys_.pop_back();
        }
        return;
      }
      default: return;
    }
  }

  std::vector<PthTensor> take() {
    // Duplicates last, on the sorted names (no second copy of them).
    std::vector<const PthTensor*> sorted;
    for (const PthTensor& t : out_) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(), [](const PthTensor* a, const PthTensor* b) { return a->name < b->name; });
    for (size_t i = 1; i < sorted.size(); ++i)
      if (sorted[i]->name == sorted[i - 1]->name)
        fail(ErrorCode::BadFormat, offset_, "two tensors are named '" + sorted[i]->name + "'");
    return std::move(out_);
  }

 private:
  static bool may_hold_tensors(PyValue v) {
    return v.kind == PyKind::Tensor || v.kind == PyKind::Dict || v.kind == PyKind::List || v.kind == PyKind::Tuple;
  }

  void enter(std::string_view key, PyValue v, uint32_t depth) {
    path_.push_back(key);
    path_bytes_ += key.size() + (path_.size() > 1);
    walk(v, depth + 1);
    path_bytes_ -= key.size() + (path_.size() > 1);
    path_.pop_back();
  }

  std::string path_text(size_t limit = ~size_t(0)) const {
    std::string s;
    for (std::string_view k : path_) {
      if (s.size() >= limit) break;
      if (!s.empty()) s += '.';
      s.append(k.substr(0, limit - std::min(limit, s.size())));
    }
    return s;
  }
  static std::string shown(std::string s) { return s.size() > 64 ? s.substr(0, 64) + "..." : s; }

  void add(uint32_t tag) {
    if (path_bytes_ > limits::kMaxTensorNameBytes)
      fail(ErrorCode::TooLarge, offset_, "tensor name of " + std::to_string(path_bytes_) + " bytes (limit " +
                                             std::to_string(limits::kMaxTensorNameBytes) + "): '" +
                                             shown(path_text(65)) + "'");
    names_bytes_ += path_bytes_;
    if (names_bytes_ > limits::kMaxTensorNamesBytes || out_.size() >= limits::kMaxTensors)
      fail(ErrorCode::TooLarge, offset_, "checkpoint names more than " + std::to_string(out_.size()) + " tensors of " +
                                             std::to_string(names_bytes_) + " name bytes (limits " +
                                             std::to_string(limits::kMaxTensors) + " and " +
                                             std::to_string(limits::kMaxTensorNamesBytes) + ")");
    const PthTensorRef& r = unpickler_.tensors()[tag];
    PthTensor t;
    t.name = path_text();
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
  std::vector<std::string_view> path_;
  std::deque<std::string> number_keys_;  // the text of int keys and list indices on the path (stable)
  uint64_t path_bytes_ = 0;               // of the name path_ spells, dots included
  uint64_t names_bytes_ = 0;
  std::vector<PthTensor> out_;
};

}  // namespace

std::vector<PthTensor> collect_pth_tensors(const PickleHeap& heap, PyValue root, const PthUnpickler& unpickler,
                                           uint64_t offset) {
  Collector c(heap, unpickler, offset);
  c.walk(root, 0);
  return c.take();
}

}  // namespace wasmlm
