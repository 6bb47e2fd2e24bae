#include "model/sequence_model.h"

#include <cstring>

#include "core/error.h"
#include "model/decoder_context.h"
#include "model/rwkv_model.h"

namespace wasmlm {

namespace {

class DecoderSequence final : public SequenceModel {
 public:
  DecoderSequence(const ModelFile& file, const WeightStore& store, ThreadPool& pool, const SequenceOptions& o)
      : model_(file, store), context_(model_, o.n_ctx, pool, o.kv_type, o.kernels), n_ctx_(o.n_ctx) {}
  std::string architecture() const override { return model_.arch().name; }
  uint32_t n_vocab() const override { return model_.hparams().n_vocab; }
  uint32_t n_ctx() const override { return n_ctx_; }
  uint32_t n_past() const override { return context_.n_past(); }
  const float* eval(const int32_t* tokens, int n) override {
    evaluated_ = true;
    return context_.eval(tokens, n);
  }
  const float* logits() const override { return evaluated_ ? context_.logits() : nullptr; }
  void reset() override { context_.reset(); }
  bool truncate(uint32_t n) override { return context_.truncate(n); }
  std::vector<uint8_t> save_state() const override { return context_.save_state(); }
  void load_state(const uint8_t* data, size_t size) override {
    context_.load_state(data, size);
    evaluated_ = true;
  }
  uint64_t state_bytes() const override { return context_.kv_cache_bytes(); }

 private:
  DecoderModel model_;
  DecoderContext context_;
  uint32_t n_ctx_;
  bool evaluated_ = false;
};

// State bytes: "WRKV", u32 version 1, u32 n_past, u32 n_state, u32 n_vocab,
// then n_state floats of state and n_vocab of logits (little-endian).
constexpr char kRwkvStateMagic[4] = {'W', 'R', 'K', 'V'};

class RwkvSequence final : public SequenceModel {
 public:
  RwkvSequence(const ModelFile& file, const WeightStore& store, ThreadPool& pool, const SequenceOptions& o)
      : model_(file, store), context_(model_, pool, o.kernels) {}
  std::string architecture() const override { return "rwkv"; }
  uint32_t n_vocab() const override { return model_.hparams().n_vocab; }
  uint32_t n_ctx() const override { return 0; }
  uint32_t n_past() const override { return n_past_; }
  const float* eval(const int32_t* tokens, int n) override {
    const float* l = context_.eval(tokens, n);
    n_past_ += static_cast<uint32_t>(n);
    evaluated_ = true;
    return l;
  }
  const float* logits() const override { return evaluated_ ? context_.logits() : nullptr; }
  void reset() override {
    context_.reset();
    n_past_ = 0;
    evaluated_ = false;
  }
  bool truncate(uint32_t n) override {
    if (n >= n_past_) return true;
    if (n == 0) reset();
    return n == 0;
  }
  std::vector<uint8_t> save_state() const override {
    const uint32_t header[5] = {0, 1, n_past_, static_cast<uint32_t>(context_.state_size()), n_vocab()};
    std::vector<uint8_t> out(sizeof header + 4 * (context_.state_size() + n_vocab()));
    std::memcpy(out.data(), header, sizeof header);
    std::memcpy(out.data(), kRwkvStateMagic, 4);
    std::memcpy(out.data() + sizeof header, context_.state().data(), 4 * context_.state_size());
    std::memcpy(out.data() + sizeof header + 4 * context_.state_size(), context_.logits(), 4 * n_vocab());
    return out;
  }
  void load_state(const uint8_t* data, size_t size) override {
    uint32_t header[5];
    if (size < sizeof header || std::memcmp(data, kRwkvStateMagic, 4) != 0)
      fail(ErrorCode::BadFormat, 0, "expected an RWKV state (magic WRKV)");
    std::memcpy(header, data, sizeof header);
    if (header[1] != 1) fail(ErrorCode::Unsupported, 4, "RWKV state version " + std::to_string(header[1]));
    if (header[3] != context_.state_size() || header[4] != n_vocab())
      fail(ErrorCode::BadFormat, 12, "the RWKV state is for another model (state or vocabulary size differs)");
    const size_t expected = sizeof header + 4 * (size_t(header[3]) + header[4]);
    if (size != expected)
      fail(ErrorCode::BadFormat, size < expected ? size : expected,
           "expected " + std::to_string(expected) + " bytes of RWKV state, found " + std::to_string(size));
    std::vector<float> values(header[3] + size_t(header[4]));
    std::memcpy(values.data(), data + sizeof header, 4 * values.size());
    context_.set_state(values.data(), header[3], values.data() + header[3]);
    n_past_ = header[2];
    evaluated_ = true;
  }
  uint64_t state_bytes() const override { return 4 * uint64_t(context_.state_size()); }

 private:
  RwkvModel model_;
  RwkvContext context_;
  uint32_t n_past_ = 0;
  bool evaluated_ = false;
};

bool is_rwkv(const ModelFile& file) {
  const std::string arch = file.metadata.get_string("general.architecture").value_or("");
  return arch == "rwkv" || RwkvModel::is_gguf_architecture(arch);
}

}  // namespace

std::unique_ptr<SequenceModel> open_sequence_model(const ModelFile& file, const WeightStore& store, ThreadPool& pool,
                                                   const SequenceOptions& options) {
  if (is_rwkv(file)) return std::make_unique<RwkvSequence>(file, store, pool, options);
  // Every other architecture is a decoder row, or an Unsupported error listing them.
  return std::make_unique<DecoderSequence>(file, store, pool, options);
}

void check_model_directory(const ModelFile& file) {
  if (is_rwkv(file)) RwkvModel::check_directory(file);
  else DecoderModel::check_directory(file);
}

}  // namespace wasmlm
