// A Meta LLaMA checkpoint directory (params.json + consolidated.NN.pth model-
// parallel shards, as Meta's llama repositories write them) turned into what
// a GGUF gives: a directory with llama.* metadata and GGUF tensor names, and
// the weights in a WeightStore (which may quantize them as they arrive), so
// the decoder runs it as its `llama` row. No permutation: Meta's q/k layout is llama.cpp's.
//
// Two steps, so a caller that reads asynchronously (JS) can drive it:
// plan_meta_checkpoint() says which byte ranges of which shard make each
// tensor, in order; MetaCheckpointFeed takes those bytes in that order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/incremental_parser.h"
#include "format/model_file.h"
#include "format/pth_checkpoint.h"
#include "model/weight_store.h"

namespace wasmlm {

// One contiguous range of a shard that holds a piece of a GGUF tensor.
struct MetaRead {
  uint32_t shard = 0;
  uint64_t offset = 0;  // in the shard file
  uint64_t length = 0;
  uint32_t tensor = 0;          // index into the plan's file.tensors
  uint64_t row_bytes = 0;       // the piece's row length (bytes)
  uint64_t column_byte = 0;     // where its rows start within the tensor's rows (column split)
  uint64_t first_row = 0;       // its first row in the tensor (row split)
};

struct MetaCheckpointPlan {
  ModelFile file;               // llama.* metadata and the GGUF tensor directory
  std::vector<MetaRead> reads;  // every tensor's pieces, tensor by tensor
  // Tensors made from params.json, not read (LLaMA 3.1's rope_freqs.weight):
  // index into file.tensors, and their bytes.
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> made;
};

// LLaMA 3.1's RoPE frequency factors (params.json "use_scaled_rope"), as
// Meta's reference code scales the frequencies and llama.cpp's converter
// writes them to rope_freqs.weight: 1 for wavelengths under
// 8192 / high_freq_factor, scale_factor above 8192, smoothly between.
std::vector<float> llama3_rope_factors(uint32_t head_dim, double theta, double scale_factor = 8,
                                       double high_freq_factor = 4);

// shards: the directories of consolidated.00.pth, .01, ... in order, and
// their file sizes. Shards are merged as Meta splits them: wq/wk/wv/w1/w3/
// output along torch dim 0, wo/w2/tok_embeddings along dim 1, norms
// replicated. Throws BadFormat / Unsupported naming the tensor or key that
// does not fit.
MetaCheckpointPlan plan_meta_checkpoint(const std::string& params_json, const std::vector<PthCheckpoint>& shards,
                                        const std::vector<uint64_t>& shard_sizes);

// Takes the bytes of plan.reads, in order, and hands each tensor to the
// store: row-split and unsplit tensors as they arrive, column-split ones
// once assembled (one tensor of extra memory at a time).
class MetaCheckpointFeed {
 public:
  MetaCheckpointFeed(const MetaCheckpointPlan& plan, WeightStore& store);
  void push(const uint8_t* data, size_t n);
  bool done() const { return read_ == plan_.reads.size(); }

 private:
  void place(const MetaRead& r, const uint8_t* data, size_t n);

  const MetaCheckpointPlan& plan_;
  WeightStore& store_;
  size_t read_ = 0;
  uint64_t in_read_ = 0;
  std::vector<uint8_t> merged_;  // the column-split tensor being assembled
};

struct MetaShard {
  uint64_t size = 0;
  ReadAt read_at;
};

// Both steps through random-access readers (native code, tests).
ModelFile load_meta_checkpoint(const std::string& params_json, const std::vector<MetaShard>& shards,
                               WeightStore& store);

// The tensors worth quantizing on load in a checkpoint: the matrices.
bool meta_checkpoint_quantizes(const TensorInfo& t);

}  // namespace wasmlm
