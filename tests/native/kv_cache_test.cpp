// KvCache's two-step store (write, then stored), which the forward pass runs
// a task per token: what a write leaves in the cache and what stored records.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/kv_cache.h"

using namespace wasmlm;

namespace {

DecoderHParams two_layers(uint32_t n_swa) {
  DecoderHParams h;
  h.n_layer = 2;
  h.n_head = h.n_head_kv = 2;
  h.head_dim = 32;
  h.n_swa = n_swa;
  h.layers.resize(2);
  h.layers[1].windowed = n_swa > 0;
  return h;
}

}  // namespace

// An inf or NaN marks its layer (attention then converts F16 exactly) in
// every cache type; finite values do not, and other layers stay unmarked.
TEST(KvCache, WriteReportsNonFiniteValuesAndStoredMarksTheirLayer) {
  for (KvCacheType type : {KvCacheType::F32, KvCacheType::F16, KvCacheType::Q8_0}) {
    KvCache cache(two_layers(0), 16, type);
    std::vector<float> k(64, 0.5f), v(64, -0.25f);
    EXPECT_FALSE(cache.write(0, 3, k.data(), v.data())) << kv_cache_type_name(type);
    cache.stored(0, 3, false);
    EXPECT_FALSE(cache.nonfinite(0));
    v[17] = INFINITY;
    EXPECT_TRUE(cache.write(1, 4, k.data(), v.data())) << kv_cache_type_name(type);
    EXPECT_FALSE(cache.nonfinite(1)) << "write alone records nothing";
    cache.stored(1, 4, true);
    EXPECT_TRUE(cache.nonfinite(1));
    EXPECT_FALSE(cache.nonfinite(0));
    v[17] = 0;
    k[40] = NAN;
    EXPECT_TRUE(cache.write(0, 5, k.data(), v.data())) << kv_cache_type_name(type);
    // F16 rounds 70000 to inf: that is what the cache holds
    k[40] = 70000.f;
    EXPECT_EQ(cache.write(0, 6, k.data(), v.data()), type == KvCacheType::F16) << kv_cache_type_name(type);
  }
}

// Writes of distinct positions (as the tasks of a batch make them) leave what
// one store per position leaves.
TEST(KvCache, WritesOfABatchEqualStoresOneByOne) {
  for (KvCacheType type : {KvCacheType::F32, KvCacheType::F16, KvCacheType::Q8_0}) {
    KvCache a(two_layers(0), 16, type), b(two_layers(0), 16, type);
    std::vector<std::vector<float>> k(8, std::vector<float>(64)), v = k;
    for (int p = 0; p < 8; ++p)
      for (int i = 0; i < 64; ++i) {
        k[p][i] = std::sin(0.1f * (p * 64 + i));
        v[p][i] = std::cos(0.3f * (p * 64 + i));
      }
    for (int p = 7; p >= 0; --p) b.stored(0, p, b.write(0, p, k[p].data(), v[p].data()));  // any order
    for (int p = 0; p < 8; ++p) a.store(0, p, k[p].data(), v[p].data());
    std::vector<uint8_t> ka(a.raw_bytes()), va(a.raw_bytes()), kb(b.raw_bytes()), vb(b.raw_bytes());
    for (int p = 0; p < 8; ++p) {
      a.read_raw(0, p, ka.data(), va.data());
      b.read_raw(0, p, kb.data(), vb.data());
      EXPECT_EQ(ka, kb) << kv_cache_type_name(type) << " position " << p;
      EXPECT_EQ(va, vb) << kv_cache_type_name(type) << " position " << p;
    }
  }
}

// stored records how far a windowed layer's ring has moved on.
TEST(KvCache, StoredMovesTheRingsOldestPosition) {
  const uint32_t n_swa = 4, n_ctx = 1024;
  KvCache cache(two_layers(n_swa), n_ctx, KvCacheType::F16);
  ASSERT_TRUE(cache.ring(1));
  const uint32_t cap = cache.capacity(1);
  std::vector<float> k(64, 1.f), v(64, 1.f);
  cache.stored(1, cap - 1, cache.write(1, cap - 1, k.data(), v.data()));
  EXPECT_EQ(cache.ring_oldest(), 0u);
  cache.stored(1, cap + 9, cache.write(1, cap + 9, k.data(), v.data()));
  EXPECT_EQ(cache.ring_oldest(), 10u);
  cache.stored(0, cap + 20, cache.write(0, cap + 20, k.data(), v.data()));  // a layer without a ring
  EXPECT_EQ(cache.ring_oldest(), 10u);
}
