#include "format/gguf_split.h"

#include <cstdio>

#include "core/error.h"

namespace wasmlm {

std::optional<SplitInfo> gguf_split_info(const ModelFile& file) {
  auto count = file.metadata.get_uint("split.count");
  auto no = file.metadata.get_uint("split.no");
  if (!count || !no) return std::nullopt;
  SplitInfo info;
  if (*count == 0 || *count > 99999 || *no >= *count)
    fail(ErrorCode::BadFormat, kNoOffset,
         "split.no " + std::to_string(*no) + " / split.count " + std::to_string(*count) + " are inconsistent");
  info.no = static_cast<uint32_t>(*no);
  info.count = static_cast<uint32_t>(*count);
  info.tensors_count = file.metadata.get_uint("split.tensors.count").value_or(0);
  return info;
}

std::optional<SplitFileName> parse_split_file_name(std::string_view path) {
  // "-NNNNN-of-NNNNN.gguf" is 20 characters.
  constexpr std::string_view kSuffix = ".gguf";
  if (path.size() < 20 || path.substr(path.size() - kSuffix.size()) != kSuffix) return std::nullopt;
  std::string_view tail = path.substr(path.size() - 20, 15);  // "-00001-of-00003"
  auto digits = [](std::string_view s) {
    for (char c : s)
      if (c < '0' || c > '9') return false;
    return true;
  };
  if (tail[0] != '-' || tail.substr(6, 4) != "-of-" || !digits(tail.substr(1, 5)) || !digits(tail.substr(10, 5)))
    return std::nullopt;
  SplitFileName name;
  name.prefix = std::string(path.substr(0, path.size() - 20));
  name.no = static_cast<uint32_t>(std::stoul(std::string(tail.substr(1, 5))));
  name.count = static_cast<uint32_t>(std::stoul(std::string(tail.substr(10, 5))));
  if (name.no == 0 || name.count == 0 || name.no > name.count) return std::nullopt;
  return name;
}

std::string split_file_name(const std::string& prefix, uint32_t no_1based, uint32_t count) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "-%05u-of-%05u.gguf", no_1based, count);
  return prefix + buf;
}

ModelFile merge_split_files(std::vector<ModelFile> shards) {
  if (shards.empty()) fail(ErrorCode::BadFormat, kNoOffset, "expected at least one GGUF shard");
  std::vector<SplitInfo> infos;
  for (const auto& s : shards) {
    auto info = gguf_split_info(s);
    if (!info) {
      if (shards.size() == 1) return std::move(shards.front());
      fail(ErrorCode::BadFormat, kNoOffset, "expected every file of a split model to have split.no and split.count");
    }
    infos.push_back(*info);
  }
  uint32_t count = infos.front().count;
  if (shards.size() != count)
    fail(ErrorCode::BadFormat, kNoOffset,
         "the model is split into " + std::to_string(count) + " files but " + std::to_string(shards.size()) +
             " were given");
  std::vector<int> index_of(count, -1);
  for (size_t i = 0; i < shards.size(); ++i) {
    if (infos[i].count != count)
      fail(ErrorCode::BadFormat, kNoOffset, "shards disagree on split.count");
    if (index_of[infos[i].no] >= 0)
      fail(ErrorCode::BadFormat, kNoOffset, "shard " + std::to_string(infos[i].no + 1) + " was given twice");
    index_of[infos[i].no] = static_cast<int>(i);
  }
  ModelFile merged = std::move(shards[index_of[0]]);
  for (auto& t : merged.tensors) t.shard = 0;
  for (uint32_t no = 1; no < count; ++no) {
    ModelFile& s = shards[index_of[no]];
    for (auto& t : s.tensors) {
      t.shard = no;
      merged.tensors.push_back(std::move(t));
    }
    for (auto& w : s.warnings) merged.warnings.push_back("shard " + std::to_string(no + 1) + ": " + w);
  }
  uint64_t expected = infos[index_of[0]].tensors_count;
  if (expected != 0 && expected != merged.tensors.size())
    fail(ErrorCode::BadFormat, kNoOffset,
         "split.tensors.count says " + std::to_string(expected) + " tensors, the shards hold " +
             std::to_string(merged.tensors.size()));
  check_unique_tensor_names(merged, kNoOffset);
  return merged;
}

}  // namespace wasmlm
