// One sequence of a loaded language model, whatever its architecture (a
// decoder-only transformer with its KV cache, or RWKV with its recurrent
// state): what the bindings and the CLI drive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compute/matmul.h"
#include "model/kv_cache.h"
#include "model/weight_store.h"

namespace wasmlm {

struct SequenceOptions {
  uint32_t n_ctx = 2048;                  // transformers: KV cache positions (RWKV: no limit)
  KvCacheType kv_type = KvCacheType::F16;
  KernelChoice kernels = KernelChoice::Best;
};

class SequenceModel {
 public:
  virtual ~SequenceModel() = default;
  virtual std::string architecture() const = 0;  // general.architecture: "llama", "qwen3", ..., "rwkv"
  virtual uint32_t n_vocab() const = 0;
  virtual uint32_t n_ctx() const = 0;            // 0: no limit
  virtual uint32_t n_past() const = 0;           // tokens evaluated since the last reset
  // Evaluates tokens after those already seen; the logits after the last one.
  virtual const float* eval(const int32_t* tokens, int n) = 0;
  virtual const float* logits() const = 0;       // nullptr before any eval
  virtual void reset() = 0;
  // Goes back to the first n positions; false if the model cannot (RWKV's
  // state summarises everything: only n == n_past() keeps it).
  virtual bool truncate(uint32_t n) = 0;
  // The sequence (cache or state, last logits) as bytes, and back; load
  // throws BadFormat/TooLarge naming the offset of what does not fit.
  virtual std::vector<uint8_t> save_state() const = 0;
  virtual void load_state(const uint8_t* data, size_t size) = 0;
  virtual uint64_t state_bytes() const = 0;      // KV cache or recurrent state
};

// The model `file` describes, over the weights in `store` (both must outlive
// it). Throws Unsupported for other architectures.
std::unique_ptr<SequenceModel> open_sequence_model(const ModelFile& file, const WeightStore& store, ThreadPool& pool,
                                                   const SequenceOptions& options);

// What open_sequence_model refuses a file for, checked on its directory alone:
// an architecture we do not run, hyperparameters that do not fit the tensors
// (block count, heads, widths, vocabulary) or sane limits. A loader calls it
// once the directory is complete, so that such a file is refused before its
// weights are allocated.
void check_model_directory(const ModelFile& file);

}  // namespace wasmlm
