// Damaged real files never crash the parser: truncations (every byte of the
// first 4 KB, and random offsets in the header) and random byte flips in the
// header each give a wasmlm::Error or a valid directory, never another
// exception (and, under ASan/UBSan, no memory error or UB). A truncated file
// gives Truncated, or parses to a prefix of the real directory.
//
// Header region: GGUF, the bytes before the data section; rwkv.cpp .bin and
// GGJT, whose headers interleave with the data, the whole file for
// truncations (half of the random offsets fall on record headers) and the
// bytes outside tensor data for flips.
//
// Run time (one test per testdata folder, looping over its files):
// - A prefix of k bytes only sees those bytes, so where a file's first bytes
//   equal an earlier file's of the same folder (the 34 synth-kq files share
//   11.5 KB), those truncations were already checked and are not repeated.
// - Truncations strictly inside tensor data (rwkv: bytes 54.. of the first
//   4 KB are emb.weight's data) all take the same path; a few are checked
//   per tensor (its first, middle and last bytes), not every byte.
// - Random trials per file are bounded by an estimate of their cost in an
//   ASan build, so the multi-megabyte vocabularies get fewer of them.
// Everything is seeded: a failure names the file, the trial and the bytes.
#include <algorithm>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <typeinfo>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "model_compare.h"
#include "stream_parse.h"
#include "testdata.h"

namespace wasmlm_test {
namespace {

using wasmlm::ErrorCode;
using wasmlm::FileFormat;
using wasmlm::ModelFile;

constexpr size_t kFirstBytes = 4096;
constexpr size_t kMaxRandomTruncations = 1000;
constexpr size_t kMaxFlipTrials = 2000;
constexpr size_t kMinTrials = 3;
// Estimated ASan-build cost of the random trials of one kind, per file (µs).
// At least a share of a per-folder budget, so a folder of one big file (GGJT)
// still gets a hundred or so trials.
constexpr double kTruncationBudgetUs = 50e3, kTruncationFolderBudgetUs = 1e6;
constexpr double kFlipBudgetUs = 100e3, kFlipFolderBudgetUs = 1.5e6;

struct Outcome {
  std::optional<ModelFile> model;
  std::optional<wasmlm::Error> error;
};

// Parses; a wasmlm::Error is an outcome, anything else fails the test.
Outcome parse(const uint8_t* data, size_t size, const std::string& what) {
  Outcome o;
  try {
    o.model = wasmlm::read_model_directory(data, size);
  } catch (const wasmlm::Error& e) {
    o.error = e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": threw " << typeid(e).name() << ": " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << ": threw a non-std exception";
  }
  return o;
}

// "" if the rest of wasmlm may trust the directory: tensor data inside the
// file, aligned, not overlapping, sizes consistent.
std::string invalid_directory(const ModelFile& m, size_t size) {
  if (m.file_size != size) return "file_size";
  if (m.trailing_bytes > size) return "trailing_bytes";
  if (m.alignment == 0 || (m.alignment & (m.alignment - 1)) != 0) return "alignment";
  std::vector<const wasmlm::TensorInfo*> order;
  for (const auto& t : m.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  uint64_t end = 0;
  for (const auto* t : order) {
    if (t->n_dims < 1 || t->n_dims > wasmlm::kMaxDims) return "n_dims of " + t->name;
    if (t->offset % m.alignment != 0) return "misaligned " + t->name;
    if (t->offset < end && t->nbytes != 0) return "overlapping " + t->name;
    if (t->offset > size || t->nbytes > size - t->offset) return "data of " + t->name + " beyond the file";
    auto nb = wasmlm::ggml_nbytes(t->type, t->n_elements());
    if (!nb || *nb != t->nbytes) return "nbytes of " + t->name;
    end = std::max(end, t->offset + t->nbytes);
  }
  return "";
}

struct Target {
  std::string rel;
  std::vector<uint8_t> bytes;
  ModelFile full;
  bool gguf = false;
  uint64_t header_end = 0;  // GGUF: data offset (or the file end); records: the file end
  std::vector<std::pair<uint64_t, uint64_t>> header_ranges;  // bytes outside tensor data
  uint64_t header_bytes = 0;
  uint64_t shared = 0;      // bytes equal to the start of an earlier file of the folder
  double parse_cost_us = 0;  // estimated cost of parsing the whole header in an ASan build

  // Inside some tensor's data, away from its first, middle and last bytes.
  bool deep_in_tensor_data(uint64_t k) const {
    for (const auto& t : full.tensors) {
      uint64_t end = t.offset + t.nbytes;
      if (k <= t.offset || k >= end) continue;
      uint64_t from_start = k - t.offset, to_end = end - k;
      return from_start > 2 && to_end > 2 && k != t.offset + t.nbytes / 2;
    }
    return false;
  }
};

class Corruption : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    WASMLM_REQUIRE_TESTDATA();
    for (const auto& rel : files_in_group(GetParam())) {
      Target t;
      t.rel = rel;
      t.bytes = read_file(testdata_dir() + "/" + rel);
      t.full = wasmlm::read_model_directory(t.bytes.data(), t.bytes.size());
      t.gguf = t.full.format == FileFormat::Gguf;
      if (t.gguf) {
        t.header_end = std::min<uint64_t>(t.full.data_offset, t.bytes.size());
        t.header_ranges.emplace_back(0, t.header_end);
      } else {
        t.header_end = t.bytes.size();
        std::vector<std::pair<uint64_t, uint64_t>> data;
        for (const auto& x : t.full.tensors) data.emplace_back(x.offset, x.offset + x.nbytes);
        std::sort(data.begin(), data.end());
        uint64_t pos = 0;
        for (const auto& [begin, end] : data) {
          if (begin > pos) t.header_ranges.emplace_back(pos, begin);
          pos = std::max(pos, end);
        }
        if (pos < t.bytes.size()) t.header_ranges.emplace_back(pos, t.bytes.size());
      }
      for (const auto& [b, e] : t.header_ranges) t.header_bytes += e - b;
      for (const Target& earlier : targets_) {
        size_t n = std::min(earlier.bytes.size(), t.bytes.size());
        size_t i = 0;
        while (i < n && earlier.bytes[i] == t.bytes[i]) ++i;
        t.shared = std::max<uint64_t>(t.shared, i);
      }
      // Measured in an ASan build: ~100 µs per parse (allocations, an
      // exception), ~60 MB/s for the first 64 KB of header, ~25 MB/s for
      // vocabularies beyond, ~2.5 µs per record (rwkv, GGJT).
      double small = static_cast<double>(std::min<uint64_t>(t.header_bytes, 64 << 10));
      double large = static_cast<double>(t.header_bytes) - small;
      t.parse_cost_us = 100 + 0.015 * small + 0.04 * large + (t.gguf ? 0 : 2.5 * t.full.tensors.size());
      targets_.push_back(std::move(t));
    }
    ASSERT_FALSE(targets_.empty());
  }

  // A prefix of k bytes: Truncated, or a prefix of the full directory.
  static void check_truncation(const Target& t, size_t k) {
    std::string what = t.rel + " truncated to " + std::to_string(k) + " bytes";
    Outcome o = parse(t.bytes.data(), k, what);
    if (o.error) {
      ASSERT_EQ(o.error->code(), ErrorCode::Truncated) << what << ": " << o.error->what();
      ASSERT_LE(o.error->offset(), k) << what << ": " << o.error->what();
      return;
    }
    if (!o.model) return;  // failure already reported
    const ModelFile& m = *o.model;
    ASSERT_EQ(invalid_directory(m, k), "") << what;
    ASSERT_LE(m.tensors.size(), t.full.tensors.size()) << what;
    if (t.gguf) { ASSERT_EQ(m.tensors.size(), t.full.tensors.size()) << what; }
    for (size_t i = 0; i < m.tensors.size(); ++i) {
      const auto& a = m.tensors[i];
      const auto& b = t.full.tensors[i];
      ASSERT_TRUE(a.name == b.name && a.type == b.type && a.ne == b.ne && a.offset == b.offset && a.nbytes == b.nbytes)
          << what << ": tensor " << i << " differs";
    }
  }

  static uint64_t uniform(std::mt19937& rng, uint64_t lo, uint64_t hi_exclusive) {
    return std::uniform_int_distribution<uint64_t>(lo, hi_exclusive - 1)(rng);
  }

  static uint64_t random_header_byte(const Target& t, std::mt19937& rng) {
    uint64_t i = uniform(rng, 0, t.header_bytes);
    for (const auto& [b, e] : t.header_ranges) {
      if (i < e - b) return b + i;
      i -= e - b;
    }
    return 0;
  }

  static uint64_t random_truncation(const Target& t, std::mt19937& rng) {
    if (!t.gguf) return rng() % 2 ? random_header_byte(t, rng) : uniform(rng, 0, t.bytes.size());
    // Mostly where this file differs from the earlier ones of its folder.
    if (t.shared + 1 < t.header_end && rng() % 4 != 0) return uniform(rng, t.shared + 1, t.header_end);
    return uniform(rng, 0, t.header_end);
  }

  static uint64_t random_flip_position(const Target& t, std::mt19937& rng) {
    switch (rng() % 4) {
      case 0:  // the first 4 KB: magic, counts, hyperparameters, first keys
        return uniform(rng, 0, std::min<uint64_t>(kFirstBytes, t.header_ranges.front().second));
      case 1:  // GGUF: the last 4 KB of the header (tensor infos); records: any record header
        if (t.gguf) return uniform(rng, t.header_end > kFirstBytes ? t.header_end - kFirstBytes : 0, t.header_end);
        return random_header_byte(t, rng);
      case 2:  // where this file differs from the earlier ones of its folder
        if (t.gguf && t.shared < t.header_end) return uniform(rng, t.shared, t.header_end);
        return random_header_byte(t, rng);
      default:
        return random_header_byte(t, rng);
    }
  }

  // Random trials for a file: `wanted`, fewer when its header is costly to
  // parse, and fewer for flips when most of it equals an earlier file.
  size_t trials(size_t wanted, double budget_us, double folder_budget_us, double cost_per_trial_us) const {
    double n = std::max(budget_us, folder_budget_us / static_cast<double>(targets_.size())) / cost_per_trial_us;
    return static_cast<size_t>(std::clamp<double>(n, kMinTrials, static_cast<double>(wanted)));
  }

  std::vector<Target> targets_;
};

TEST_P(Corruption, TruncationAtEveryByteOfTheFirst4KB) {
  size_t checked = 0;
  for (const Target& t : targets_) {
    size_t n = std::min(kFirstBytes, t.bytes.size());
    for (size_t k = static_cast<size_t>(std::min<uint64_t>(t.shared + 1, n)); k < n; ++k) {
      if (t.deep_in_tensor_data(k)) continue;
      check_truncation(t, k);
      ++checked;
      if (HasFatalFailure()) return;
    }
  }
  RecordProperty("truncations", static_cast<int>(checked));
  std::cout << "[ INFO     ] " << checked << " truncations of " << targets_.size() << " files\n";
}

TEST_P(Corruption, TruncationAtRandomOffsetsInTheHeader) {
  size_t checked = 0;
  for (const Target& t : targets_) {
    std::mt19937 rng(20240601);
    size_t n = trials(kMaxRandomTruncations, kTruncationBudgetUs, kTruncationFolderBudgetUs, t.parse_cost_us / 2);
    for (size_t i = 0; i < n; ++i) {
      check_truncation(t, random_truncation(t, rng));
      ++checked;
      if (HasFatalFailure()) return;
    }
  }
  RecordProperty("truncations", static_cast<int>(checked));
  std::cout << "[ INFO     ] " << checked << " truncations of " << targets_.size() << " files\n";
}

TEST_P(Corruption, RandomByteFlipsInTheHeaderGiveAnErrorOrAValidDirectory) {
  size_t total = 0, errors = 0, parsed = 0;
  for (const Target& t : targets_) {
    std::mt19937 rng(1234567);
    std::vector<uint8_t> damaged = t.bytes;
    // Every 8th trial also streams the file: 1/8 more parses, plus the data.
    double cost = t.parse_cost_us * 1.125 + 0.0002 * t.bytes.size();
    double novel = t.gguf ? std::max(0.1, 1.0 - double(t.shared) / double(t.header_end)) : 1.0;
    size_t n = trials(static_cast<size_t>(kMaxFlipTrials * novel), kFlipBudgetUs, kFlipFolderBudgetUs, cost);
    for (size_t trial = 0; trial < n; ++trial) {
      // 1 to 3 bytes: XORed with a random value or set to 0x00/0xFF/0x7F/0x80.
      int n_flips = 1 + static_cast<int>(rng() % 3);
      std::vector<size_t> positions;
      std::string flips;
      for (int f = 0; f < n_flips; ++f) {
        size_t pos = random_flip_position(t, rng);
        static const uint8_t kSpecial[4] = {0x00, 0xFF, 0x7F, 0x80};
        uint32_t r = rng();
        damaged[pos] = r % 4 == 0 ? kSpecial[(r >> 8) % 4] : damaged[pos] ^ static_cast<uint8_t>((r >> 8) % 255 + 1);
        positions.push_back(pos);
        flips += " [" + std::to_string(pos) + "]=" + std::to_string(damaged[pos]);
      }
      std::string what = t.rel + " flip trial " + std::to_string(trial) + ":" + flips;
      Outcome o = parse(damaged.data(), damaged.size(), what);
      if (o.error) ++errors;
      if (o.model) {
        ++parsed;
        ASSERT_EQ(invalid_directory(*o.model, damaged.size()), "") << what;
      }
      // Now and then, the streaming path too: the same result.
      if (trial % 8 == 0) {
        try {
          Streamed s = stream_parse(damaged.data(), damaged.size(), [] { return size_t(64) << 10; },
                                    StreamOptions{true, false});
          ASSERT_TRUE(o.model.has_value()) << what << ": streaming parsed, random access failed: " << o.error->what();
          EXPECT_EQ(model_diff(s.file, *o.model), "") << what;
        } catch (const wasmlm::Error& e) {
          ASSERT_TRUE(o.error.has_value()) << what << ": streaming failed (" << e.what() << "), random access parsed";
          EXPECT_EQ(e.code(), o.error->code()) << what << ": " << e.what() << " vs " << o.error->what();
          EXPECT_EQ(e.offset(), o.error->offset()) << what << ": " << e.what() << " vs " << o.error->what();
        } catch (const std::exception& e) {
          ADD_FAILURE() << what << ": streaming threw " << e.what();
        }
      }
      for (size_t pos : positions) damaged[pos] = t.bytes[pos];
      ++total;
      if (HasFatalFailure()) return;
    }
  }
  RecordProperty("trials", static_cast<int>(total));
  RecordProperty("errors", static_cast<int>(errors));
  RecordProperty("parsed", static_cast<int>(parsed));
  std::cout << "[ INFO     ] " << total << " flip trials of " << targets_.size() << " files: " << errors
            << " errors, " << parsed << " parsed\n";
}

INSTANTIATE_TEST_SUITE_P(Testdata, Corruption, ::testing::ValuesIn(testdata_groups()),
                         [](const auto& info) { return param_name(info.param); });

}  // namespace
}  // namespace wasmlm_test
