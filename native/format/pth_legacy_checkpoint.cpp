#include "format/pth_legacy_checkpoint.h"

#include <iterator>

#include "core/error.h"
#include "format/pth_read_at.h"
#include "format/pth_tensor_names.h"

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

PthLegacyReader::PthLegacyReader(uint64_t file_size, const ReadAt& read_at)
    : file_size_(file_size), read_at_(read_at), in_(read_at, 0, file_size) {}

void PthLegacyReader::check_pickle(size_t i) const {
  const PyValue v = pickles_[i];
  const uint64_t at = starts_[i];
  switch (i) {
    case 0:
      if (v.kind != PyKind::BigInt || heap_.at(v).text != std::string(std::begin(kMagic), std::end(kMagic)))
        fail(ErrorCode::BadFormat, 0, "legacy torch file without its magic number");
      return;
    case 1:
      if (v.kind != PyKind::Int || v.i != kProtocolVersion)
        fail(ErrorCode::Unsupported, at, "legacy torch protocol version " +
                                             (v.kind == PyKind::Int ? std::to_string(v.i) : "?") + " (expected 1001)");
      return;
    case 2: {
      const PyValue* little = dict_get(heap_, v, "little_endian");
      if (!little || little->kind != PyKind::Bool) fail(ErrorCode::BadFormat, at, "legacy sys_info has no little_endian flag");
      if (!little->i) fail(ErrorCode::Unsupported, at, "checkpoint written on a big-endian machine");
      return;
    }
    case 4:
      if (v.kind != PyKind::List) fail(ErrorCode::BadFormat, at, "legacy storage keys pickle is not a list");
      return;
  }
}

// One storage record: its element count, then its bytes.
void PthLegacyReader::read_storage(PyValue k) {
  const uint64_t at = starts_[4];
  if (k.kind != PyKind::Str) fail(ErrorCode::BadFormat, at, "legacy storage key is not a string");
  const std::string& key = heap_.at(k).text;
  int64_t index = unpickler_.find_storage(key);
  if (index < 0) fail(ErrorCode::BadFormat, at, "storage '" + key + "' is listed but no tensor uses it");
  if (seen_[index]) fail(ErrorCode::BadFormat, at, "storage '" + key + "' is listed twice");
  const PthStorageRef& s = unpickler_.storages()[index];
  uint8_t b[8];
  read_exact(read_at_, pos_, b, 8, "legacy storage element count");
  uint64_t count = 0;
  for (int i = 7; i >= 0; --i) count = count << 8 | b[i];
  if (count != s.numel)
    fail(ErrorCode::BadFormat, pos_, "storage '" + key + "' holds " + std::to_string(count) + " elements, the pickle says " +
                                         std::to_string(s.numel));
  const uint64_t esize = pth_dtype_size(s.dtype), data = pos_ + 8;
  if (data > file_size_ || count > (file_size_ - data) / esize)
    fail(ErrorCode::Truncated, data, "storage '" + key + "' of " + std::to_string(count) + " " + pth_dtype_name(s.dtype) +
                                         " elements runs past the end of the file");
  seen_[index] = true;
  ck_.storages[index] = {key, s.dtype, s.numel, data, count * esize};
  pos_ = data + count * esize;
}

PthCheckpoint PthLegacyReader::read() {
  static const char* const kPickles[] = {"magic number pickle", "protocol pickle", "sys_info pickle", "object pickle",
                                         "storage keys pickle"};
  while (pickles_.size() < std::size(kPickles)) {
    if (!machine_) {
      starts_.push_back(in_.pos());
      machine_ = std::make_unique<PickleMachine>(in_, heap_, unpickler_, kPickles[pickles_.size()]);
    }
    pickles_.push_back(machine_->run());
    ops_done_ += machine_->ops();
    machine_.reset();
    check_pickle(pickles_.size() - 1);
    if (pickles_.size() == std::size(kPickles)) {
      ck_.format = PthFormat::Legacy;
      ck_.storages.resize(unpickler_.storages().size());
      seen_.assign(ck_.storages.size(), false);
      pos_ = in_.pos();
    }
  }
  ck_.pickle_protocol = pickle_protocol_at(read_at_, starts_[3]);
  const std::vector<PyValue>& keys = heap_.at(pickles_[4]).items;
  for (; keys_done_ < keys.size(); ++keys_done_) read_storage(keys[keys_done_]);
  for (size_t i = 0; i < seen_.size(); ++i)
    if (!seen_[i])
      fail(ErrorCode::BadFormat, starts_[4], "storage '" + unpickler_.storages()[i].key + "' is missing from the keys list");
  ck_.tensors = collect_pth_tensors(heap_, pickles_[3], unpickler_, starts_[3]);
  return std::move(ck_);
}

}  // namespace wasmlm
