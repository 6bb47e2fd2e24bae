// Strings a pickle shares through its memo cost their bytes once: a long key
// referenced by a million entries is not copied per entry, a persistent id
// referenced millions of times is one storage, and the tensor names built by
// joining keys are checked before they are built and bounded in total.
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/limits.h"
#include "format/pth_checkpoint.h"
#include "pth_test_pickle.h"
#include "pth_test_zip.h"

namespace wasmlm_test {
namespace {

using wasmlm::ErrorCode;

// data.pkl (and the storage of tensor_pickle's tensor) as a checkpoint.
std::vector<uint8_t> checkpoint_of(const std::string& pkl) {
  return write_test_zip({{"archive/data.pkl", pkl}, {"archive/data/0", floats(4)}}).bytes;
}

wasmlm::Error error_of(const std::string& pkl) {
  const std::vector<uint8_t> bytes = checkpoint_of(pkl);
  try {
    wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
  } catch (const wasmlm::Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error";
  return wasmlm::Error(ErrorCode::Internal, 0, "");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// MARK, `count` copies of `item` and `closer` (APPENDS / SETITEMS), in
// batches that keep the stack small.
std::string batched(const std::string& item, size_t count, char closer) {
  std::string out;
  for (size_t done = 0; done < count;) {
    const size_t n = std::min<size_t>(count - done, 100000);
    out += '(';
    for (size_t i = 0; i < n; ++i) out += item;
    out += closer;
    done += n;
  }
  return out;
}

// tensor_pickle's {"w": tensor} with `before` run first and `setitems`
// (MARK ... SETITEMS groups) adding to the dict before "w".
std::string with_tensor(const std::string& before, const std::string& setitems) {
  std::string pkl = tensor_pickle(4, 2, 2);  // PROTO } ( "w" ...
  pkl.insert(kProto2.size() + 1, setitems);
  pkl.insert(kProto2.size(), before);
  return pkl;
}

TEST(PthSharedStrings, AOneMegabyteKeySharedBy200000EntriesIsNotCopiedPerEntry) {
  const std::string key = str(std::string(1 << 20, 'k')) + B("q\x00") + "0";  // memo 0, popped
  const std::string pkl = with_tensor(key, batched(B("h\x00N"), 200000, 'u'));
  const std::vector<uint8_t> bytes = checkpoint_of(pkl);
  const auto t0 = std::chrono::steady_clock::now();
  const wasmlm::PthCheckpoint ck = wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
  EXPECT_LT(seconds_since(t0), 5.0);  // copying the key per entry: 400 GB
  ASSERT_EQ(ck.tensors.size(), 1u);
  EXPECT_EQ(ck.tensors[0].name, "w");
}

TEST(PthSharedStrings, APersistentIdReferenced5MillionTimesIsOneStorageValue) {
  // The id tuple ('storage', FloatStorage, "0", "cpu", 4) in memo 1, then a
  // list of 5M BINPERSIDs of it: more than the 4M objects a pickle may build,
  // unless each reference is the same storage value.
  const std::string pid = B("(") + str("storage") + "ctorch\nFloatStorage\n" + str("0") + str("cpu") + int1(4) + "tq\x01" + "0";
  const std::string list = "]" + batched(B("h\x01Q"), 5000000, 'e');
  ASSERT_GT(5000000u, wasmlm::limits::kMaxPickleObjects);
  const std::string pkl = with_tensor(pid, "(" + str("storages") + list + "u");
  const std::vector<uint8_t> bytes = checkpoint_of(pkl);
  const wasmlm::PthCheckpoint ck = wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
  ASSERT_EQ(ck.storages.size(), 1u);
  EXPECT_EQ(ck.storages[0].key, "0");
  EXPECT_EQ(ck.tensors.size(), 1u);
}

TEST(PthSharedStrings, AStorageKeyLongerThan4096BytesIsTooLarge) {
  std::string pkl = tensor_pickle(4, 2, 2);
  const std::string key0 = str("0");
  pkl.replace(pkl.find(key0), key0.size(), str(std::string(1 << 20, '7')));
  const wasmlm::Error e = error_of(pkl);
  EXPECT_EQ(e.code(), ErrorCode::TooLarge) << e.what();
  EXPECT_NE(e.detail().find("storage key of 1048576 bytes (limit 4096)"), std::string::npos) << e.what();
}

TEST(PthSharedStrings, ATensorNameLongerThan4096BytesIsTooLargeShowingItsStart) {
  std::string pkl = tensor_pickle(4, 2, 2);
  const std::string w = str("w");
  pkl.replace(pkl.find(w), w.size(), str("model." + std::string(5000, 'x')));
  const wasmlm::Error e = error_of(pkl);
  EXPECT_EQ(e.code(), ErrorCode::TooLarge) << e.what();
  EXPECT_NE(e.detail().find("tensor name of 5006 bytes (limit 4096): 'model.xxxxxxxxx"), std::string::npos) << e.what();
}

TEST(PthSharedStrings, NamesSpelledThroughSharedDictsAreBoundedInTotal) {
  // inner = {k_i: tensor for 200 keys}, outer = {k_j: inner for 200 keys}:
  // 40000 names of 4001 bytes (160 MB) from an 800 KB pickle.
  const int n = 200;
  auto key = [](char c, int i) { return str(std::string(1994, c) + std::to_string(1000000 + i)); };
  std::string pkl = tensor_pickle(4, 2, 2);
  const size_t tensor_at = pkl.find("ctorch._utils");
  const std::string tensor = pkl.substr(tensor_at, pkl.size() - 2 - tensor_at);  // up to "u."
  std::string inner = "}(" + key('a', 0) + tensor + "q\x02";
  for (int i = 1; i < n; ++i) inner += key('a', i) + "h\x02";
  inner += "uq\x03";
  std::string outer = kProto2 + "}(" + key('b', 0) + inner;
  for (int j = 1; j < n; ++j) outer += key('b', j) + "h\x03";
  outer += "u.";
  const wasmlm::Error e = error_of(outer);
  EXPECT_EQ(e.code(), ErrorCode::TooLarge) << e.what();
  EXPECT_NE(e.detail().find("name bytes"), std::string::npos) << e.what();
  EXPECT_NE(e.detail().find(std::to_string(wasmlm::limits::kMaxTensorNamesBytes)), std::string::npos) << e.what();
}

}  // namespace
}  // namespace wasmlm_test
