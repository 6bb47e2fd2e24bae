// Hostile and broken PyTorch checkpoints give typed errors, never code
// execution, crashes, hangs or unbounded allocation: each case is written
// here as raw pickle/zip bytes. Pickle errors carry the absolute offset of the
// offending opcode and name its offset inside data.pkl.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/limits.h"
#include "format/pickle_machine.h"
#include "format/pth_checkpoint.h"
#include "format/pth_read_at.h"
#include "format/pth_tensor_names.h"
#include "format/pth_tensor_values.h"
#include "format/pth_unpickler.h"
#include "pth_test_pickle.h"
#include "pth_test_zip.h"
#include "testdata.h"

namespace wasmlm_test {
namespace {

using wasmlm::ErrorCode;

std::optional<wasmlm::Error> unpickle_error(const std::string& pkl) {
  wasmlm::ReadAt r = wasmlm::read_from_memory(reinterpret_cast<const uint8_t*>(pkl.data()), pkl.size());
  wasmlm::ReadAtStream in(r, 0, pkl.size());
  wasmlm::PickleHeap heap;
  wasmlm::PthUnpickler unpickler;
  try {
    wasmlm::PyValue root = wasmlm::run_pickle(in, heap, unpickler, "data.pkl");
    wasmlm::collect_pth_tensors(heap, root, unpickler, 0);
  } catch (const wasmlm::Error& e) {
    return e;
  }
  return std::nullopt;
}

std::optional<wasmlm::Error> checkpoint_error(const std::vector<uint8_t>& bytes) {
  try {
    wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
  } catch (const wasmlm::Error& e) {
    return e;
  }
  return std::nullopt;
}

void expect_error(const std::optional<wasmlm::Error>& e, ErrorCode code, uint64_t offset, const std::string& needle) {
  ASSERT_TRUE(e.has_value()) << "expected " << wasmlm::error_code_name(code) << ", but it was read";
  EXPECT_EQ(e->code(), code) << e->what();
  EXPECT_EQ(e->offset(), offset) << e->what();
  EXPECT_NE(e->detail().find(needle), std::string::npos) << "'" << needle << "' not in: " << e->what();
}

// The pickle fails alone (offset inside it) and as data.pkl of an archive
// (offset in the file, message naming the offset inside data.pkl).
void expect_pickle_error(const std::string& pkl, ErrorCode code, uint64_t offset, const std::string& needle,
                         bool names_pickle_offset = true) {
  {
    SCOPED_TRACE("pickle alone");
    expect_error(unpickle_error(pkl), code, offset, needle);
  }
  SCOPED_TRACE("as archive/data.pkl");
  TestZip zip = write_test_zip({{"archive/data.pkl", pkl}});
  uint64_t data_at = zip.local_offsets[0] + 30 + std::strlen("archive/data.pkl") + 4;
  auto e = checkpoint_error(zip.bytes);
  expect_error(e, code, data_at + offset, needle);
  if (e && names_pickle_offset)
    EXPECT_NE(e->detail().find("data.pkl byte " + std::to_string(offset)), std::string::npos) << e->what();
}

// ------------------------------------------------------------ code execution ----

TEST(PickleHostile, OsSystemThroughGlobalAndReduceIsRefused) {
  expect_pickle_error(kProto2 + B("cos\nsystem\nq\x00") + str("ls") + "\x85R.", ErrorCode::Refused, 2, "os.system");
}

TEST(PickleHostile, BuiltinsEvalThroughStackGlobalIsRefused) {
  std::string body = std::string("\x8c\x08", 2) + "builtins" + "\x94" + std::string("\x8c\x04", 2) + "eval" + "\x94\x93" +
                     std::string("\x8c\x02", 2) + "1+" + "\x85R.";
  std::string frame = std::string("\x95", 1) + u32le(static_cast<uint32_t>(body.size())) + std::string(4, '\0');
  std::string pkl = std::string("\x80\x04", 2) + frame + body;
  expect_pickle_error(pkl, ErrorCode::Refused, 2 + 9 + 10 + 1 + 6 + 1, "builtins.eval");
}

TEST(PickleHostile, ReduceOfAnUnknownClassIsRefused) {
  expect_pickle_error(kProto2 + "c__main__\nEvil\n)R.", ErrorCode::Refused, 2, "__main__.Evil");
  expect_pickle_error(kProto2 + "c__main__\nEvil\n)\x81.", ErrorCode::Refused, 2, "__main__.Evil");
}

TEST(PickleHostile, CallingAnAllowedClassThatIsNotAFunctionIsRefused) {
  std::string g = "ctorch\nFloatStorage\n";
  expect_pickle_error(kProto2 + g + ")R.", ErrorCode::Refused, 2 + g.size() + 1, "REDUCE on torch.FloatStorage");
}

TEST(PickleHostile, PersistentIdThatIsNotAStorageIsRefused) {
  expect_pickle_error(kProto2 + str("x") + "\x85Q.", ErrorCode::Refused, 2 + 6 + 1, "persistent id");
}

TEST(PickleHostile, OpcodesOutsideTheSubsetAreUnsupported) {
  // INST (protocol 0: imports and calls), EXT1 (the extension registry), PERSID (text form).
  expect_pickle_error(kProto2 + "ios\nsystem\n.", ErrorCode::Unsupported, 2, "opcode 0x69");
  expect_pickle_error(kProto2 + "\x82\x01.", ErrorCode::Unsupported, 2, "opcode 0x82");
  expect_pickle_error(kProto2 + "N" + "P0\n.", ErrorCode::Unsupported, 3, "opcode 0x50");
}

// --------------------------------------------------------------- malformed ----

TEST(PickleHostile, MemoIndexNeverStoredIsBadFormat) {
  expect_pickle_error(kProto2 + "h\x05.", ErrorCode::BadFormat, 2, "memo index 5");
  expect_pickle_error(kProto2 + B("Nq\x00j\x00\x01\x00\x00."), ErrorCode::BadFormat, 5, "memo index 256");
}

TEST(PickleHostile, MemoIndexBeyondTheLimitIsTooLarge) {
  expect_pickle_error(kProto2 + "Nr\xff\xff\xff\xff.", ErrorCode::TooLarge, 3, "memo index 4294967295");
}

TEST(PickleHostile, HugeStringLengthIsRefusedBeforeAllocating) {
  expect_pickle_error(kProto2 + "X\xff\xff\xff\xff", ErrorCode::TooLarge, 2, "4294967295 bytes");
  expect_pickle_error(kProto2 + "\x8d" + std::string("\x00\x00\x00\x00\x00\x00\x00\x80", 8), ErrorCode::TooLarge, 2,
                      "bytes");
  // Within the limit but longer than the pickle.
  expect_pickle_error(kProto2 + B("X\x00\x10\x00\x00" "abc."), ErrorCode::Truncated, 2, "4096 bytes");
}

TEST(PickleHostile, StackUnderflowAndMissingMarkAreBadFormat) {
  expect_pickle_error(kProto2 + "a.", ErrorCode::BadFormat, 2, "APPEND on an empty stack");
  expect_pickle_error(kProto2 + "]N(u.", ErrorCode::BadFormat, 5, "SETITEMS expects a dict");
  expect_pickle_error(kProto2 + "t.", ErrorCode::BadFormat, 2, "without a MARK");
  expect_pickle_error(kProto2 + "NN.", ErrorCode::BadFormat, 4, "2 values on the stack");
}

TEST(PickleHostile, PickleWithoutStopIsTruncated) {
  auto e = unpickle_error(kProto2 + "}N");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), ErrorCode::Truncated) << e->what();
}

// ------------------------------------------------------------------ bombs ----

TEST(PickleHostile, DeeplyNestedListsAreTooLarge) {
  const size_t depth = 100000;
  std::string pkl = kProto2 + std::string(depth, ']') + std::string(depth - 1, 'a') + ".";
  expect_pickle_error(pkl, ErrorCode::TooLarge, 0, "nests containers more than", false);
}

TEST(PickleHostile, NestedMarksAreTooLarge) {
  expect_pickle_error(kProto2 + std::string(10000, '('), ErrorCode::TooLarge, 2 + wasmlm::limits::kMaxPickleMarks,
                      "nested MARKs");
}

TEST(PickleHostile, StackBombIsTooLarge) {
  expect_pickle_error(kProto2 + std::string(wasmlm::limits::kMaxPickleStack + 10, 'N'), ErrorCode::TooLarge,
                      2 + wasmlm::limits::kMaxPickleStack, "stack deeper");
}

TEST(PickleHostile, SharedListsDoubledSixtyTimesAreTooLargeNotExponential) {
  // l0 = []; l(i+1) = [l(i), l(i)]: 60 levels stay within the nesting limit
  // but 2^60 paths would be walked.
  std::string pkl = kProto2 + B("]q\x00") + "0";
  for (int i = 0; i < 60; ++i) {
    pkl += std::string("](h") + char(i) + "h" + char(i) + "eq" + char(i + 1);
    if (i < 59) pkl += "0";  // POP: only the last list stays on the stack
  }
  pkl += ".";
  expect_pickle_error(pkl, ErrorCode::TooLarge, 0, "values to visit", false);
}

TEST(PickleHostile, CyclicListEndsWithAnErrorNotAHang) {
  expect_pickle_error(kProto2 + B("]q\x00h\x00" "a."), ErrorCode::TooLarge, 0, "nests containers", false);
}

// ---------------------------------------------------------------- tensors ----

TEST(PthTensors, ATensorIsReadFromItsStorageEntry) {
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64 ? "zip64" : "zip");
    TestZip zip = write_test_zip({{"archive/data.pkl", tensor_pickle(8, 2, 4)},
                                  {"archive/byteorder", "little"},
                                  {"archive/data/0", floats(8)}},
                                 zip64);
    wasmlm::PthCheckpoint ck = wasmlm::read_pth_checkpoint(zip.bytes.data(), zip.bytes.size());
    ASSERT_EQ(ck.tensors.size(), 1u);
    const wasmlm::PthTensor& t = ck.tensors[0];
    EXPECT_EQ(t.name, "w");
    EXPECT_EQ(t.dtype, wasmlm::PthDtype::F32);
    EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 4}));
    EXPECT_EQ(t.stride, (std::vector<int64_t>{4, 1}));
    ASSERT_EQ(ck.storages.size(), 1u);
    EXPECT_EQ(ck.storages[0].offset, zip.local_offsets[2] + 30 + std::strlen("archive/data/0") + 4);
    EXPECT_EQ(ck.storages[0].nbytes, 32u);
    std::vector<float> v = wasmlm::read_pth_tensor_as_float(
        ck, t, wasmlm::read_from_memory(zip.bytes.data(), zip.bytes.size()));
    ASSERT_EQ(v.size(), 8u);
    for (size_t i = 0; i < 8; ++i) EXPECT_EQ(v[i], static_cast<float>(i) * 0.5f - 1.0f);
  }
}

TEST(PthTensors, ATensorReachingPastItsStorageIsBadFormat) {
  std::string pkl = tensor_pickle(4, 2, 4);
  size_t reduce_at = pkl.size() - 3;  // ...R u .
  expect_pickle_error(pkl, ErrorCode::BadFormat, reduce_at, "reaches element 7");
}

TEST(PthTensors, ZeroStridesCannotMakeATensorOfMoreThan2To63Elements) {
  std::string big = "J" + u32le(0x7fffffff);
  std::string pkl = tensor_pickle(1, big + big + big + "\x87", int1(0) + int1(0) + int1(0) + "\x87");
  expect_pickle_error(pkl, ErrorCode::TooLarge, pkl.size() - 3, "element count of a tensor overflows");
}

TEST(PthTensors, AMissingOrShortStorageEntryIsBadFormat) {
  auto missing = checkpoint_error(write_test_zip({{"archive/data.pkl", tensor_pickle(8, 2, 4)}}).bytes);
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->code(), ErrorCode::BadFormat) << missing->what();
  EXPECT_NE(missing->detail().find("archive/data/0"), std::string::npos) << missing->what();

  TestZip zip = write_test_zip({{"archive/data.pkl", tensor_pickle(8, 2, 4)}, {"archive/data/0", floats(7)}});
  expect_error(checkpoint_error(zip.bytes), ErrorCode::BadFormat, zip.local_offsets[1] + 30 + 14 + 4, "less than 8 F32");
}

// -------------------------------------------------------------------- zip ----

TEST(ZipHostile, EntrySizesPastTheFileEndAreBadFormat) {
  TestZip zip = write_test_zip({{"archive/data.pkl", tensor_pickle(8, 2, 4)}, {"archive/data/0", floats(8)}});
  std::vector<uint8_t> bytes = zip.bytes;
  patch_le(bytes, zip.central_offsets[1] + 20, 0x7fffffff, 4);
  patch_le(bytes, zip.central_offsets[1] + 24, 0x7fffffff, 4);
  expect_error(checkpoint_error(bytes), ErrorCode::BadFormat, zip.local_offsets[1], "past the end of the file");

  bytes = zip.bytes;  // a local header offset past the end
  patch_le(bytes, zip.central_offsets[0] + 42, 0x10000000, 4);
  expect_error(checkpoint_error(bytes), ErrorCode::BadFormat, zip.central_offsets[0], "past the end of the file");

  bytes = zip.bytes;  // the central directory offset past the end
  patch_le(bytes, bytes.size() - 6, 0x10000000, 4);
  expect_error(checkpoint_error(bytes), ErrorCode::BadFormat, bytes.size() - 22, "outside the file");
}

TEST(ZipHostile, DeflatedEntryIsUnsupportedNamingIt) {
  TestZip zip = write_test_zip({{"archive/data.pkl", tensor_pickle(8, 2, 4), 8}, {"archive/data/0", floats(8)}});
  expect_error(checkpoint_error(zip.bytes), ErrorCode::Unsupported, zip.central_offsets[0], "'archive/data.pkl' is compressed");
  zip = write_test_zip({{"archive/data.pkl", tensor_pickle(8, 2, 4)}, {"archive/data/0", floats(8), 8}});
  expect_error(checkpoint_error(zip.bytes), ErrorCode::Unsupported, zip.central_offsets[1], "'archive/data/0' is compressed");
}

TEST(ZipHostile, TruncatedArchiveIsBadFormat) {
  TestZip zip = write_test_zip({{"archive/data.pkl", tensor_pickle(8, 2, 4)}, {"archive/data/0", floats(8)}});
  std::vector<uint8_t> half(zip.bytes.begin(), zip.bytes.begin() + zip.bytes.size() / 2);
  expect_error(checkpoint_error(half), ErrorCode::BadFormat, 0, "End Of Central Directory");
}

TEST(ZipHostile, ArchiveWithoutDataPklIsBadFormat) {
  TestZip zip = write_test_zip({{"archive/other", "x"}});
  auto e = checkpoint_error(zip.bytes);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), ErrorCode::BadFormat) << e->what();
  EXPECT_NE(e->detail().find("data.pkl"), std::string::npos) << e->what();
}

// ----------------------------------------------------------------- legacy ----

TEST(PthHostile, TruncatedLegacyFileIsTruncated) {
  WASMLM_REQUIRE_TESTDATA();
  std::vector<uint8_t> bytes = read_file(testdata_dir() + "/pytorch/burn/simple_legacy.pt");
  bytes.resize(bytes.size() - 4);
  auto e = checkpoint_error(bytes);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), ErrorCode::Truncated) << e->what();
  EXPECT_NE(e->detail().find("past the end of the file"), std::string::npos) << e->what();
}

TEST(PthHostile, LegacyKeysListNamingAnUnknownStorageIsBadFormat) {
  WASMLM_REQUIRE_TESTDATA();
  std::vector<uint8_t> bytes = read_file(testdata_dir() + "/pytorch/burn/simple_legacy.pt");
  // The keys list is the last pickle: rename its first key.
  wasmlm::PthCheckpoint ck = wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
  ASSERT_FALSE(ck.storages.empty());
  std::string text(bytes.begin(), bytes.end());
  size_t at = text.rfind(ck.storages[0].key, ck.storages[0].offset);
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'T';
  auto e = checkpoint_error(bytes);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code(), ErrorCode::BadFormat) << e->what();
  EXPECT_NE(e->detail().find("is listed but no tensor uses it"), std::string::npos) << e->what();
}

// ------------------------------------------------------ testdata/hostile ----

TEST(PthHostile, AnEmptyTensorOfShape0x2p62x2p62IsEmptyAndContiguous) {
  WASMLM_REQUIRE_TESTDATA();
  const std::vector<uint8_t> bytes = read_file(testdata_dir() + "/hostile/pth-empty-tensor-contiguous-overflow.pth");
  const wasmlm::PthCheckpoint ck = wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
  ASSERT_EQ(ck.tensors.size(), 1u);
  const wasmlm::PthTensor& t = ck.tensors[0];
  EXPECT_EQ(t.shape, (std::vector<int64_t>{0, int64_t(1) << 62, int64_t(1) << 62}));
  EXPECT_EQ(t.numel(), 0u);
  EXPECT_EQ(t.nbytes(), 0u);
  EXPECT_TRUE(t.contiguous());
  EXPECT_EQ(ck.data_offset(t), ck.storages[t.storage].offset);
  EXPECT_TRUE(wasmlm::read_pth_tensor_as_float(ck, t, wasmlm::read_from_memory(bytes.data(), bytes.size())).empty());
}

TEST(PthHostile, ZeroStrideTensorsOfMoreThan2p63BytesAreTooLarge) {
  WASMLM_REQUIRE_TESTDATA();
  const struct {
    const char* file;
    const char* elements;
  } cases[] = {{"pth-zero-stride-2p31x2p31.pth", "4611686018427387904"}, {"pth-zero-stride-2p63m1.pth", "9223372036854775807"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    auto e = checkpoint_error(read_file(testdata_dir() + "/hostile/" + c.file));
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->code(), ErrorCode::TooLarge) << e->what();
    EXPECT_NE(e->detail().find(std::string("tensor of ") + c.elements + " F32 elements: more than 2^63 bytes"), std::string::npos)
        << e->what();
  }
}

TEST(PthHostile, UnknownBytesAreBadFormat) {
  std::vector<uint8_t> bytes = {'a', 'b', 'c'};
  expect_error(checkpoint_error(bytes), ErrorCode::BadFormat, 0, "not a PyTorch checkpoint");
  expect_error(checkpoint_error({}), ErrorCode::BadFormat, 0, "not a PyTorch checkpoint");
}

}  // namespace
}  // namespace wasmlm_test
