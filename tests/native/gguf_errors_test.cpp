// Every GGUF validation rejects a broken file with the right ErrorCode, at
// the byte offset of the offending field, with a message naming that offset;
// the streaming path reports the same error.
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "gguf_writer.h"
#include "model_compare.h"
#include "stream_parse.h"

namespace wasmlm_test {
namespace {

using wasmlm::ErrorCode;
using wasmlm::ModelFile;

// Overwrites `size` bytes at `at` with `value` in the file's byte order.
void patch(std::vector<uint8_t>& bytes, uint64_t at, uint64_t value, uint32_t size, bool big_endian = false) {
  for (uint32_t i = 0; i < size; ++i)
    bytes[at + i] = static_cast<uint8_t>(value >> (8 * (big_endian ? size - 1 - i : i)));
}

std::optional<wasmlm::Error> parse_error(const std::vector<uint8_t>& bytes) {
  try {
    wasmlm::read_model_directory(bytes.data(), bytes.size());
  } catch (const wasmlm::Error& e) {
    return e;
  }
  return std::nullopt;
}

enum class Streaming { SameError, KnownSizeOnly };

// The file is rejected with `code` at `offset`; the message says "at byte
// <offset>" and contains `needle`. Streaming it (7-byte chunks, known size;
// and unless told otherwise with an unknown size) gives the same error.
void expect_error(const std::vector<uint8_t>& bytes, ErrorCode code, uint64_t offset, const std::string& needle = "",
                  Streaming streaming = Streaming::SameError) {
  auto e = parse_error(bytes);
  ASSERT_TRUE(e.has_value()) << "expected " << wasmlm::error_code_name(code) << " at byte " << offset
                             << ", but the file parsed";
  EXPECT_EQ(e->code(), code) << e->what();
  EXPECT_EQ(e->offset(), offset) << e->what();
  EXPECT_NE(std::string(e->what()).find("at byte " + std::to_string(offset) + ": "), std::string::npos) << e->what();
  EXPECT_FALSE(e->detail().empty());
  if (!needle.empty()) { EXPECT_NE(e->detail().find(needle), std::string::npos) << e->what(); }

  for (bool known : {true, false}) {
    if (!known && streaming == Streaming::KnownSizeOnly) continue;
    SCOPED_TRACE(known ? "streaming, size known" : "streaming, size unknown");
    try {
      stream_parse(bytes.data(), bytes.size(), [] { return 7; }, StreamOptions{known, true});
      ADD_FAILURE() << "streaming parsed the file";
    } catch (const wasmlm::Error& s) {
      EXPECT_EQ(s.code(), code) << s.what();
      EXPECT_EQ(s.offset(), offset) << s.what();
    }
  }
}

uint32_t len_size(uint32_t version) { return version == 1 ? 4 : 8; }

// ---------------------------------------------------------------- header ----

TEST(GgufErrors, BadMagicIsBadFormatAtByte0) {
  GgufSpec s = small_gguf_spec();
  s.magic = "GGUX";
  expect_error(write_gguf(s).bytes, ErrorCode::BadFormat, 0, "GGUF");
  s.magic = std::string("PK\3\4", 4);
  expect_error(write_gguf(s).bytes, ErrorCode::BadFormat, 0, "zip");
  s.magic = "ggu";  // lower case, 3 bytes + NUL
  expect_error(write_gguf(s).bytes, ErrorCode::BadFormat, 0);
}

TEST(GgufErrors, FilesShorterThanAMagicAreTruncated) {
  std::vector<uint8_t> bytes = {'G', 'G'};
  expect_error(bytes, ErrorCode::Truncated, 0);
  EXPECT_EQ(parse_error({})->code(), ErrorCode::Truncated);
}

TEST(GgufErrors, Version0And4AreUnsupportedAtByte4) {
  for (bool big : {false, true}) {
    for (uint32_t v : {0u, 4u, 0xFFFFu}) {
      SCOPED_TRACE("version " + std::to_string(v) + (big ? " big-endian" : ""));
      GgufSpec s = small_gguf_spec(3, big);
      s.version_override = v;
      expect_error(write_gguf(s).bytes, ErrorCode::Unsupported, 4, "found " + std::to_string(v));
    }
  }
}

TEST(GgufErrors, HugeMetadataCountIsTooLargeAtTheCount) {
  for (uint32_t version : {1u, 2u, 3u}) {
    GgufSpec s = small_gguf_spec(version);
    s.n_kv_override = version == 1 ? 0xFFFFFFFFull : std::numeric_limits<uint64_t>::max();
    GgufLayout L = write_gguf(s);
    ASSERT_EQ(L.n_kv_at, 8u + len_size(version));
    expect_error(L.bytes, ErrorCode::TooLarge, L.n_kv_at, "metadata entries");
  }
}

TEST(GgufErrors, HugeTensorCountIsTooLargeAtTheCount) {
  for (uint32_t version : {1u, 2u, 3u}) {
    GgufSpec s = small_gguf_spec(version);
    s.n_tensors_override = version == 1 ? 0xFFFFFFFFull : (uint64_t(1) << 40);
    GgufLayout L = write_gguf(s);
    ASSERT_EQ(L.n_tensors_at, 8u);
    expect_error(L.bytes, ErrorCode::TooLarge, L.n_tensors_at, "tensors");
  }
}

TEST(GgufErrors, CountsThatCannotFitInTheFileAreTruncatedAtTheCount) {
  GgufSpec s = small_gguf_spec();
  s.n_kv_override = 100000;  // under the limit, but 14+ bytes each
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::Truncated, L.n_kv_at, "", Streaming::KnownSizeOnly);
  s = small_gguf_spec();
  s.n_tensors_override = 100000;
  L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::Truncated, L.n_tensors_at, "", Streaming::KnownSizeOnly);
}

// ------------------------------------------------------------- metadata ----

TEST(GgufErrors, StringLengthBeyondTheFileIsTruncated) {
  for (uint32_t version : {1u, 3u}) {
    GgufSpec s = small_gguf_spec(version);
    GValue v = GValue::string("abc");
    v.len_override = 100000;
    s.kv.insert(s.kv.begin(), {"name", v});
    GgufLayout L = write_gguf(s);
    // Noticed where the string's bytes should start.
    expect_error(L.bytes, ErrorCode::Truncated, L.kv_value_at[0] + len_size(version), "string value",
                 Streaming::KnownSizeOnly);
  }
}

TEST(GgufErrors, KeyLengthBeyondTheFileIsTruncated) {
  GgufLayout L = write_gguf(small_gguf_spec());
  patch(L.bytes, L.kv_at[1], 1u << 20, 8);
  expect_error(L.bytes, ErrorCode::Truncated, L.kv_at[1] + 8, "metadata key", Streaming::KnownSizeOnly);
}

TEST(GgufErrors, StringLengthOverTheLimitIsTooLargeAtTheLength) {
  GgufSpec s = small_gguf_spec();
  GValue v = GValue::string("abc");
  v.len_override = uint64_t(1) << 40;
  s.kv.insert(s.kv.begin(), {"name", v});
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::TooLarge, L.kv_value_at[0], "string value");
}

TEST(GgufErrors, InvalidValueTypeIsBadFormatAtTheTypeField) {
  for (uint32_t type : {13u, 255u, 0xFFFFFFFFu}) {
    GgufSpec s = small_gguf_spec();
    s.kv.insert(s.kv.begin() + 1, {"bad.type", GValue::raw(type, 0)});
    GgufLayout L = write_gguf(s);
    expect_error(L.bytes, ErrorCode::BadFormat, L.kv_value_at[1] - 4, "bad.type");
  }
}

TEST(GgufErrors, InvalidArrayElementTypeIsBadFormatAtTheElementType) {
  GgufSpec s = small_gguf_spec();
  s.kv.insert(s.kv.begin() + 1, {"bad.array", GValue::array(13, {})});
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.kv_value_at[1], "array element type");
}

TEST(GgufErrors, BoolValue2IsBadFormatAtTheValue) {
  for (bool big : {false, true}) {
    GgufSpec s = small_gguf_spec(3, big);
    s.kv.insert(s.kv.begin() + 1, {"bad.bool", GValue::raw_bool(2)});
    GgufLayout L = write_gguf(s);
    expect_error(L.bytes, ErrorCode::BadFormat, L.kv_value_at[1], "bool");
  }
}

TEST(GgufErrors, BoolArrayElement2IsBadFormatAtTheElement) {
  GgufSpec s = small_gguf_spec();
  s.kv.insert(s.kv.begin() + 1, {"bad.bools", GValue::array(kBool, {GValue::boolean(true), GValue::boolean(false),
                                                                     GValue::raw_bool(2)})});
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.kv_value_at[1] + 4 + 8 + 2, "bool");
}

GValue nested(int depth) {
  GValue v = GValue::array(kU8, {GValue::u8(1)});
  for (int d = 1; d < depth; ++d) v = GValue::array(kArray, {v});
  return v;
}

TEST(GgufErrors, ArraysNestedDeeperThan8AreTooLargeAtTheNinthArray) {
  for (uint32_t version : {1u, 3u}) {
    GgufSpec s = small_gguf_spec(version);
    s.kv.insert(s.kv.begin(), {"deep.ok", nested(8)});
    s.kv.insert(s.kv.begin() + 1, {"deep.bad", nested(9)});
    GgufLayout L = write_gguf(s);
    uint64_t level = 4 + len_size(version);  // element type and count of each array
    expect_error(L.bytes, ErrorCode::TooLarge, L.kv_value_at[1] + 8 * level, "nested");
  }
}

TEST(GgufErrors, DuplicateKeyIsBadFormatAtTheSecondEntry) {
  GgufSpec s = small_gguf_spec();
  s.kv.emplace_back("llama.block_count", GValue::u32(2));
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.kv_at.back(), "llama.block_count");
}

TEST(GgufErrors, KeyThatIsNotUtf8IsBadFormatAtTheKey) {
  for (std::string key : {std::string("a\xFF"), std::string("\xC0\x80"), std::string("\xED\xA0\x80"),
                          std::string("\xF4\x90\x80\x80"), std::string("ab\xE2\x82")}) {
    GgufSpec s = small_gguf_spec();
    s.kv.insert(s.kv.begin() + 2, {key, GValue::u8(1)});
    GgufLayout L = write_gguf(s);
    expect_error(L.bytes, ErrorCode::BadFormat, L.kv_at[2], "UTF-8");
  }
}

TEST(GgufErrors, EmptyKeyIsBadFormatAtTheKey) {
  GgufSpec s = small_gguf_spec();
  s.kv.insert(s.kv.begin() + 1, {"", GValue::u8(1)});
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.kv_at[1], "key");
}

TEST(GgufErrors, AlignmentNotAPowerOfTwoIsBadFormatAtTheKey) {
  for (GValue v : {GValue::u32(48), GValue::u32(0), GValue::u32(1u << 21), GValue::i32(-32),
                   GValue::string("32"), GValue::f32(32.0f)}) {
    GgufSpec s = small_gguf_spec();
    s.kv.insert(s.kv.begin() + 1, {"general.alignment", v});
    s.layout_alignment = 32;
    GgufLayout L = write_gguf(s);
    expect_error(L.bytes, ErrorCode::BadFormat, L.kv_at[1], "general.alignment");
  }
}

TEST(GgufErrors, AlignmentOfAnyPowerOfTwoUpTo1MiBIsAccepted) {
  for (uint32_t a : {1u, 8u, 64u, 4096u, 1u << 20}) {
    GgufSpec s = small_gguf_spec();
    s.kv.emplace_back("general.alignment", GValue::u32(a));
    GgufLayout L = write_gguf(s);
    ModelFile m = wasmlm::read_model_directory(L.bytes.data(), L.bytes.size());
    EXPECT_EQ(m.alignment, a);
    EXPECT_EQ(m.data_offset, L.data_offset);
  }
}

// --------------------------------------------------------------- tensors ----

TEST(GgufErrors, ZeroOrFiveDimensionsAreBadFormatAtTheDimensionCount) {
  for (std::vector<uint64_t> dims : {std::vector<uint64_t>{}, std::vector<uint64_t>{1, 1, 1, 1, 1}}) {
    GgufSpec s = small_gguf_spec();
    s.tensors[1].dims = dims;
    GgufLayout L = write_gguf(s);
    expect_error(L.bytes, ErrorCode::BadFormat, L.tensor_dims_at[1], "dimensions");
  }
}

TEST(GgufErrors, UnknownTensorTypeIsUnsupportedAtTheTypeField) {
  for (uint32_t type : {4u, 5u, 31u, 36u, 40u, 200u, 0xFFFFFFFFu}) {
    GgufSpec s = small_gguf_spec();
    s.tensors[1].type = type;
    s.tensors[1].data.assign(12, 0);
    GgufLayout L = write_gguf(s);
    expect_error(L.bytes, ErrorCode::Unsupported, L.tensor_type_at[1], std::to_string(type));
  }
}

TEST(GgufErrors, ElementCountNotAWholeNumberOfBlocksIsBadFormatAtTheDimensions) {
  struct Case { uint32_t type; std::vector<uint64_t> dims; };
  for (const Case& c : {Case{2 /*Q4_0*/, {33}}, Case{8 /*Q8_0*/, {16, 3}}, Case{12 /*Q4_K*/, {128}},
                        Case{23 /*IQ4_XS*/, {32, 4}}}) {
    GgufSpec s = small_gguf_spec();
    s.tensors[0].type = c.type;
    s.tensors[0].dims = c.dims;
    s.tensors[0].data.assign(64, 0);
    GgufLayout L = write_gguf(s);
    expect_error(L.bytes, ErrorCode::BadFormat, L.tensor_dims_at[0], "blocks");
  }
}

TEST(GgufErrors, OverflowingDimensionsAreTooLargeAtTheDimensions) {
  for (std::vector<uint64_t> dims : {std::vector<uint64_t>{uint64_t(1) << 32, uint64_t(1) << 32},
                                     std::vector<uint64_t>{std::numeric_limits<uint64_t>::max()},
                                     std::vector<uint64_t>{uint64_t(1) << 31, uint64_t(1) << 31, 2},
                                     std::vector<uint64_t>{3, 5, uint64_t(1) << 61}}) {
    GgufSpec s = small_gguf_spec();
    s.tensors[1].dims = dims;
    s.tensors[1].data.assign(12, 0);
    GgufLayout L = write_gguf(s);
    expect_error(L.bytes, ErrorCode::TooLarge, L.tensor_dims_at[1], "overflows");
  }
}

TEST(GgufErrors, MisalignedOffsetIsBadFormatAtTheOffsetField) {
  GgufSpec s = small_gguf_spec();
  s.tensors[1].offset_override = 48;  // alignment 32
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.tensor_offset_at[1], "multiple of 32");
}

TEST(GgufErrors, OffsetBeyond2To62IsTooLargeAtTheOffsetField) {
  GgufLayout L = write_gguf(small_gguf_spec());
  patch(L.bytes, L.tensor_offset_at[1], uint64_t(1) << 63, 8);
  expect_error(L.bytes, ErrorCode::TooLarge, L.tensor_offset_at[1], "overflows");
}

TEST(GgufErrors, OverlappingTensorsAreBadFormatAtTheEndOfTheHeader) {
  GgufSpec s = small_gguf_spec();
  s.tensors[1].offset_override = 0;  // tensor "a" is 32 bytes at 0
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.header_end, "overlaps");
  s.tensors.push_back(GTensor{"c", {64}, 0, {}, uint64_t(0)});  // listed last, but first in the data
  s.tensors[1].offset_override.reset();
  L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.header_end, "overlaps");
}

TEST(GgufErrors, TensorDataBeyondTheEndOfTheFileIsTruncatedAtTheFileEnd) {
  GgufLayout L = write_gguf(small_gguf_spec());
  patch(L.bytes, L.tensor_offset_at[1], 1u << 20, 8);
  expect_error(L.bytes, ErrorCode::Truncated, L.bytes.size(), "file ends", Streaming::KnownSizeOnly);
  // A tensor whose size alone exceeds the file.
  GgufSpec s = small_gguf_spec();
  s.tensors[1].dims = {uint64_t(1) << 40};
  s.tensors[1].data.assign(12, 0);
  L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::Truncated, L.bytes.size(), "file ends", Streaming::KnownSizeOnly);
}

TEST(GgufErrors, DuplicateTensorNamesAreBadFormatAtTheEndOfTheHeader) {
  GgufSpec s = small_gguf_spec();
  s.tensors[1].name = "a";
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.header_end, "'a'");
}

TEST(GgufErrors, TensorNameThatIsNotUtf8IsBadFormatAtTheName) {
  GgufSpec s = small_gguf_spec();
  s.tensors[1].name = "b\xFE";
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::BadFormat, L.tensor_info_at[1], "UTF-8");
}

TEST(GgufErrors, TensorNameOver4096BytesIsTooLargeAtTheName) {
  GgufSpec s = small_gguf_spec();
  s.tensors[1].name = std::string(4097, 'n');
  GgufLayout L = write_gguf(s);
  expect_error(L.bytes, ErrorCode::TooLarge, L.tensor_info_at[1], "tensor name");
}

// ------------------------------------------------------------ truncation ----

// A small but structure-rich file.
GgufSpec truncation_fixture(uint32_t version, bool big) {
  GgufSpec s = small_gguf_spec(version, big);
  s.kv.emplace_back("general.alignment", GValue::u32(16));
  s.kv.emplace_back("tokens", GValue::array(kString, {GValue::string("<unk>"), GValue::string(""), GValue::string("ab")}));
  s.kv.emplace_back("nested", GValue::array(kArray, {GValue::array(kI16, {GValue::i16(-1)}), GValue::array(kBool, {})}));
  s.kv.emplace_back("f64", GValue::f64(2.0));
  s.tensors.push_back(GTensor{"q", {32, 2}, 8 /*Q8_0*/, {}, {}});
  return s;
}

// Every prefix of the file either fails with Truncated, or (when it still
// holds every tensor's data) parses to the same directory; streaming the
// prefix with an unknown size agrees.
TEST(GgufErrors, TruncationAtEveryByteIsTruncatedOrAValidPrefix) {
  for (uint32_t version : {1u, 2u, 3u}) {
    for (bool big : {false, true}) {
      SCOPED_TRACE("v" + std::to_string(version) + (big ? " big-endian" : " little-endian"));
      GgufLayout L = write_gguf(truncation_fixture(version, big));
      ModelFile full = wasmlm::read_model_directory(L.bytes.data(), L.bytes.size());
      for (size_t k = 0; k < L.bytes.size(); ++k) {
        std::vector<uint8_t> prefix(L.bytes.begin(), L.bytes.begin() + k);
        std::optional<ModelFile> random_access;
        try {
          random_access = wasmlm::read_model_directory(prefix.data(), prefix.size());
        } catch (const wasmlm::Error& e) {
          ASSERT_EQ(e.code(), ErrorCode::Truncated) << "prefix of " << k << " bytes: " << e.what();
          ASSERT_LE(e.offset(), k) << e.what();
        }
        if (random_access) {
          ASSERT_GE(k, L.data_end) << "a prefix without all tensor data parsed";
          ModelFile expect = full;
          expect.file_size = k;
          ASSERT_EQ(model_diff(*random_access, expect), "") << "prefix of " << k << " bytes";
        }
        bool streamed = false;
        try {
          Streamed st = stream_parse(prefix.data(), prefix.size(), [] { return 3; }, StreamOptions{false, true});
          streamed = true;
          EXPECT_TRUE(st.problems.empty()) << st.problems.front();
        } catch (const wasmlm::Error& e) {
          ASSERT_EQ(e.code(), ErrorCode::Truncated) << "streamed prefix of " << k << " bytes: " << e.what();
        }
        ASSERT_EQ(streamed, random_access.has_value()) << "prefix of " << k << " bytes";
      }
    }
  }
}

}  // namespace
}  // namespace wasmlm_test
