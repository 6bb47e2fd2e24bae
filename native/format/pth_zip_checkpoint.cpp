#include "format/pth_zip_checkpoint.h"

#include "core/error.h"
#include "format/limits.h"
#include "format/pickle_machine.h"
#include "format/pth_read_at.h"
#include "format/pth_tensor_names.h"
#include "format/pth_unpickler.h"
#include "format/zip_reader.h"

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

PthCheckpoint read_pth_zip(uint64_t file_size, const ReadAt& read_at) {
  ZipArchive zip(file_size, read_at);
  const ZipEntry& pkl = find_data_pkl(zip);
  std::string prefix = pkl.name.substr(0, pkl.name.size() - std::string("data.pkl").size());
  check_byteorder(zip, prefix);

  ZipSpan span = zip.locate(pkl);
  if (span.size > limits::kMaxPickleBytes)
    fail(ErrorCode::TooLarge, span.offset, pkl.name + " of " + std::to_string(span.size) + " bytes (limit " +
                                               std::to_string(limits::kMaxPickleBytes) + ")");
  ReadAtStream in(read_at, span.offset, span.offset + span.size);
  PickleHeap heap;
  PthUnpickler unpickler;
  PyValue root = run_pickle(in, heap, unpickler, "data.pkl");

  PthCheckpoint ck;
  ck.format = PthFormat::Zip;
  ck.pickle_protocol = pickle_protocol_at(read_at, span.offset);
  for (const PthStorageRef& s : unpickler.storages()) {
    std::string name = prefix + "data/" + s.key;
    const ZipEntry* e = zip.find(name);
    if (!e) fail(ErrorCode::BadFormat, span.offset, "data.pkl names storage '" + s.key + "' but the archive has no entry " + name);
    ZipSpan data = zip.locate(*e);
    uint32_t esize = pth_dtype_size(s.dtype);
    if (s.numel > data.size / esize)
      fail(ErrorCode::BadFormat, data.offset, "entry " + name + " holds " + std::to_string(data.size) + " bytes, less than " +
                                                  std::to_string(s.numel) + " " + pth_dtype_name(s.dtype) + " elements");
    ck.storages.push_back({s.key, s.dtype, s.numel, data.offset, s.numel * esize});
  }
  ck.tensors = collect_pth_tensors(heap, root, unpickler, span.offset);
  return ck;
}

}  // namespace wasmlm
