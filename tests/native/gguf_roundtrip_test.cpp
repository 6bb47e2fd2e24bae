// A GGUF file written with every metadata value type, several tensor types
// and shapes and a custom alignment reads back exactly as written: through
// read_model_directory, and streamed through IncrementalParser in chunks of
// any size, with the sink receiving exactly each tensor's bytes.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "gguf_writer.h"
#include "model_compare.h"
#include "stream_parse.h"

namespace wasmlm_test {
namespace {

using wasmlm::MetaArray;
using wasmlm::MetaType;
using wasmlm::MetaValue;
using wasmlm::ModelFile;

GValue arr(uint32_t elem, std::vector<GValue> items) { return GValue::array(elem, std::move(items)); }

// `depth` levels of arrays around one i32.
GValue nested(int depth) {
  GValue v = arr(kI32, {GValue::i32(depth)});
  for (int d = 1; d < depth; ++d) v = arr(kArray, {v});
  return v;
}

GgufSpec everything_spec(uint32_t version, bool big_endian) {
  GgufSpec s;
  s.version = version;
  s.big_endian = big_endian;
  auto& kv = s.kv;
  kv.emplace_back("general.architecture", GValue::string("llama"));
  kv.emplace_back("general.alignment", GValue::u32(64));
  // Scalars, with extremes.
  kv.emplace_back("u8.max", GValue::u8(255));
  kv.emplace_back("u8.zero", GValue::u8(0));
  kv.emplace_back("i8.min", GValue::i8(-128));
  kv.emplace_back("i8.max", GValue::i8(127));
  kv.emplace_back("u16.max", GValue::u16(65535));
  kv.emplace_back("i16.min", GValue::i16(-32768));
  kv.emplace_back("u32.max", GValue::u32(0xFFFFFFFFu));
  kv.emplace_back("i32.min", GValue::i32(std::numeric_limits<int32_t>::min()));
  kv.emplace_back("i32.minus1", GValue::i32(-1));
  kv.emplace_back("f32.value", GValue::f32(1e-5f));
  kv.emplace_back("f32.neg_zero", GValue::f32(-0.0f));
  kv.emplace_back("f32.inf", GValue::f32(-std::numeric_limits<float>::infinity()));
  kv.emplace_back("f32.nan_payload", GValue::f32_bits(0x7fc12345u));
  kv.emplace_back("f32.denormal", GValue::f32_bits(1));
  kv.emplace_back("f32.max", GValue::f32(FLT_MAX));
  kv.emplace_back("bool.true", GValue::boolean(true));
  kv.emplace_back("bool.false", GValue::boolean(false));
  kv.emplace_back("string.empty", GValue::string(""));
  kv.emplace_back("string.utf8", GValue::string("h\xC3\xA9llo w\xC3\xB6rld \xE2\x9C\x93 \xF0\x9F\xA6\x99"));
  kv.emplace_back("string.nul", GValue::string(std::string("a\0b", 3)));
  kv.emplace_back("string.long", GValue::string(std::string(70000, 'x') + "end"));  // > one 64 KB header step
  kv.emplace_back("u64.max", GValue::u64(std::numeric_limits<uint64_t>::max()));
  kv.emplace_back("i64.min", GValue::i64(std::numeric_limits<int64_t>::min()));
  kv.emplace_back("i64.max", GValue::i64(std::numeric_limits<int64_t>::max()));
  kv.emplace_back("f64.value", GValue::f64(3.141592653589793));
  kv.emplace_back("f64.nan_payload", GValue::f64_bits(0xfff8000000000123ull));
  kv.emplace_back("f64.min", GValue::f64(DBL_MIN));
  kv.emplace_back("f64.inf", GValue::f64(std::numeric_limits<double>::infinity()));
  // A key that is not ASCII.
  kv.emplace_back("\xD0\xBA\xD0\xBB\xD1\x8E\xD1\x87.\xE5\x90\x8D\xE5\x89\x8D", GValue::u8(7));
  // Arrays of every element type.
  kv.emplace_back("arr.u8", arr(kU8, {GValue::u8(0), GValue::u8(1), GValue::u8(255)}));
  kv.emplace_back("arr.i8", arr(kI8, {GValue::i8(-128), GValue::i8(0), GValue::i8(127)}));
  kv.emplace_back("arr.u16", arr(kU16, {GValue::u16(1), GValue::u16(0xABCD)}));
  kv.emplace_back("arr.i16", arr(kI16, {GValue::i16(-2), GValue::i16(32767)}));
  kv.emplace_back("arr.u32", arr(kU32, {GValue::u32(0x01020304u), GValue::u32(0xFFFFFFFFu)}));
  kv.emplace_back("arr.i32", arr(kI32, {GValue::i32(-1), GValue::i32(123456789)}));
  kv.emplace_back("arr.f32", arr(kF32, {GValue::f32(0.5f), GValue::f32(-0.0f), GValue::f32_bits(0x7f800000u),
                                        GValue::f32_bits(0x7fc00001u), GValue::f32(-1e30f)}));
  kv.emplace_back("arr.bool", arr(kBool, {GValue::boolean(true), GValue::boolean(false), GValue::boolean(true)}));
  kv.emplace_back("arr.string", arr(kString, {GValue::string("<s>"), GValue::string(""),
                                              GValue::string("\xE2\x96\x81the"), GValue::string("\xF0\x9F\x98\x80")}));
  kv.emplace_back("arr.u64", arr(kU64, {GValue::u64(0), GValue::u64(0x0102030405060708ull)}));
  kv.emplace_back("arr.i64", arr(kI64, {GValue::i64(std::numeric_limits<int64_t>::min()), GValue::i64(-5)}));
  kv.emplace_back("arr.f64", arr(kF64, {GValue::f64(-2.5), GValue::f64_bits(0x7ff0000000000000ull)}));
  // Empty arrays.
  kv.emplace_back("arr.empty_u8", arr(kU8, {}));
  kv.emplace_back("arr.empty_string", arr(kString, {}));
  kv.emplace_back("arr.empty_array", arr(kArray, {}));
  // Nested arrays: arrays of arrays of different element types and lengths.
  kv.emplace_back("arr.nested", arr(kArray, {arr(kI32, {GValue::i32(1), GValue::i32(2)}), arr(kString, {GValue::string("a")}),
                                             arr(kU8, {}), arr(kArray, {arr(kF64, {GValue::f64(1.5)})})}));
  kv.emplace_back("arr.nested_max_depth", nested(8));  // the deepest nesting allowed
  // Tensors of several types and 1 to 4 dimensions.
  s.tensors = {
      GTensor{"token_embd.weight", {8}, 0 /*F32*/, {}, {}},
      GTensor{"f16", {3, 5}, 1 /*F16*/, {}, {}},
      GTensor{"q4_0.3d", {64, 2, 3}, 2 /*Q4_0*/, {}, {}},
      GTensor{"q8_0.4d", {32, 1, 1, 2}, 8 /*Q8_0*/, {}, {}},
      GTensor{"q4_k", {256, 2}, 12 /*Q4_K*/, {}, {}},
      GTensor{"iq4_xs", {256}, 23 /*IQ4_XS*/, {}, {}},
      GTensor{"bf16.4d", {2, 3, 4, 5}, 30 /*BF16*/, {}, {}},
      GTensor{"q6_k", {512}, 14 /*Q6_K*/, {}, {}},
      GTensor{"i32", {5}, 26 /*I32*/, {}, {}},  // 20 bytes: the next tensor needs padding
      GTensor{"blk.0.\xD1\x84\xD1\x84\xD0\xBD", {7, 3}, 0, {}, {}},
      GTensor{"q8_0.rows_cross_blocks", {48, 2}, 8, {}, {}},  // 96 elements = 3 blocks, rows of 48
      GTensor{"tq2_0", {256}, 35 /*TQ2_0*/, {}, {}},
      GTensor{"iq3_xxs", {256}, 18 /*IQ3_XXS*/, {}, {}},
      GTensor{"iq3_s", {256, 2}, 21 /*IQ3_S*/, {}, {}},
      GTensor{"iq1_s", {512}, 19 /*IQ1_S*/, {}, {}},
      GTensor{"iq1_m", {256}, 29 /*IQ1_M*/, {}, {}},
      GTensor{"iq2_xxs", {256}, 16 /*IQ2_XXS*/, {}, {}},
      GTensor{"iq2_xs", {256, 2}, 17 /*IQ2_XS*/, {}, {}},
      GTensor{"iq2_s", {512}, 22 /*IQ2_S*/, {}, {}},
  };
  return s;
}

// Compares one parsed value against what was written.
void expect_value(const MetaValue& got, const GValue& want, const std::string& where) {
  ASSERT_EQ(static_cast<uint32_t>(got.type), want.type) << where;
  if (want.type == kString) {
    EXPECT_EQ(got.str, want.str) << where;
    return;
  }
  if (want.type != kArray) {
    uint32_t size = gtype_size(want.type);
    uint64_t mask = size == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * size)) - 1;
    EXPECT_EQ(got.bits & mask, want.bits) << where;
    if (got.is_integer()) {
      int64_t expect = static_cast<int64_t>(want.bits);
      if (want.type == kI8) expect = static_cast<int8_t>(want.bits);
      if (want.type == kI16) expect = static_cast<int16_t>(want.bits);
      if (want.type == kI32) expect = static_cast<int32_t>(want.bits);
      EXPECT_EQ(got.as_int(), expect) << where;
      if (want.type == kU64) { EXPECT_EQ(got.as_uint(), want.bits) << where; }
    } else if (want.type == kF32) {
      float f;
      uint32_t b = static_cast<uint32_t>(want.bits);
      std::memcpy(&f, &b, 4);
      auto n = got.as_number();
      ASSERT_TRUE(n.has_value()) << where;
      if (std::isnan(f)) EXPECT_TRUE(std::isnan(*n)) << where;
      else EXPECT_EQ(*n, static_cast<double>(f)) << where;
    }
    return;
  }
  ASSERT_TRUE(got.array) << where;
  const MetaArray& a = *got.array;
  ASSERT_EQ(static_cast<uint32_t>(a.elem_type), want.elem_type) << where;
  ASSERT_EQ(a.count, want.items.size()) << where;
  if (want.elem_type == kString) {
    ASSERT_EQ(a.strings.size(), want.items.size()) << where;
    for (size_t i = 0; i < want.items.size(); ++i) EXPECT_EQ(a.strings[i], want.items[i].str) << where << "[" << i << "]";
  } else if (want.elem_type == kArray) {
    ASSERT_EQ(a.arrays.size(), want.items.size()) << where;
    for (size_t i = 0; i < want.items.size(); ++i)
      expect_value(a.arrays[i], want.items[i], where + "[" + std::to_string(i) + "]");
  } else {
    uint32_t size = gtype_size(want.elem_type);
    ASSERT_EQ(a.packed.size(), want.items.size() * size) << where;
    for (size_t i = 0; i < want.items.size(); ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, a.packed.data() + i * size, size);  // host (little-endian) order
      EXPECT_EQ(bits, want.items[i].bits) << where << "[" << i << "]";
      if (want.elem_type == kI8) { EXPECT_EQ(a.integer(i), static_cast<int8_t>(want.items[i].bits)) << where; }
      if (want.elem_type == kI32) { EXPECT_EQ(a.integer(i), static_cast<int32_t>(want.items[i].bits)) << where; }
      if (want.elem_type == kU16) { EXPECT_EQ(a.integer(i), static_cast<int64_t>(want.items[i].bits)) << where; }
    }
  }
}

// The directory says exactly what was written.
void expect_matches_spec(const ModelFile& m, const GgufSpec& spec, const GgufLayout& L) {
  EXPECT_EQ(m.format, wasmlm::FileFormat::Gguf);
  EXPECT_EQ(m.version, spec.version);
  EXPECT_EQ(m.big_endian, spec.big_endian);
  EXPECT_EQ(m.alignment, L.alignment);
  EXPECT_EQ(m.data_offset, L.data_offset);
  EXPECT_EQ(m.file_size, L.bytes.size());
  EXPECT_EQ(m.trailing_bytes, 0u);
  ASSERT_EQ(m.metadata.size(), spec.kv.size());
  for (size_t i = 0; i < spec.kv.size(); ++i) {
    const auto& [key, value] = m.metadata.entries()[i];
    EXPECT_EQ(key, spec.kv[i].first);
    expect_value(value, spec.kv[i].second, key);
    EXPECT_EQ(m.metadata.find(spec.kv[i].first), &value) << key;
  }
  ASSERT_EQ(m.tensors.size(), spec.tensors.size());
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const auto& t = m.tensors[i];
    const auto& w = spec.tensors[i];
    EXPECT_EQ(t.name, w.name);
    EXPECT_EQ(static_cast<uint32_t>(t.type), w.type) << w.name;
    ASSERT_EQ(t.n_dims, static_cast<int>(w.dims.size())) << w.name;
    for (int d = 0; d < wasmlm::kMaxDims; ++d)
      EXPECT_EQ(t.ne[d], d < t.n_dims ? w.dims[d] : 1u) << w.name << " dim " << d;
    EXPECT_EQ(t.offset, L.tensor_offset[i]) << w.name;
    EXPECT_EQ(t.offset % L.alignment, 0u) << w.name;
    EXPECT_EQ(t.nbytes, L.tensor_nbytes[i]) << w.name;
    EXPECT_EQ(m.find_tensor(w.name), &t);
  }
}

class GgufRoundtrip : public ::testing::TestWithParam<std::tuple<uint32_t, bool>> {
 protected:
  void SetUp() override {
    spec_ = everything_spec(std::get<0>(GetParam()), std::get<1>(GetParam()));
    layout_ = write_gguf(spec_);
    ASSERT_EQ(layout_.alignment, 64u);
    ASSERT_EQ(layout_.bytes.size() % 64, 0u);
  }

  // Streams the file and checks directory and tensor bytes.
  void check_stream(const std::function<size_t()>& chunks, StreamOptions options = {}) {
    Streamed s = stream_parse(layout_.bytes.data(), layout_.bytes.size(), chunks, options);
    EXPECT_TRUE(s.problems.empty()) << s.problems.front();
    expect_matches_spec(s.file, spec_, layout_);
    EXPECT_EQ(model_diff(s.file, wasmlm::read_model_directory(layout_.bytes.data(), layout_.bytes.size())), "");
    if (!options.use_sink) return;
    ASSERT_EQ(s.tensor_bytes.size(), spec_.tensors.size());
    for (size_t i = 0; i < spec_.tensors.size(); ++i)
      EXPECT_TRUE(s.tensor_bytes[i] == layout_.tensor_data[i]) << spec_.tensors[i].name;
  }

  GgufSpec spec_;
  GgufLayout layout_;
};

TEST_P(GgufRoundtrip, ReadModelDirectoryReturnsExactlyWhatWasWritten) {
  ModelFile m = wasmlm::read_model_directory(layout_.bytes.data(), layout_.bytes.size());
  expect_matches_spec(m, spec_, layout_);
}

TEST_P(GgufRoundtrip, WarnsAboutRowsThatCrossBlockBoundaries) {
  ModelFile m = wasmlm::read_model_directory(layout_.bytes.data(), layout_.bytes.size());
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("q8_0.rows_cross_blocks"), std::string::npos) << m.warnings[0];
  EXPECT_FALSE(m.find_tensor("q8_0.rows_cross_blocks")->rows_block_aligned());
}

TEST_P(GgufRoundtrip, ReadAtWithShortReadsGivesTheSameDirectory) {
  const auto& b = layout_.bytes;
  size_t calls = 0;
  ModelFile m = wasmlm::read_model_directory(b.size(), [&](uint64_t off, uint8_t* dst, size_t n) -> size_t {
    ++calls;
    size_t k = std::min<size_t>({n, 13, b.size() - static_cast<size_t>(off)});
    std::memcpy(dst, b.data() + off, k);
    return k;
  });
  expect_matches_spec(m, spec_, layout_);
  EXPECT_GT(calls, b.size() / 13 / 2);  // it really read in small pieces
}

TEST_P(GgufRoundtrip, StreamingInOneByteChunksDeliversEveryTensorByte) {
  check_stream([] { return 1; });
}

TEST_P(GgufRoundtrip, StreamingInSevenByteChunksDeliversEveryTensorByte) {
  check_stream([] { return 7; });
}

TEST_P(GgufRoundtrip, StreamingInRandomChunksDeliversEveryTensorByte) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<size_t> small(1, 100), large(1, 200000);
    check_stream([&] { return rng() % 2 ? small(rng) : large(rng); });
  }
}

TEST_P(GgufRoundtrip, StreamingTheWholeFileInOnePush) {
  check_stream([&] { return layout_.bytes.size(); });
}

TEST_P(GgufRoundtrip, StreamingWithUnknownFileSizeEndsAtFinish) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<size_t> dist(1, 5000);
  check_stream([&] { return dist(rng); }, StreamOptions{false, true});
  check_stream([] { return 1; }, StreamOptions{false, true});
}

TEST_P(GgufRoundtrip, StreamingWithoutSinkGivesTheSameDirectory) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<size_t> dist(1, 3000);
  check_stream([&] { return dist(rng); }, StreamOptions{true, false});
  check_stream([&] { return dist(rng); }, StreamOptions{false, false});
}

INSTANTIATE_TEST_SUITE_P(AllVersionsAndByteOrders, GgufRoundtrip,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u), ::testing::Bool()),
                         [](const auto& info) {
                           return "v" + std::to_string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_big_endian" : "_little_endian");
                         });

// --- smaller cases -----------------------------------------------------------

TEST(GgufRoundtripDefaults, AlignmentIs32WithoutGeneralAlignment) {
  GgufSpec s = small_gguf_spec();
  GgufLayout L = write_gguf(s);
  ModelFile m = wasmlm::read_model_directory(L.bytes.data(), L.bytes.size());
  EXPECT_EQ(m.alignment, 32u);
  EXPECT_EQ(m.data_offset, L.data_offset);
  EXPECT_EQ(m.data_offset % 32, 0u);
  expect_matches_spec(m, s, L);
}

TEST(GgufRoundtripDefaults, EmptyFileWithNoMetadataAndNoTensors) {
  for (uint32_t version : {1u, 2u, 3u}) {
    GgufSpec s;
    s.version = version;
    s.pad_end = false;
    GgufLayout L = write_gguf(s);
    ASSERT_EQ(L.bytes.size(), version == 1 ? 16u : 24u);
    ModelFile m = wasmlm::read_model_directory(L.bytes.data(), L.bytes.size());
    EXPECT_EQ(m.version, version);
    EXPECT_EQ(m.metadata.size(), 0u);
    EXPECT_TRUE(m.tensors.empty());
    EXPECT_EQ(m.trailing_bytes, 0u);
    Streamed st = stream_parse(L.bytes.data(), L.bytes.size(), [] { return 1; }, StreamOptions{false, true});
    EXPECT_EQ(model_diff(st.file, m), "");
  }
}

TEST(GgufRoundtripDefaults, BytesAfterThePaddedLastTensorAreCountedAsTrailing) {
  GgufLayout L = write_gguf(small_gguf_spec());
  L.bytes.resize(L.bytes.size() + 100, 0xEE);
  ModelFile m = wasmlm::read_model_directory(L.bytes.data(), L.bytes.size());
  EXPECT_EQ(m.trailing_bytes, 100u);
  EXPECT_FALSE(m.warnings.empty());
  Streamed st = stream_parse(L.bytes.data(), L.bytes.size(), [] { return 3; });
  EXPECT_EQ(model_diff(st.file, m), "");
}

// Tensors with no elements (a dimension of 0) have no bytes; gguf-py and
// llama.cpp place them at the running offset, i.e. at the same offset as the
// next tensor.
TEST(GgufRoundtripDefaults, ZeroElementTensorsSharingAnOffsetWithTheNextTensor) {
  for (bool zero_first : {true, false}) {
    GgufSpec s = small_gguf_spec();
    s.tensors.insert(s.tensors.begin() + 1, GTensor{"empty", {0, 4}, 0, {}, {}});
    s.tensors.push_back(GTensor{"empty.last", {16, 0}, 2, {}, {}});
    if (!zero_first) std::swap(s.tensors[1], s.tensors[2]);
    GgufLayout L = write_gguf(s);
    SCOPED_TRACE(zero_first ? "zero-size tensor listed first" : "zero-size tensor listed second");
    ModelFile m = wasmlm::read_model_directory(L.bytes.data(), L.bytes.size());
    expect_matches_spec(m, s, L);
    for (size_t chunk : {size_t(1), size_t(5), L.bytes.size()}) {
      for (bool known : {true, false}) {
        Streamed st = stream_parse(L.bytes.data(), L.bytes.size(), [&] { return chunk; }, StreamOptions{known, true});
        EXPECT_TRUE(st.problems.empty()) << st.problems.front();
        EXPECT_EQ(model_diff(st.file, m), "");
        for (size_t i = 0; i < s.tensors.size(); ++i) EXPECT_TRUE(st.tensor_bytes[i] == L.tensor_data[i]) << i;
      }
    }
  }
}

}  // namespace
}  // namespace wasmlm_test
