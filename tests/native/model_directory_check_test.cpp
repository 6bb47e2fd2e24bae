// A model whose hyperparameters do not fit its tensors (or sane limits) is
// refused from its directory alone, before any weight is loaded or any KV
// cache sized: the hostile head_count_kv file, and stories260K / an rwkv.cpp
// file claiming 65536 blocks, a huge width, context or vocabulary.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "model/sequence_model.h"
#include "testdata.h"

namespace wasmlm_test {
namespace {

using wasmlm::ErrorCode;

// Sets the U32 value of GGUF metadata `key` in place.
void patch_gguf_u32(std::vector<uint8_t>& bytes, const std::string& key, uint32_t value) {
  const std::string text(bytes.begin(), bytes.end());
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos) << key;
  const size_t type_at = at + key.size();
  uint32_t type;
  std::memcpy(&type, &bytes[type_at], 4);
  ASSERT_EQ(type, 4u) << key << " is not a U32";
  std::memcpy(&bytes[type_at + 4], &value, 4);
}

wasmlm::Error directory_error(const wasmlm::ModelFile& file) {
  try {
    wasmlm::check_model_directory(file);
  } catch (const wasmlm::Error& e) {
    return e;
  }
  ADD_FAILURE() << "the directory was accepted";
  return wasmlm::Error(ErrorCode::Internal, 0, "");
}

void expect_refused(const std::vector<uint8_t>& bytes, const std::string& needle) {
  const wasmlm::ModelFile file = wasmlm::read_model_directory(bytes.data(), bytes.size());
  const wasmlm::Error e = directory_error(file);
  EXPECT_EQ(e.code(), ErrorCode::BadFormat) << e.what();
  EXPECT_NE(e.detail().find(needle), std::string::npos) << "'" << needle << "' not in: " << e.what();
}

std::vector<uint8_t> stories() { return read_file(testdata_dir() + "/llama/stories260K/stories260K.gguf"); }

TEST(ModelDirectoryCheck, TheRealFilesPass) {
  WASMLM_REQUIRE_TESTDATA();
  for (const char* f : {"llama/stories260K/stories260K.gguf", "synth-kq/synth-kq-Q4_K_M.gguf",
                        "rwkv/tiny-rwkv-5v1-730K-FP16.bin", "rwkv/tiny-rwkv-7v0-834K-FP32.bin"}) {
    SCOPED_TRACE(f);
    const std::vector<uint8_t> bytes = read_file(testdata_dir() + "/" + f);
    EXPECT_NO_THROW(wasmlm::check_model_directory(wasmlm::read_model_directory(bytes.data(), bytes.size())));
  }
}

TEST(ModelDirectoryCheck, HostileHeadCountKv65536IsRefusedNamingBothCounts) {
  WASMLM_REQUIRE_TESTDATA();
  expect_refused(read_file(testdata_dir() + "/hostile/stories260K-head_count_kv-65536.gguf"),
                 "llama.attention.head_count (8) must be a multiple of llama.attention.head_count_kv (65536)");
}

TEST(ModelDirectoryCheck, A65536BlockClaimIsRefusedNamingTheBlocksTheTensorsHave) {
  WASMLM_REQUIRE_TESTDATA();
  std::vector<uint8_t> bytes = stories();
  patch_gguf_u32(bytes, "llama.block_count", 65536);
  expect_refused(bytes, "llama.block_count is 65536 but the file has tensors for 5 blocks (blk.0 to blk.4)");
}

TEST(ModelDirectoryCheck, AHugeEmbeddingLengthIsRefusedAgainstTheEmbedding) {
  WASMLM_REQUIRE_TESTDATA();
  std::vector<uint8_t> bytes = stories();
  patch_gguf_u32(bytes, "llama.embedding_length", 1u << 23);
  expect_refused(bytes, "n_embd = llama.embedding_length = 8388608");
}

TEST(ModelDirectoryCheck, AContextLengthBeyondTheLimitIsRefused) {
  WASMLM_REQUIRE_TESTDATA();
  std::vector<uint8_t> bytes = stories();
  patch_gguf_u32(bytes, "llama.context_length", 0x80000000u);
  expect_refused(bytes, "expected an integer below 2^24 for llama.context_length");
}

TEST(ModelDirectoryCheck, AVocabularySizeTheEmbeddingDoesNotHaveIsRefused) {
  WASMLM_REQUIRE_TESTDATA();
  const std::vector<uint8_t> bytes = stories();
  wasmlm::ModelFile file = wasmlm::read_model_directory(bytes.data(), bytes.size());
  ASSERT_TRUE(file.metadata.add("llama.vocab_size", wasmlm::MetaValue::of_u32(1u << 24)));
  const wasmlm::Error e = directory_error(file);
  EXPECT_EQ(e.code(), ErrorCode::BadFormat) << e.what();
  EXPECT_NE(e.detail().find("the vocabulary has 16777216 tokens (llama.vocab_size) but token_embd.weight has 512 rows"),
            std::string::npos)
      << e.what();
}

TEST(ModelDirectoryCheck, AnRwkvFileClaimingMoreBlocksOrTokensThanItsTensorsIsRefused) {
  WASMLM_REQUIRE_TESTDATA();
  const std::vector<uint8_t> original = read_file(testdata_dir() + "/rwkv/tiny-rwkv-5v2-730K-FP32.bin");
  // Header: u32 magic, version, n_vocab, n_embed, n_layer, data_type.
  std::vector<uint8_t> bytes = original;
  const uint32_t layers = 65536, vocab = 1u << 24;
  std::memcpy(&bytes[16], &layers, 4);
  expect_refused(bytes, "rwkv.block_count is 65536 but the file has tensors for ");
  bytes = original;
  std::memcpy(&bytes[8], &vocab, 4);
  expect_refused(bytes, "tensor 'emb.weight' has shape [");
}

}  // namespace
}  // namespace wasmlm_test
