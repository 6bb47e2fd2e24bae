// The keys and values of one sequence, per layer, in F32 or F16.
//
// A layer that attends to everything keeps n_ctx positions. A windowed layer
// (sliding-window attention) keeps a ring of fewer positions when its window
// is much shorter than the context: position p lives in slot p % capacity,
// and the capacity leaves room for a whole batch past the window plus some
// slack for going back (prefix reuse), so a long Gemma chat costs memory
// like llama.cpp's SWA cache.
//
// K is stored transposed, (head, dim, slot), so attention computes the scores
// of several positions at once in SIMD lanes; V as (slot, head * dim).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/decoder_hparams.h"

namespace wasmlm {

enum class KvCacheType { F32, F16 };

class KvCache {
 public:
  // Positions a ring keeps beyond its window: a prompt batch (32) plus room to
  // go back over the last reply.
  static constexpr uint32_t kRingSlack = 256;
  // Values of padding after each buffer (SIMD loops read past the last slot).
  static constexpr uint64_t kPad = 16;

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
  uint64_t k_stride(uint32_t layer) const { return layers_[layer].k_stride; }
  // The first position every ring still holds (0 without rings).
  uint32_t ring_oldest() const { return ring_oldest_; }
  uint64_t bytes() const;

  // Writes the k and v rows (kv_dim values each) of `pos`.
  void store(uint32_t layer, uint32_t pos, const float* k, const float* v);
  // Key dim i of head kvh at slot 0 (then one value per slot), and the value
  // row of slot 0 (kv_dim values per slot), in the cache's type.
  const float* k32(uint32_t layer, uint32_t kvh, uint32_t i) const {
    return &k32_[layers_[layer].k_at + (uint64_t(kvh) * head_dim_ + i) * layers_[layer].k_stride];
  }
  const uint16_t* k16(uint32_t layer, uint32_t kvh, uint32_t i) const {
    return &k16_[layers_[layer].k_at + (uint64_t(kvh) * head_dim_ + i) * layers_[layer].k_stride];
  }
  const float* v32(uint32_t layer) const { return &v32_[layers_[layer].v_at]; }
  const uint16_t* v16(uint32_t layer) const { return &v16_[layers_[layer].v_at]; }

  // Keeping positions [0, n) of n_past: possible unless a ring has
  // overwritten a position the next query's window needs.
  bool can_truncate(uint32_t n, uint32_t n_past) const;
  void reset() { ring_oldest_ = 0; }
  // After load_state: the rings hold positions from `first` on.
  void set_ring_oldest(uint32_t first) { ring_oldest_ = first; }

  // A position's k and v as raw values (2 or 4 bytes each, kv_dim of them),
  // for saving and restoring states.
  void read_raw(uint32_t layer, uint32_t pos, uint8_t* k, uint8_t* v) const;
  void write_raw(uint32_t layer, uint32_t pos, const uint8_t* k, const uint8_t* v);

 private:
  struct Layer {
    uint32_t capacity = 0;
    uint64_t k_stride = 0;  // capacity rounded up to 4
    uint64_t k_at = 0, v_at = 0;
  };
  KvCacheType type_;
  uint32_t n_ctx_, n_swa_;
  uint64_t head_dim_, kv_dim_;
  std::vector<Layer> layers_;
  std::vector<float> k32_, v32_;
  std::vector<uint16_t> k16_, v16_;
  uint32_t ring_oldest_ = 0;
};

}  // namespace wasmlm
