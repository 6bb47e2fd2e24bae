#include "format/gguf_split.h"

#include <gtest/gtest.h>

#include "core/error.h"

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
