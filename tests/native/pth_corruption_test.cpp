// Damaged real checkpoints never crash the PyTorch reader: every truncation
// and seeded random byte changes of small zip and legacy files give a
// wasmlm::Error or a directory whose tensors can be read, never another
// exception (and, under ASan/UBSan, no memory error or UB).
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/pth_checkpoint.h"
#include "format/pth_tensor_values.h"
#include "testdata.h"

namespace wasmlm_test {
namespace {

constexpr size_t kFlipTrials = 1500;
constexpr uint64_t kMaxValuesToRead = 1u << 20;  // a damaged shape may ask for many

const char* const kFiles[] = {
    "pytorch/burn/checkpoint.pt",     "pytorch/burn/parameter.pt",        "pytorch/burn/bfloat16.pt",
    "pytorch/candle/fortran_tensor_3d.pth", "pytorch/burn/simple_legacy.pt", "pytorch/burn/legacy_with_offsets.pt",
};

// Reads the directory and every tensor; true if it all succeeded. Any
// exception other than wasmlm::Error fails the test.
bool read_all(const std::vector<uint8_t>& bytes, const std::string& what) {
  try {
    wasmlm::PthCheckpoint ck = wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
    wasmlm::ReadAt read_at = wasmlm::read_from_memory(bytes.data(), bytes.size());
    for (const wasmlm::PthTensor& t : ck.tensors)
      if (t.numel() <= kMaxValuesToRead) wasmlm::read_pth_tensor_as_float(ck, t, read_at);
    return true;
  } catch (const wasmlm::Error&) {
    return false;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << typeid(e).name() << ": " << e.what();
    return false;
  }
}

TEST(PthCorruption, EveryTruncationIsATypedError) {
  WASMLM_REQUIRE_TESTDATA();
  for (const char* rel : kFiles) {
    std::vector<uint8_t> bytes = read_file(testdata_dir() + "/" + rel);
    ASSERT_TRUE(read_all(bytes, rel));
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
      // A cut file has lost its zip directory or the end of its last storage.
      EXPECT_FALSE(read_all(cut, std::string(rel) + " cut to " + std::to_string(n) + " bytes"))
          << rel << " cut to " << n << " bytes was read";
    }
  }
}

TEST(PthCorruption, RandomByteChangesNeverCrash) {
  WASMLM_REQUIRE_TESTDATA();
  std::mt19937_64 rng(20261123);
  for (const char* rel : kFiles) {
    std::vector<uint8_t> bytes = read_file(testdata_dir() + "/" + rel);
    size_t read = 0;
    for (size_t trial = 0; trial < kFlipTrials; ++trial) {
      std::vector<uint8_t> damaged = bytes;
      std::string what = std::string(rel) + " trial " + std::to_string(trial) + ":";
      for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) {
        size_t at = rng() % damaged.size();
        uint8_t value = static_cast<uint8_t>(rng());
        what += " [" + std::to_string(at) + "]=" + std::to_string(value);
        damaged[at] = value;
      }
      read += read_all(damaged, what);
    }
    // Most changes land in tensor data or padding and leave a readable file.
    EXPECT_GT(read, 0u) << rel;
  }
}

}  // namespace
}  // namespace wasmlm_test
