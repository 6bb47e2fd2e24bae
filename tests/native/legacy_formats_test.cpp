// rwkv.cpp .bin and llama.cpp's pre-GGUF files (GGML, GGMF, GGJT v1-v3),
// written byte by byte here: what is listed, and what is refused and why.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "format/incremental_parser.h"

using namespace wasmlm;

namespace {

// Appends little-endian fields to a byte vector.
struct Bytes {
  std::vector<uint8_t> b;
  Bytes& u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return u32(bits);
  }
  Bytes& str(const std::string& s) {
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Bytes& zeros(size_t n) {
    b.insert(b.end(), n, 0);
    return *this;
  }
  Bytes& align(size_t a) { return zeros((a - b.size() % a) % a); }
};

// rwkv.cpp record: {n_dims, key_len, type}, dims, key, data.
void rwkv_tensor(Bytes& f, const std::string& name, std::vector<uint32_t> dims, uint32_t type, size_t nbytes) {
  f.u32(static_cast<uint32_t>(dims.size())).u32(static_cast<uint32_t>(name.size())).u32(type);
  for (uint32_t d : dims) f.u32(d);
  f.str(name).zeros(nbytes);
}

Bytes rwkv_header(uint32_t version, uint32_t data_type) {
  Bytes f;
  f.u32(0x67676d66).u32(version).u32(256).u32(64).u32(1).u32(data_type);
  return f;
}

// llama.cpp legacy file: magic, [version], 7 hyperparameters, vocab.
Bytes llama_header(uint32_t magic, std::optional<uint32_t> version, bool scores) {
  Bytes f;
  f.u32(magic);
  if (version) f.u32(*version);
  f.u32(3).u32(64).u32(256).u32(4).u32(1).u32(8).u32(2);  // n_vocab 3, n_embd 64, ..., ftype 2
  for (const char* tok : {"<unk>", "a", "b"}) {
    f.u32(static_cast<uint32_t>(std::strlen(tok))).str(tok);
    if (scores) f.f32(-1.5f);
  }
  return f;
}

void llama_tensor(Bytes& f, const std::string& name, std::vector<uint32_t> dims, uint32_t type, size_t nbytes,
                  bool aligned) {
  f.u32(static_cast<uint32_t>(dims.size())).u32(static_cast<uint32_t>(name.size())).u32(type);
  for (uint32_t d : dims) f.u32(d);
  f.str(name);
  if (aligned) f.align(32);
  f.zeros(nbytes);
}

Error parse_error(const std::vector<uint8_t>& bytes) {
  try {
    read_model_directory(bytes.data(), bytes.size());
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorCode::Internal, kNoOffset, "parsed without error");
}

}  // namespace

TEST(RwkvBin, ListsTensorsWithShapesInGgmlOrderAndRwkvTypeIds) {
  Bytes f = rwkv_header(101, 8);
  rwkv_tensor(f, "emb.weight", {64, 256}, 0, 64 * 256 * 4);
  rwkv_tensor(f, "blocks.0.att.key.weight", {64, 64}, 8, 64 * 64 / 32 * 24);  // 8 = Q5_1 in rwkv.cpp
  rwkv_tensor(f, "blocks.0.ffn.key.weight", {64, 64}, 9, 64 * 64 / 32 * 34);  // 9 = Q8_0
  ModelFile m = read_model_directory(f.b.data(), f.b.size());
  EXPECT_EQ(m.format, FileFormat::RwkvBin);
  EXPECT_EQ(m.version, 101u);
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[1].type, GgmlType::Q5_1);
  EXPECT_EQ(m.tensors[2].type, GgmlType::Q8_0);
  EXPECT_EQ(m.tensors[0].ne[0], 64u);
  EXPECT_EQ(m.tensors[0].ne[1], 256u);
  EXPECT_EQ(m.metadata.get_uint("rwkv.vocab_size"), 256u);
  EXPECT_EQ(m.metadata.get_string("general.file_type"), "Q5_1");
}

TEST(RwkvBin, RefusesVersion100QuantizedTensorsAskingToRequantize) {
  Bytes f = rwkv_header(100, 2);
  rwkv_tensor(f, "emb.weight", {64, 256}, 2, 64 * 256 / 32 * 18);
  Error e = parse_error(f.b);
  EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  EXPECT_EQ(e.offset(), 24u + 8u);  // the record's type field
  EXPECT_NE(std::string(e.what()).find("re-quantize"), std::string::npos) << e.what();
}

TEST(RwkvBin, Version100FloatFilesAreRead) {
  Bytes f = rwkv_header(100, 1);
  rwkv_tensor(f, "emb.weight", {64, 256}, 1, 64 * 256 * 2);
  EXPECT_EQ(read_model_directory(f.b.data(), f.b.size()).tensors.at(0).type, GgmlType::F16);
}

TEST(RwkvBin, RemovedAndUnknownTypesAndVersionsAreTypedErrors) {
  {
    Bytes f = rwkv_header(101, 0);
    rwkv_tensor(f, "x", {32}, 5, 20);  // Q4_2, removed from rwkv.cpp
    EXPECT_EQ(parse_error(f.b).code(), ErrorCode::Unsupported);
  }
  {
    Bytes f = rwkv_header(101, 0);
    rwkv_tensor(f, "x", {32}, 12, 20);
    EXPECT_EQ(parse_error(f.b).code(), ErrorCode::BadFormat);
  }
  EXPECT_EQ(parse_error(rwkv_header(102, 0).b).code(), ErrorCode::Unsupported);
}

TEST(LegacyLlama, UnversionedGgmlHasNoScoresAndNoAlignment) {
  Bytes f = llama_header(0x67676d6c, std::nullopt, false);
  llama_tensor(f, "tok_embeddings.weight", {64, 3}, 0, 64 * 3 * 4, false);
  ModelFile m = read_model_directory(f.b.data(), f.b.size());
  EXPECT_EQ(m.format, FileFormat::Ggml);
  // Ids 0-2 named as llama.cpp's GGML-to-GGUF converter names them.
  EXPECT_EQ(m.metadata.find("tokenizer.ggml.tokens")->array->strings,
            (std::vector<std::string>{"<unk>", "<s>", "</s>"}));
  EXPECT_EQ(m.metadata.find("tokenizer.ggml.scores"), nullptr);
  EXPECT_EQ(m.tensors.at(0).offset, f.b.size() - 64 * 3 * 4);
}

TEST(LegacyLlama, GgmfV1HasScores) {
  Bytes f = llama_header(0x67676d66, 1u, true);
  llama_tensor(f, "norm.weight", {64}, 0, 64 * 4, false);
  ModelFile m = read_model_directory(f.b.data(), f.b.size());
  EXPECT_EQ(m.format, FileFormat::Ggmf);
  EXPECT_EQ(m.metadata.find("tokenizer.ggml.scores")->array->number(2), -1.5);
  EXPECT_EQ(m.metadata.get_uint("llama.embedding_length"), 64u);
}

TEST(LegacyLlama, GgjtAlignsDataTo32AndListsPreV3QuantsWithAWarning) {
  for (uint32_t version : {1u, 2u, 3u}) {
    Bytes f = llama_header(0x67676a74, version, true);
    const size_t q4_bytes = 64 * 2 / 32 * (version < 3 ? 20 : 18);
    llama_tensor(f, "layers.0.attention.wq.weight", {64, 2}, 2, q4_bytes, true);
    llama_tensor(f, "norm.weight", {64}, 0, 64 * 4, true);
    ModelFile m = read_model_directory(f.b.data(), f.b.size());
    SCOPED_TRACE(version);
    EXPECT_EQ(m.format, FileFormat::Ggjt);
    ASSERT_EQ(m.tensors.size(), 2u);
    EXPECT_EQ(m.tensors[0].offset % 32, 0u);
    EXPECT_EQ(m.tensors[0].nbytes, q4_bytes);
    EXPECT_EQ(m.warnings.empty(), version == 3);
    // Under llama.cpp's GGUF tensor names, as the decoder reads them.
    EXPECT_EQ(m.tensors[0].name, "blk.0.attn_q.weight");
    EXPECT_EQ(m.tensors[1].name, "output_norm.weight");
  }
}
