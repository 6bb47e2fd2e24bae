// libFuzzer target: Meta LLaMA checkpoint folders on arbitrary bytes:
// params.json and up to 4 consolidated.NN.pth shards, between separators
// (support.h). The shard planner maps and merges the shards' tensors, the
// feed assembles them in a WeightStore, and the model they make evaluates
// two tokens. Every planned read must lie inside its shard.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/pth_checkpoint.h"
#include "model/meta_checkpoint.h"
#include "support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string_view> parts = wasmlm_fuzz::split_parts(data, size, 5);
  if (parts.size() < 2) return 0;
  const std::string params(parts[0]);
  std::vector<wasmlm::MetaShard> shards;
  std::vector<wasmlm::PthCheckpoint> checkpoints;
  std::vector<uint64_t> sizes;
  for (size_t k = 1; k < parts.size(); ++k) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(parts[k].data());
    shards.push_back({parts[k].size(), wasmlm::read_from_memory(bytes, parts[k].size())});
    sizes.push_back(parts[k].size());
    if (!wasmlm_fuzz::succeeds([&] { checkpoints.push_back(wasmlm::read_pth_checkpoint(bytes, parts[k].size())); }))
      return 0;
  }
  const bool planned = wasmlm_fuzz::succeeds([&] {
    const wasmlm::MetaCheckpointPlan plan = wasmlm::plan_meta_checkpoint(params, checkpoints, sizes);
    for (const wasmlm::MetaRead& r : plan.reads)
      FUZZ_CHECK(r.shard < sizes.size() && r.offset <= sizes[r.shard] && r.length <= sizes[r.shard] - r.offset &&
                 r.tensor < plan.file.tensors.size());
  });
  if (!planned) return 0;
  wasmlm::WeightStore store;
  wasmlm::ModelFile file;
  if (wasmlm_fuzz::succeeds([&] { file = wasmlm::load_meta_checkpoint(params, shards, store); }))
    wasmlm_fuzz::run_model(file, store);
  return 0;
}
