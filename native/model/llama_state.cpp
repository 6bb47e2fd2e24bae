// LlamaContext::save_state / load_state: a small header, the last logits,
// then per layer the K and V rows of positions [0, n_past), position-major
// (the cache's own K layout is transposed and sized by n_ctx, so it is not
// written as is). Little-endian, as wasm and x86 are.
#include <cstring>
#include <string>

#include "core/error.h"
#include "model/llama_model.h"

namespace wasmlm {

namespace {

constexpr char kMagic[4] = {'W', 'L', 'M', 'S'};
constexpr uint32_t kVersion = 1;

struct StateHeader {
  char magic[4];
  uint32_t version, kv_f16, n_layer, n_head_kv, head_dim, n_vocab, n_past;
};

class Writer {
 public:
  void put(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  std::vector<uint8_t> out;
};

}  // namespace

std::vector<uint8_t> LlamaContext::save_state() const {
  const LlamaHParams& h = model_.hparams();
  const bool f16 = kv_type_ == KvCacheType::F16;
  const uint64_t kv_dim = uint64_t(h.n_head_kv) * h.head_dim, elem = f16 ? 2 : 4;
  Writer w;
  w.out.reserve(sizeof(StateHeader) + h.n_vocab * 4 + 2 * uint64_t(h.n_layer) * n_past_ * kv_dim * elem);
  const StateHeader header = {{kMagic[0], kMagic[1], kMagic[2], kMagic[3]}, kVersion, f16, h.n_layer, h.n_head_kv,
                              h.head_dim, h.n_vocab, n_past_};
  w.put(&header, sizeof header);
  w.put(logits_.data(), h.n_vocab * sizeof(float));
  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const uint64_t k_at = uint64_t(l) * kv_dim * k_stride_, v_at = uint64_t(l) * n_ctx_ * kv_dim;
    for (uint32_t t = 0; t < n_past_; ++t)
      for (uint64_t i = 0; i < kv_dim; ++i) {
        if (f16) w.put(&k_cache16_[k_at + i * k_stride_ + t], 2);
        else w.put(&k_cache_[k_at + i * k_stride_ + t], 4);
      }
    if (f16) w.put(&v_cache16_[v_at], n_past_ * kv_dim * 2);
    else w.put(&v_cache_[v_at], n_past_ * kv_dim * 4);
  }
  return std::move(w.out);
}

void LlamaContext::load_state(const uint8_t* data, size_t size) {
  const LlamaHParams& h = model_.hparams();
  const bool f16 = kv_type_ == KvCacheType::F16;
  StateHeader header;
  if (size < sizeof header) fail(ErrorCode::Truncated, size, "a saved state starts with a 32-byte header");
  std::memcpy(&header, data, sizeof header);
  if (std::memcmp(header.magic, kMagic, 4) != 0) fail(ErrorCode::BadFormat, 0, "not a wasmlm saved state");
  if (header.version != kVersion)
    fail(ErrorCode::Unsupported, 4, "saved state version " + std::to_string(header.version) + " (expected 1)");
  if (header.kv_f16 != (f16 ? 1u : 0u))
    fail(ErrorCode::BadFormat, 8, std::string("the state was saved with an ") + (header.kv_f16 ? "F16" : "F32") +
                                      " KV cache; this context has " + (f16 ? "F16" : "F32"));
  if (header.n_layer != h.n_layer || header.n_head_kv != h.n_head_kv || header.head_dim != h.head_dim ||
      header.n_vocab != h.n_vocab)
    fail(ErrorCode::BadFormat, 12, "the state was saved from a model of another shape");
  if (header.n_past > n_ctx_)
    fail(ErrorCode::TooLarge, 28,
         "the state holds " + std::to_string(header.n_past) + " positions; the context has room for " +
             std::to_string(n_ctx_));
  const uint64_t kv_dim = uint64_t(h.n_head_kv) * h.head_dim, elem = f16 ? 2 : 4;
  const uint64_t expected = sizeof header + uint64_t(h.n_vocab) * 4 + 2 * uint64_t(h.n_layer) * header.n_past * kv_dim * elem;
  if (size != expected)
    fail(size < expected ? ErrorCode::Truncated : ErrorCode::BadFormat, std::min<uint64_t>(size, expected),
         "a saved state of " + std::to_string(header.n_past) + " positions is " + std::to_string(expected) +
             " bytes, not " + std::to_string(size));
  const uint8_t* p = data + sizeof header;
  std::memcpy(logits_.data(), p, h.n_vocab * sizeof(float));
  p += h.n_vocab * sizeof(float);
  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const uint64_t k_at = uint64_t(l) * kv_dim * k_stride_, v_at = uint64_t(l) * n_ctx_ * kv_dim;
    for (uint32_t t = 0; t < header.n_past; ++t)
      for (uint64_t i = 0; i < kv_dim; ++i, p += elem) {
        if (f16) std::memcpy(&k_cache16_[k_at + i * k_stride_ + t], p, 2);
        else std::memcpy(&k_cache_[k_at + i * k_stride_ + t], p, 4);
      }
    const uint64_t v_bytes = header.n_past * kv_dim * elem;
    if (f16) std::memcpy(&v_cache16_[v_at], p, v_bytes);
    else std::memcpy(&v_cache_[v_at], p, v_bytes);
    p += v_bytes;
  }
  n_past_ = header.n_past;
}

}  // namespace wasmlm
