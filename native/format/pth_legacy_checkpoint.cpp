#include "format/pth_legacy_checkpoint.h"

#include <iterator>

#include "core/error.h"
#include "format/limits.h"
#include "format/pickle_machine.h"
#include "format/pth_read_at.h"
#include "format/pth_tensor_names.h"
#include "format/pth_unpickler.h"

namespace wasmlm {

namespace {

// The magic number 0x1950a86a20f9469cfc6c, little-endian, as LONG1 stores it.
constexpr uint8_t kMagic[] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
constexpr int64_t kProtocolVersion = 1001;

const PyValue* dict_get(const PickleHeap& heap, PyValue dict, const std::string& key) {
  if (dict.kind != PyKind::Dict) return nullptr;
  const auto& items = heap.at(dict).items;
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    if (items[i].kind == PyKind::Str && heap.at(items[i]).text == key) return &items[i + 1];
  return nullptr;
}

}  // namespace

bool looks_like_legacy_pth(const uint8_t* head, size_t n) {
  // PROTO 2..5 (torch.save's pickle_protocol); the magic number is checked once unpickled.
  return n >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
}

PthCheckpoint read_pth_legacy(uint64_t file_size, const ReadAt& read_at) {
  ReadAtStream in(read_at, 0, file_size);
  PickleHeap heap;
  PthUnpickler unpickler;

  PyValue magic = run_pickle(in, heap, unpickler, "magic number pickle");
  if (magic.kind != PyKind::BigInt || heap.at(magic).text != std::string(std::begin(kMagic), std::end(kMagic)))
    fail(ErrorCode::BadFormat, 0, "legacy torch file without its magic number");
  uint64_t at = in.pos();
  PyValue protocol = run_pickle(in, heap, unpickler, "protocol pickle");
  if (protocol.kind != PyKind::Int || protocol.i != kProtocolVersion)
    fail(ErrorCode::Unsupported, at, "legacy torch protocol version " +
                                         (protocol.kind == PyKind::Int ? std::to_string(protocol.i) : "?") + " (expected 1001)");
  at = in.pos();
  PyValue sys_info = run_pickle(in, heap, unpickler, "sys_info pickle");
  const PyValue* little = dict_get(heap, sys_info, "little_endian");
  if (!little || little->kind != PyKind::Bool)
    fail(ErrorCode::BadFormat, at, "legacy sys_info has no little_endian flag");
  if (!little->i) fail(ErrorCode::Unsupported, at, "checkpoint written on a big-endian machine");

  uint64_t object_at = in.pos();
  PyValue root = run_pickle(in, heap, unpickler, "object pickle");
  at = in.pos();
  PyValue keys = run_pickle(in, heap, unpickler, "storage keys pickle");
  if (keys.kind != PyKind::List) fail(ErrorCode::BadFormat, at, "legacy storage keys pickle is not a list");

  PthCheckpoint ck;
  ck.format = PthFormat::Legacy;
  ck.pickle_protocol = pickle_protocol_at(read_at, object_at);
  ck.storages.resize(unpickler.storages().size());
  std::vector<bool> seen(ck.storages.size());
  uint64_t pos = in.pos();
  for (PyValue k : std::vector<PyValue>(heap.at(keys).items)) {
    if (k.kind != PyKind::Str) fail(ErrorCode::BadFormat, at, "legacy storage key is not a string");
    const std::string& key = heap.at(k).text;
    int64_t index = unpickler.find_storage(key);
    if (index < 0) fail(ErrorCode::BadFormat, at, "storage '" + key + "' is listed but no tensor uses it");
    if (seen[index]) fail(ErrorCode::BadFormat, at, "storage '" + key + "' is listed twice");
    seen[index] = true;
    const PthStorageRef& s = unpickler.storages()[index];
    uint8_t b[8];
    read_exact(read_at, pos, b, 8, "legacy storage element count");
    uint64_t count = 0;
    for (int i = 7; i >= 0; --i) count = count << 8 | b[i];
    if (count != s.numel)
      fail(ErrorCode::BadFormat, pos, "storage '" + key + "' holds " + std::to_string(count) + " elements, the pickle says " +
                                          std::to_string(s.numel));
    uint64_t esize = pth_dtype_size(s.dtype);
    pos += 8;
    if (count > (file_size - pos) / esize)
      fail(ErrorCode::Truncated, pos, "storage '" + key + "' of " + std::to_string(count) + " " + pth_dtype_name(s.dtype) +
                                          " elements runs past the end of the file");
    ck.storages[index] = {key, s.dtype, s.numel, pos, count * esize};
    pos += count * esize;
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) fail(ErrorCode::BadFormat, at, "storage '" + unpickler.storages()[i].key + "' is missing from the keys list");
  ck.tensors = collect_pth_tensors(heap, root, unpickler, object_at);
  return ck;
}

}  // namespace wasmlm
