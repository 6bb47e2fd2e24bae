#include "format/gguf_split.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "gguf_writer.h"

using namespace wasmlm;

namespace {

ModelFile shard(uint32_t no, uint32_t count, uint64_t total, std::vector<std::string> names) {
  ModelFile f;
  f.metadata.add("split.no", MetaValue::of_u32(no));
  f.metadata.add("split.count", MetaValue::of_u32(count));
  f.metadata.add("split.tensors.count", MetaValue::of_u64(total));
  if (no == 0) f.metadata.add("general.architecture", MetaValue::of_string("llama"));
  for (auto& n : names) {
    TensorInfo t;
    t.name = n;
    f.tensors.push_back(t);
  }
  return f;
}

ErrorCode merge_error(std::vector<ModelFile> shards) {
  try {
    merge_split_files(std::move(shards));
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::Internal;
}

}  // namespace

TEST(GgufSplit, ParsesShardFileNames) {
  auto n = parse_split_file_name("/m/Llama-3-70B-Q4_K_M-00002-of-00005.gguf");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->prefix, "/m/Llama-3-70B-Q4_K_M");
  EXPECT_EQ(n->no, 2u);
  EXPECT_EQ(n->count, 5u);
  EXPECT_EQ(split_file_name(n->prefix, 3, 5), "/m/Llama-3-70B-Q4_K_M-00003-of-00005.gguf");
  EXPECT_FALSE(parse_split_file_name("model.gguf"));
  EXPECT_FALSE(parse_split_file_name("m-00000-of-00005.gguf"));
  EXPECT_FALSE(parse_split_file_name("m-00006-of-00005.gguf"));
  EXPECT_FALSE(parse_split_file_name("m-0000a-of-00005.gguf"));
}

TEST(GgufSplit, MergesShardsInAnyOrderKeepingFirstShardMetadata) {
  std::vector<ModelFile> shards;
  shards.push_back(shard(2, 3, 5, {"e"}));
  shards.push_back(shard(0, 3, 5, {"a", "b"}));
  shards.push_back(shard(1, 3, 5, {"c", "d"}));
  ModelFile m = merge_split_files(std::move(shards));
  ASSERT_EQ(m.tensors.size(), 5u);
  EXPECT_EQ(m.metadata.get_string("general.architecture"), "llama");
  const char* names[] = {"a", "b", "c", "d", "e"};
  uint32_t shard_of[] = {0, 0, 1, 1, 2};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(m.tensors[i].name, names[i]);
    EXPECT_EQ(m.tensors[i].shard, shard_of[i]);
  }
}

TEST(GgufSplit, RejectsMissingRepeatedOrInconsistentShards) {
  {
    std::vector<ModelFile> s;
    s.push_back(shard(0, 3, 3, {"a"}));
    s.push_back(shard(1, 3, 3, {"b"}));
    EXPECT_EQ(merge_error(std::move(s)), ErrorCode::BadFormat);  // shard 3 missing
  }
  {
    std::vector<ModelFile> s;
    s.push_back(shard(0, 2, 2, {"a"}));
    s.push_back(shard(0, 2, 2, {"b"}));
    EXPECT_EQ(merge_error(std::move(s)), ErrorCode::BadFormat);  // shard 1 twice
  }
  {
    std::vector<ModelFile> s;
    s.push_back(shard(0, 2, 3, {"a"}));
    s.push_back(shard(1, 2, 3, {"b"}));
    EXPECT_EQ(merge_error(std::move(s)), ErrorCode::BadFormat);  // tensor count disagrees
  }
  {
    std::vector<ModelFile> s;
    s.push_back(shard(0, 2, 2, {"a"}));
    s.push_back(shard(1, 3, 2, {"b"}));
    EXPECT_EQ(merge_error(std::move(s)), ErrorCode::BadFormat);  // split.count disagrees
  }
  {
    std::vector<ModelFile> s;
    s.push_back(shard(0, 2, 2, {"a"}));
    s.push_back(shard(1, 2, 2, {"a"}));
    EXPECT_EQ(merge_error(std::move(s)), ErrorCode::BadFormat);  // duplicate tensor name
  }
}

TEST(GgufSplit, AnOrdinaryFileIsItsOwnDirectory) {
  ModelFile f;
  TensorInfo t;
  t.name = "x";
  f.tensors.push_back(t);
  std::vector<ModelFile> one;
  one.push_back(f);
  EXPECT_EQ(merge_split_files(std::move(one)).tensors.size(), 1u);
}

// Shards as llama.cpp's gguf-split writes them: each a GGUF file with the
// split keys; the first holds the model's metadata.
TEST(GgufSplit, ShardsWrittenAsFilesParseAndMergeIntoOneDirectory) {
  using namespace wasmlm_test;
  std::vector<ModelFile> shards;
  const char* names[3][2] = {{"token_embd.weight", "blk.0.attn_q.weight"}, {"blk.0.attn_k.weight", "blk.0.ffn_up.weight"},
                             {"output.weight", "output_norm.weight"}};
  for (uint16_t no = 0; no < 3; ++no) {
    GgufSpec spec;
    spec.kv.push_back({"split.no", GValue::u16(no)});
    spec.kv.push_back({"split.count", GValue::u16(3)});
    spec.kv.push_back({"split.tensors.count", GValue::i32(6)});
    if (no == 0) spec.kv.push_back({"general.architecture", GValue::string("llama")});
    for (const char* name : names[no]) spec.tensors.push_back(GTensor{name, {32, 4}, 0, {}, std::nullopt});
    GgufLayout file = write_gguf(spec);
    shards.push_back(read_model_directory(file.bytes.data(), file.bytes.size()));
  }
  auto info = gguf_split_info(shards[1]);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->no, 1u);
  EXPECT_EQ(info->count, 3u);
  std::swap(shards[0], shards[2]);
  ModelFile m = merge_split_files(shards);
  ASSERT_EQ(m.tensors.size(), 6u);
  EXPECT_EQ(m.metadata.get_string("general.architecture"), "llama");
  EXPECT_EQ(m.find_tensor("output.weight")->shard, 2u);
  EXPECT_EQ(m.find_tensor("blk.0.attn_k.weight")->shard, 1u);
  shards.pop_back();
  EXPECT_THROW(merge_split_files(shards), Error);
}
