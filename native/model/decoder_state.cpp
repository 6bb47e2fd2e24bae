// DecoderContext::save_state / load_state: a small header, the last logits,
// then per layer the K rows and the V rows of the positions the layer holds
// (position-major; the cache's own K layout is transposed and sized by its
// capacity, so it is not written as is). A layer holds positions [0, n_past),
// a sliding-window ring [ring_first, n_past). Little-endian, as wasm and x86
// are. Version 1 (no ring_first) still loads.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.h"
#include "model/decoder_context.h"

namespace wasmlm {

namespace {

constexpr char kMagic[4] = {'W', 'L', 'M', 'S'};
constexpr uint32_t kVersion = 2;

struct StateHeader {
  char magic[4];
  // kv_type: KvCacheType (0 F32, 1 F16, 2 Q8_0)
  uint32_t version, kv_type, n_layer, n_head_kv, head_dim, n_vocab, n_past;
  uint32_t ring_first;  // version 2
};
constexpr size_t kHeaderV1 = 32;

}  // namespace

std::vector<uint8_t> DecoderContext::save_state() const {
  const DecoderHParams& h = hp_;
  const uint64_t row = kv_.raw_bytes();
  const uint32_t ring_first = std::min(kv_.ring_oldest(), n_past_);
  uint64_t size = sizeof(StateHeader) + h.n_vocab * 4;
  for (uint32_t l = 0; l < h.n_layer; ++l) size += 2 * row * (n_past_ - (h.layers[l].windowed ? ring_first : 0));
  std::vector<uint8_t> out(size);
  const StateHeader header = {{kMagic[0], kMagic[1], kMagic[2], kMagic[3]}, kVersion, static_cast<uint32_t>(kv_.type()), h.n_layer, h.n_head_kv,
                              h.head_dim, h.n_vocab, n_past_, ring_first};
  uint8_t* p = out.data();
  std::memcpy(p, &header, sizeof header);
  p += sizeof header;
  std::memcpy(p, logits_.data(), h.n_vocab * 4);
  p += h.n_vocab * 4;
  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const uint32_t first = h.layers[l].windowed ? ring_first : 0, count = n_past_ - first;
    for (uint32_t t = 0; t < count; ++t) kv_.read_raw(l, first + t, p + t * row, p + (count + t) * row);
    p += 2 * row * count;
  }
  return out;
}

void DecoderContext::load_state(const uint8_t* data, size_t size) {
  const DecoderHParams& h = hp_;
  StateHeader header{};
  if (size < kHeaderV1) fail(ErrorCode::Truncated, size, "a saved state starts with a 32-byte header");
  std::memcpy(&header, data, kHeaderV1);
  if (std::memcmp(header.magic, kMagic, 4) != 0) fail(ErrorCode::BadFormat, 0, "not a wasmlm saved state");
  if (header.version != 1 && header.version != kVersion)
    fail(ErrorCode::Unsupported, 4, "saved state version " + std::to_string(header.version) + " (expected 1 or 2)");
  size_t header_size = kHeaderV1;
  if (header.version == 2) {
    if (size < sizeof header) fail(ErrorCode::Truncated, size, "a saved state of version 2 starts with a 36-byte header");
    std::memcpy(&header, data, sizeof header);
    header_size = sizeof header;
  }
  if (header.kv_type != static_cast<uint32_t>(kv_.type()))
    fail(ErrorCode::BadFormat, 8,
         std::string("the state was saved with ") +
             (header.kv_type <= 2 ? kv_cache_type_name(static_cast<KvCacheType>(header.kv_type)) : "an unknown") +
             " KV cache; this context has " + kv_cache_type_name(kv_.type()));
  if (header.n_layer != h.n_layer || header.n_head_kv != h.n_head_kv || header.head_dim != h.head_dim ||
      header.n_vocab != h.n_vocab)
    fail(ErrorCode::BadFormat, 12, "the state was saved from a model of another shape");
  if (header.n_past > n_ctx_)
    fail(ErrorCode::TooLarge, 28,
         "the state holds " + std::to_string(header.n_past) + " positions; the context has room for " +
             std::to_string(n_ctx_));
  if (header.ring_first > header.n_past) fail(ErrorCode::BadFormat, 32, "the state's first ring position is past its end");
  const uint64_t row = kv_.raw_bytes();
  // Windowed layers hold [ring_first, n_past) (ring_first is 0 unless they were rings).
  uint64_t expected = header_size + uint64_t(h.n_vocab) * 4;
  for (uint32_t l = 0; l < h.n_layer; ++l)
    expected += 2 * row * (header.n_past - (h.layers[l].windowed ? header.ring_first : 0));
  if (size != expected)
    fail(size < expected ? ErrorCode::Truncated : ErrorCode::BadFormat, std::min<uint64_t>(size, expected),
         "a saved state of " + std::to_string(header.n_past) + " positions is " + std::to_string(expected) +
             " bytes, not " + std::to_string(size));
  const uint8_t* p = data + header_size;
  std::memcpy(logits_.data(), p, h.n_vocab * 4);
  p += h.n_vocab * 4;
  uint32_t oldest = header.ring_first;
  for (uint32_t l = 0; l < h.n_layer; ++l) {
    const uint32_t first = h.layers[l].windowed ? header.ring_first : 0, count = header.n_past - first;
    // A smaller ring than the saver's keeps the newest positions.
    const uint32_t skip = count > kv_.capacity(l) ? count - kv_.capacity(l) : 0;
    if (skip) oldest = std::max(oldest, first + skip);
    for (uint32_t t = skip; t < count; ++t) kv_.write_raw(l, first + t, p + t * row, p + (count + t) * row);
    p += 2 * row * count;
  }
  kv_.set_ring_oldest(oldest);
  n_past_ = header.n_past;
}

}  // namespace wasmlm
