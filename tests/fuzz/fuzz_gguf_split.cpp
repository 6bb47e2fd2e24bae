// libFuzzer target: split GGUF models (llama.cpp's gguf-split) on arbitrary
// bytes: up to 4 shards between separators (support.h), each read as a GGUF
// directory, then merged into one directory (merge_split_files). Every
// merged tensor must lie inside its shard. The first 32 bytes are also tried
// as a shard file name ("-00001-of-00003.gguf"), which must print back as read.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/gguf_split.h"
#include "format/incremental_parser.h"
#include "support.h"
#include "tiny_models.h"

namespace {

// The tiny decoder in 1, 2 and 3 shards, as gguf-split writes them: the
// metadata in the first, split.* keys in each, tensors in file order.
std::vector<std::vector<uint8_t>> seeds() {
  std::vector<std::vector<uint8_t>> out;
  const wasmlm_test::GgufSpec model = wasmlm_fuzz::tiny_decoder_spec();
  for (uint32_t count = 1; count <= 3; ++count) {
    std::vector<uint8_t> joined;
    const size_t per_shard = (model.tensors.size() + count - 1) / count;
    for (uint32_t no = 0; no < count; ++no) {
      wasmlm_test::GgufSpec shard;
      if (no == 0) shard.kv = model.kv;
      shard.kv.emplace_back("split.no", wasmlm_test::GValue::u16(static_cast<uint16_t>(no)));
      shard.kv.emplace_back("split.count", wasmlm_test::GValue::u16(static_cast<uint16_t>(count)));
      shard.kv.emplace_back("split.tensors.count", wasmlm_test::GValue::i32(static_cast<int32_t>(model.tensors.size())));
      const size_t first = no * per_shard, last = std::min(model.tensors.size(), first + per_shard);
      shard.tensors.assign(model.tensors.begin() + first, model.tensors.begin() + last);
      const std::vector<uint8_t> bytes = wasmlm_test::write_gguf(shard).bytes;
      if (no > 0) joined.insert(joined.end(), wasmlm_fuzz::kPartSeparator.begin(), wasmlm_fuzz::kPartSeparator.end());
      joined.insert(joined.end(), bytes.begin(), bytes.end());
    }
    out.push_back(std::move(joined));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  wasmlm_fuzz::write_seeds_if_asked("fuzz_gguf_split", seeds);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), std::min<size_t>(size, 32));
  if (auto parsed = wasmlm::parse_split_file_name(name))
    FUZZ_CHECK(wasmlm::split_file_name(parsed->prefix, parsed->no, parsed->count) == name);

  std::vector<wasmlm::ModelFile> shards;
  std::vector<uint64_t> sizes;
  for (std::string_view part : wasmlm_fuzz::split_parts(data, size, 4)) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(part.data());
    if (!wasmlm_fuzz::succeeds([&] { shards.push_back(wasmlm::read_model_directory(bytes, part.size())); })) return 0;
    sizes.push_back(part.size());
  }
  wasmlm_fuzz::succeeds([&] {
    // The parts may come in any order; a tensor's shard is its split.no.
    std::vector<uint64_t> size_of_no(shards.size());
    for (size_t k = 0; k < shards.size(); ++k) {
      const auto info = wasmlm::gguf_split_info(shards[k]);
      if (info && info->no < size_of_no.size()) size_of_no[info->no] = sizes[k];
      if (!info) size_of_no[0] = sizes[k];
    }
    const wasmlm::ModelFile merged = wasmlm::merge_split_files(std::move(shards));
    for (const wasmlm::TensorInfo& t : merged.tensors)
      FUZZ_CHECK(t.shard < size_of_no.size() && t.offset <= size_of_no[t.shard] &&
                 t.nbytes <= size_of_no[t.shard] - t.offset);
  });
  return 0;
}
