// A checkpoint read from ranges handed in on demand (as web/src reads a File
// or a URL) is parsed once: each range resumes the reader where it stopped,
// so a large data.pkl costs one pass, not one pass per range.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/pth_range_reader.h"
#include "format/pth_tensor_values.h"
#include "pth_test_pickle.h"
#include "pth_test_zip.h"
#include "testdata.h"

namespace wasmlm_test {
namespace {

struct RangeRead {
  wasmlm::PthCheckpoint checkpoint;
  int ranges = 0;
  uint64_t pickle_ops = 0;
};

// Hands in what the reader asks for, at least `min_read` bytes at a time
// (web/src/parse/read-pth-directory.js reads at least 64 KB).
RangeRead read_by_ranges(const std::vector<uint8_t>& bytes, uint64_t min_read) {
  wasmlm::PthRangeReader reader(bytes.size());
  RangeRead out;
  for (;;) {
    if (auto c = reader.read()) {
      out.checkpoint = std::move(*c);
      break;
    }
    const wasmlm::NeedRange need = reader.need();
    const uint64_t n = std::min<uint64_t>(bytes.size() - need.offset, std::max(need.length, min_read));
    reader.add(need.offset, std::vector<uint8_t>(bytes.begin() + need.offset, bytes.begin() + need.offset + n));
    ++out.ranges;
  }
  out.pickle_ops = reader.pickle_ops();
  return out;
}

// testdata/hostile/make_slow_ranges.py's checkpoint: data.pkl is one 2x2
// tensor after n (NONE, POP) pairs.
std::vector<uint8_t> padded_checkpoint(size_t n) {
  std::string pkl = tensor_pickle(4, 2, 2);
  std::string pad;
  for (size_t i = 0; i < n; ++i) pad += "N0";
  pkl.insert(kProto2.size(), pad);
  return write_test_zip({{"archive/data.pkl", pkl}, {"archive/byteorder", "little"}, {"archive/data/0", floats(4)}}).bytes;
}

TEST(PthRangeRead, EachPickleOpcodeRunsOnceHoweverManyRangesTheFileComesIn) {
  const size_t n = 400000;  // an 800 KB data.pkl
  const RangeRead small = read_by_ranges(padded_checkpoint(0), 64 << 10);
  // PROTO } ( X c ( ( X c X X K t Q K K K TUPLE2 K K TUPLE2 NEWFALSE c ) R t R u STOP
  EXPECT_EQ(small.pickle_ops, 29u);

  const std::vector<uint8_t> bytes = padded_checkpoint(n);
  const RangeRead padded = read_by_ranges(bytes, 64 << 10);
  EXPECT_GE(padded.ranges, 13);
  EXPECT_EQ(padded.pickle_ops, 29u + 2 * n);  // not ranges x what came before each
  ASSERT_EQ(padded.checkpoint.tensors.size(), 1u);
  const wasmlm::PthTensor& w = padded.checkpoint.tensors[0];
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(wasmlm::read_pth_tensor_as_float(padded.checkpoint, w, wasmlm::read_from_memory(bytes.data(), bytes.size())),
            (std::vector<float>{-1.f, -0.5f, 0.f, 0.5f}));
}

// Ranges of exactly what is asked stop the zip directory, the pickles and
// the storage headers in many places: every real checkpoint still reads as
// from whole bytes, with the same opcode count.
TEST(PthRangeRead, EveryRealCheckpointReadByRangesEqualsTheWholeFile) {
  WASMLM_REQUIRE_TESTDATA();
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testdata_dir() + "/pytorch")) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || (entry.path().extension() != ".pt" && entry.path().extension() != ".pth")) continue;
    if (path.find("broken") != std::string::npos) continue;
    SCOPED_TRACE(path);
    const std::vector<uint8_t> bytes = read_file(path);
    wasmlm::PthCheckpointReader whole(bytes.size(), wasmlm::read_from_memory(bytes.data(), bytes.size()));
    const wasmlm::PthCheckpoint expected = whole.read();
    const RangeRead got = read_by_ranges(bytes, 1);
    EXPECT_EQ(got.pickle_ops, whole.pickle_ops());
    EXPECT_EQ(got.checkpoint.format, expected.format);
    EXPECT_EQ(got.checkpoint.pickle_protocol, expected.pickle_protocol);
    ASSERT_EQ(got.checkpoint.storages.size(), expected.storages.size());
    for (size_t i = 0; i < expected.storages.size(); ++i) {
      EXPECT_EQ(got.checkpoint.storages[i].key, expected.storages[i].key);
      EXPECT_EQ(got.checkpoint.storages[i].offset, expected.storages[i].offset);
      EXPECT_EQ(got.checkpoint.storages[i].nbytes, expected.storages[i].nbytes);
    }
    ASSERT_EQ(got.checkpoint.tensors.size(), expected.tensors.size());
    for (size_t i = 0; i < expected.tensors.size(); ++i) {
      const wasmlm::PthTensor &a = got.checkpoint.tensors[i], &b = expected.tensors[i];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.shape, b.shape);
      EXPECT_EQ(a.stride, b.stride);
      EXPECT_EQ(a.storage, b.storage);
      EXPECT_EQ(a.storage_offset, b.storage_offset);
    }
    ++files;
  }
  EXPECT_GE(files, 40);
}

}  // namespace
}  // namespace wasmlm_test
