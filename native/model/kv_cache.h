// The keys and values of one sequence, per layer, in F32 or F16.
//
// A layer that attends to everything keeps n_ctx positions. A windowed layer
// (sliding-window attention) keeps a ring of fewer positions when its window
// is much shorter than the context: position p lives in slot p % capacity,
// and the capacity leaves room for a whole batch past the window plus some
// slack for going back (prefix reuse), so a long Gemma chat costs memory
// like llama.cpp's SWA cache.
//
// Each KV head's keys and values are one contiguous run, so attention over a
// head streams through memory. Keys are transposed in blocks of kKeyBlock
// slots (dim i of slot s at (s / 8) * 8 * head_dim + i * 8 + s % 8), so the
// scores of 8 positions read 8 consecutive values per dim; values are rows
// of head_dim per slot.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/decoder_hparams.h"

namespace wasmlm {

// Q8_0: blocks of 32 along the head dim (llama.cpp's --cache-type-k/v q8_0),
// 34 bytes per 32 values; a head's keys and values are then rows of
// head_dim / 32 blocks per slot.
enum class KvCacheType { F32, F16, Q8_0 };
const char* kv_cache_type_name(KvCacheType type);

class KvCache {
 public:
  // Positions a ring keeps beyond its window: a prompt batch (32) plus room to
  // go back over the last reply.
  static constexpr uint32_t kRingSlack = 256;
  // Values of padding after each buffer (SIMD loops read past the last slot).
  static constexpr uint64_t kPad = 16;
  static constexpr uint32_t kKeyBlock = 8;
  // Values after each buffer: the SIMD kernels read up to two key blocks
  // past a head's last slot.
  static uint64_t padding(uint64_t head_dim) { return 2 * kKeyBlock * head_dim + kPad; }
  // Where dim i of slot s is in a head's keys.
  static uint64_t key_index(uint32_t slot, uint64_t i, uint64_t head_dim) {
    return uint64_t(slot / kKeyBlock) * kKeyBlock * head_dim + i * kKeyBlock + slot % kKeyBlock;
  }

  KvCache(const DecoderHParams& h, uint32_t n_ctx, KvCacheType type);

  // The ring a windowed layer keeps, and what it keeps in a context of n_ctx
  // (every position when the ring would be no shorter).
  static uint64_t ring_size(uint32_t n_swa) { return uint64_t(n_swa) + kRingSlack; }
  static uint32_t window_capacity(uint32_t n_swa, uint32_t n_ctx) {
    return static_cast<uint32_t>(std::min<uint64_t>(n_ctx, ring_size(n_swa)));
  }

  KvCacheType type() const { return type_; }
  uint32_t capacity(uint32_t layer) const { return layers_[layer].capacity; }
  bool ring(uint32_t layer) const { return layers_[layer].capacity < n_ctx_; }
  uint32_t slot(uint32_t layer, uint32_t pos) const { return pos % layers_[layer].capacity; }
  // The first position every ring still holds (0 without rings).
  uint32_t ring_oldest() const { return ring_oldest_; }
  uint64_t bytes() const;

  // Writes the k and v rows (kv_dim values each) of `pos`.
  void store(uint32_t layer, uint32_t pos, const float* k, const float* v) { stored(layer, pos, write(layer, pos, k, v)); }
  // store in two steps, so that several threads can write a batch's
  // positions at once: write changes only the values of `pos` (distinct
  // positions share no memory) and returns whether one of them is an inf or
  // a NaN; stored then records that, and the position, for the layer.
  bool write(uint32_t layer, uint32_t pos, const float* k, const float* v);
  void stored(uint32_t layer, uint32_t pos, bool nonfinite);
  // A head's keys (laid out by key_index) and values (slot s at s *
  // head_dim), in the cache's type.
  const float* k32(uint32_t layer, uint32_t kvh) const { return &k32_[head_at(layer, kvh)]; }
  const uint16_t* k16(uint32_t layer, uint32_t kvh) const { return &k16_[head_at(layer, kvh)]; }
  const float* v32(uint32_t layer, uint32_t kvh) const { return &v32_[head_at(layer, kvh)]; }
  const uint16_t* v16(uint32_t layer, uint32_t kvh) const { return &v16_[head_at(layer, kvh)]; }
  // Q8_0: a head's key and value rows (row_bytes() per slot).
  const uint8_t* kq(uint32_t layer, uint32_t kvh) const { return &kq_[head_at(layer, kvh)]; }
  const uint8_t* vq(uint32_t layer, uint32_t kvh) const { return &vq_[head_at(layer, kvh)]; }
  uint64_t row_bytes() const;
  // Bytes of one position's k (or v) for all heads, as read_raw writes them.
  uint64_t raw_bytes() const;

  // Keeping positions [0, n) of n_past: possible unless a ring has
  // overwritten a position the next query's window needs.
  bool can_truncate(uint32_t n, uint32_t n_past) const;
  void reset() {
    ring_oldest_ = 0;
    std::fill(nonfinite_.begin(), nonfinite_.end(), false);
  }
  // Whether the layer has held an inf or NaN since the last reset (attention
  // then converts F16 exactly).
  bool nonfinite(uint32_t layer) const { return nonfinite_[layer]; }
  // After load_state: the rings hold positions from `first` on.
  void set_ring_oldest(uint32_t first) { ring_oldest_ = first; }

  // A position's k and v as raw values (2 or 4 bytes each, kv_dim of them),
  // for saving and restoring states.
  void read_raw(uint32_t layer, uint32_t pos, uint8_t* k, uint8_t* v) const;
  void write_raw(uint32_t layer, uint32_t pos, const uint8_t* k, const uint8_t* v);

 private:
  struct Layer {
    uint32_t capacity = 0;
    uint64_t head_stride = 0;  // values per head: capacity rounded up to kKeyBlock slots, times head_dim (Q8_0: bytes)
    uint64_t at = 0;           // the layer's first value, in the K and V buffers alike
  };
  uint64_t head_at(uint32_t layer, uint32_t kvh) const { return layers_[layer].at + kvh * layers_[layer].head_stride; }
  template <typename F>
  void for_each_value(uint32_t layer, uint32_t pos, F&& f) const;
  bool write_f16(uint32_t layer, uint32_t pos, const float* k, const float* v);
  KvCacheType type_;
  uint32_t n_ctx_, n_swa_;
  uint64_t head_dim_, kv_dim_;
  std::vector<Layer> layers_;
  std::vector<float> k32_, v32_;
  std::vector<uint16_t> k16_, v16_;
  std::vector<uint8_t> kq_, vq_;
  std::vector<bool> nonfinite_;
  uint32_t ring_oldest_ = 0;
};

}  // namespace wasmlm
