#include "format/pth_zip_checkpoint.h"

#include "core/error.h"
#include "format/limits.h"
#include "format/pth_read_at.h"
#include "format/pth_tensor_names.h"

namespace wasmlm {

namespace {

// torch writes every entry under one folder named after the file; data.pkl
// is the first entry.
const ZipEntry& find_data_pkl(const ZipArchive& zip) {
  for (const ZipEntry& e : zip.entries()) {
    size_t slash = e.name.find('/');
    if (slash != std::string::npos && e.name.compare(slash, std::string::npos, "/data.pkl") == 0) return e;
  }
  fail(ErrorCode::BadFormat, kNoOffset, "zip archive has no <archive>/data.pkl entry: not a torch.save checkpoint");
}

void check_byteorder(const ZipArchive& zip, const std::string& prefix) {
  const ZipEntry* e = zip.find(prefix + "byteorder");
  if (!e) return;  // older writers omit it: little-endian
  ZipSpan span = zip.locate(*e);
  if (span.size > 16) fail(ErrorCode::BadFormat, span.offset, "byteorder entry of " + std::to_string(span.size) + " bytes");
  std::vector<uint8_t> b = read_exact(zip.reader(), span.offset, static_cast<size_t>(span.size), "byteorder entry");
  std::string order(b.begin(), b.end());
  if (order != "little")
    fail(ErrorCode::Unsupported, span.offset, "checkpoint written with byte order '" + order + "' (only little-endian is read)");
}

}  // namespace

PthZipReader::PthZipReader(uint64_t file_size, const ReadAt& read_at) : file_size_(file_size), read_at_(read_at) {}

void PthZipReader::start_pickle() {
  const ZipEntry& pkl = find_data_pkl(*zip_);
  prefix_ = pkl.name.substr(0, pkl.name.size() - std::string("data.pkl").size());
  check_byteorder(*zip_, prefix_);
  ZipSpan span = zip_->locate(pkl);
  if (span.size > limits::kMaxPickleBytes)
    fail(ErrorCode::TooLarge, span.offset, pkl.name + " of " + std::to_string(span.size) + " bytes (limit " +
                                               std::to_string(limits::kMaxPickleBytes) + ")");
  ck_.format = PthFormat::Zip;
  ck_.pickle_protocol = pickle_protocol_at(read_at_, span.offset);
  pkl_ = span;
  in_ = std::make_unique<ReadAtStream>(read_at_, span.offset, span.offset + span.size);
  machine_ = std::make_unique<PickleMachine>(*in_, heap_, unpickler_, "data.pkl");
}

PthCheckpoint PthZipReader::read() {
  if (!zip_) zip_.emplace(file_size_, read_at_);
  if (!machine_) start_pickle();
  if (!root_) root_ = machine_->run();
  const auto& refs = unpickler_.storages();
  while (ck_.storages.size() < refs.size()) {
    const PthStorageRef& s = refs[ck_.storages.size()];
    std::string name = prefix_ + "data/" + s.key;
    const ZipEntry* e = zip_->find(name);
    if (!e) fail(ErrorCode::BadFormat, pkl_.offset, "data.pkl names storage '" + s.key + "' but the archive has no entry " + name);
    ZipSpan data = zip_->locate(*e);
    uint32_t esize = pth_dtype_size(s.dtype);
    if (s.numel > data.size / esize)
      fail(ErrorCode::BadFormat, data.offset, "entry " + name + " holds " + std::to_string(data.size) + " bytes, less than " +
                                                  std::to_string(s.numel) + " " + pth_dtype_name(s.dtype) + " elements");
    ck_.storages.push_back({s.key, s.dtype, s.numel, data.offset, s.numel * esize});
  }
  ck_.tensors = collect_pth_tensors(heap_, *root_, unpickler_, pkl_.offset);
  return std::move(ck_);
}

}  // namespace wasmlm
