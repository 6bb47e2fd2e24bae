// A Meta LLaMA checkpoint directory (params.json + consolidated.NN.pth model-
// parallel shards, as Meta's llama repositories write them) turned into what
// a GGUF gives: a directory with llama.* metadata and GGUF tensor names, and
// the weights in a WeightStore (which may quantize them as they arrive), so
// LlamaModel runs it. No permutation: Meta's q/k layout is llama.cpp's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/incremental_parser.h"
#include "format/model_file.h"
#include "model/weight_store.h"

namespace wasmlm {

struct MetaShard {
  uint64_t size = 0;
  ReadAt read_at;
};

// shards: consolidated.00.pth, .01, ... in order. Shards are merged as Meta
// splits them: wq/wk/wv/w1/w3/output along torch dim 0, wo/w2/tok_embeddings
// along dim 1, norms replicated. Throws BadFormat / Unsupported naming the
// tensor or key that does not fit.
ModelFile load_meta_checkpoint(const std::string& params_json, const std::vector<MetaShard>& shards,
                               WeightStore& store);

}  // namespace wasmlm
