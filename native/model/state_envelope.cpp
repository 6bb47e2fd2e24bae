// Layout (little-endian): "WLME", version u32, fingerprint u64, token count
// u32, the tokens (i32 each), payload size u64, the payload, then FNV-1a of
// everything before it (u64).
#include "model/state_envelope.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "quant/quant_traits.h"
#include "quant/row_quads.h"

namespace wasmlm {

namespace {

constexpr char kMagic[4] = {'W', 'L', 'M', 'E'};
constexpr uint32_t kVersion = 1;
constexpr size_t kFixedHead = 4 + 4 + 8 + 4;
constexpr size_t kSampleBytes = 64;

class Fnv1a {
 public:
  void add(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < n; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ull;
  }
  template <typename T>
  void add_value(const T& v) { add(&v, sizeof v); }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

template <typename T>
void put(std::vector<uint8_t>& out, const T& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

template <typename T>
T get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

uint64_t model_fingerprint(const ModelFile& file, const WeightStore& store, uint32_t n_vocab) {
  Fnv1a h;
  h.add_value(n_vocab);
  for (const TensorInfo& t : file.tensors) {
    h.add(t.name.data(), t.name.size());
    h.add_value(static_cast<uint32_t>(t.type));
    for (uint64_t ne : t.ne) h.add_value(ne);
    if (const WeightStore::Tensor* stored = store.find(t.name)) {
      const uint64_t n = std::min<uint64_t>(kSampleBytes, stored->info.nbytes);
      if (!stored->quads) {
        h.add(stored->data.get(), n);
        continue;
      }
      // The bytes as the file has them, whatever layout this engine chose.
      const TensorInfo& i = stored->info;
      std::vector<uint8_t> rows(kTileRows * (i.nbytes / i.ne[1]));
      unpack_row_quad(i.type, static_cast<int64_t>(i.ne[0]), stored->data.get(), rows.data());
      h.add(rows.data(), n);
    }
  }
  return h.value();
}

std::vector<uint8_t> wrap_state(const std::vector<uint8_t>& payload, uint64_t fingerprint,
                                const std::vector<int32_t>& tokens) {
  std::vector<uint8_t> out;
  out.reserve(kFixedHead + tokens.size() * 4 + 8 + payload.size() + 8);
  out.insert(out.end(), kMagic, kMagic + 4);
  put(out, kVersion);
  put(out, fingerprint);
  put(out, static_cast<uint32_t>(tokens.size()));
  for (int32_t t : tokens) put(out, t);
  put(out, static_cast<uint64_t>(payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
  Fnv1a h;
  h.add(out.data(), out.size());
  put(out, h.value());
  return out;
}

StatePayload unwrap_state(const uint8_t* data, size_t size, uint64_t fingerprint, const std::vector<int32_t>& tokens) {
  if (size < kFixedHead) fail(ErrorCode::Truncated, size, "a saved state starts with a 20-byte header");
  if (std::memcmp(data, kMagic, 4) != 0) fail(ErrorCode::BadFormat, 0, "not a wasmlm saved state");
  const uint32_t version = get<uint32_t>(data + 4);
  if (version != kVersion)
    fail(ErrorCode::Unsupported, 4, "saved state envelope version " + std::to_string(version) + " (expected 1)");
  const uint32_t n_tokens = get<uint32_t>(data + 16);
  const uint64_t tokens_end = kFixedHead + uint64_t(n_tokens) * 4;
  if (size < tokens_end + 8) fail(ErrorCode::Truncated, size, "the saved state ends inside its token list");
  const uint64_t payload_size = get<uint64_t>(data + tokens_end);
  const uint64_t payload_at = tokens_end + 8;
  if (payload_size > size - payload_at || size - payload_at - payload_size < 8)
    fail(ErrorCode::Truncated, size, "the saved state ends before its " + std::to_string(payload_size) + " bytes of context");
  const uint64_t sum_at = payload_at + payload_size;
  if (sum_at + 8 != size) fail(ErrorCode::BadFormat, sum_at + 8, "the saved state has bytes after its checksum");
  Fnv1a h;
  h.add(data, sum_at);
  if (h.value() != get<uint64_t>(data + sum_at))
    fail(ErrorCode::BadFormat, sum_at, "the saved state's checksum does not match: the bytes were altered or damaged");
  if (get<uint64_t>(data + 8) != fingerprint)
    fail(ErrorCode::BadFormat, 8, "the state was saved from another model (its weights or vocabulary differ)");
  bool same = n_tokens == tokens.size();
  for (uint32_t i = 0; same && i < n_tokens; ++i) same = get<int32_t>(data + kFixedHead + i * 4) == tokens[i];
  if (!same)
    fail(ErrorCode::BadFormat, kFixedHead, "the state's token list (" + std::to_string(tokens.size()) +
                                                " ids) disagrees with the context it was saved with (" +
                                                std::to_string(n_tokens) + " ids)");
  return {data + payload_at, static_cast<size_t>(payload_size)};
}

}  // namespace wasmlm
