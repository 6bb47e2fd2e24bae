// Split GGUF models (llama.cpp's gguf-split): shards named
// "<prefix>-00001-of-00003.gguf", each a GGUF file with split.no (0-based),
// split.count and split.tensors.count; the first shard carries the metadata.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/model_file.h"

namespace wasmlm {

struct SplitInfo {
  uint32_t no = 0;              // 0-based shard index
  uint32_t count = 1;
  uint64_t tensors_count = 0;   // tensors in all shards together
};

// The split.* keys of a shard, or nullopt for an ordinary file.
std::optional<SplitInfo> gguf_split_info(const ModelFile& file);

struct SplitFileName {
  std::string prefix;  // path up to "-00001-of-00003.gguf"
  uint32_t no = 0;     // 1-based, as in the name
  uint32_t count = 0;
};
std::optional<SplitFileName> parse_split_file_name(std::string_view path);
std::string split_file_name(const std::string& prefix, uint32_t no_1based, uint32_t count);

// One directory for a split model: tensors of every shard (TensorInfo::shard
// says which), metadata of the first. Shards may come in any order; a
// missing, repeated or inconsistent shard is a BadFormat error.
ModelFile merge_split_files(std::vector<ModelFile> shards);

}  // namespace wasmlm
