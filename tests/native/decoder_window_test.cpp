// Sliding-window layers keep a ring of their last positions (Gemma 3 test
// model: window 8, 10 windowed and 2 global layers): memory, going back to a
// shared prefix, and saved states, each giving the bits of an uninterrupted
// sequence. Built into the native and the wasm suites alike.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "core/error.h"
#include "decoder_test_models.h"
#include "model/decoder_context.h"

using namespace wasmlm;

namespace {

std::vector<int32_t> ids(int n, int seed) {
  std::vector<int32_t> out;
  for (int i = 0; i < n; ++i) out.push_back(3 + (i * 131 + seed * 17) % 509);
  return out;
}

std::vector<float> eval(DecoderContext& ctx, const std::vector<int32_t>& t, size_t n_vocab) {
  const float* l = ctx.eval(t.data(), static_cast<int>(t.size()));
  return std::vector<float>(l, l + n_vocab);
}

std::vector<int32_t> concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST(DecoderWindow, WindowedLayersKeepARingOfWindowPlusSlackPositions) {
  WASMLM_LOAD_DECODER_MODEL(m, "gemma3-F32.gguf");
  const DecoderHParams& h = m->model->hparams();
  ASSERT_EQ(h.n_swa, 8u);
  int windowed = 0;
  for (const DecoderLayerParams& l : h.layers) windowed += l.windowed;
  ASSERT_EQ(windowed, 10);  // layers 5 and 11 are global
  ThreadPool pool(1);
  DecoderContext ctx(*m->model, 4096, pool, KvCacheType::F16);
  const uint64_t ring = 8 + KvCache::kRingSlack, row = 2 * h.kv_dim() * 2;  // K and V, F16
  EXPECT_EQ(ctx.kv_cache().capacity(0), ring);
  EXPECT_EQ(ctx.kv_cache().capacity(5), 4096u);
  EXPECT_EQ(ctx.kv_cache_bytes(), (10 * ring + 2 * 4096) * row + 4 * KvCache::padding(h.head_dim));
  // A context no longer than window + slack keeps every position.
  DecoderContext small(*m->model, 200, pool, KvCacheType::F16);
  EXPECT_FALSE(small.kv_cache().ring(0));
}

TEST(DecoderWindow, GoingBackWithinTheRingGivesTheFreshSequencesBits) {
  WASMLM_LOAD_DECODER_MODEL(m, "gemma3-F32.gguf");
  const size_t nv = m->model->hparams().n_vocab;
  ThreadPool pool(2);
  const std::vector<int32_t> a = ids(300, 1), more = ids(5, 2);  // 300 > the ring's 264: it has wrapped
  DecoderContext ctx(*m->model, 1024, pool);
  eval(ctx, a, nv);
  EXPECT_EQ(ctx.kv_cache().ring_oldest(), 300u - 264u);
  // Back to 290: its window (283..290) is still in the ring.
  ASSERT_TRUE(ctx.truncate(290));
  EXPECT_EQ(ctx.n_past(), 290u);
  const std::vector<int32_t> prefix(a.begin(), a.begin() + 290);
  DecoderContext fresh(*m->model, 1024, pool);
  EXPECT_EQ(eval(ctx, more, nv), eval(fresh, concat(prefix, more), nv));
  // Back to 20: positions 13..19 were overwritten; nothing is forgotten.
  EXPECT_FALSE(ctx.truncate(20));
  EXPECT_EQ(ctx.n_past(), 295u);
  // Starting over always works.
  ctx.reset();
  EXPECT_TRUE(ctx.truncate(0));
  DecoderContext again(*m->model, 1024, pool);
  EXPECT_EQ(eval(ctx, prefix, nv), eval(again, prefix, nv));
}

TEST(DecoderWindow, ARestoredRingContinuesExactlyAsTheOriginal) {
  WASMLM_LOAD_DECODER_MODEL(m, "gemma3-F32.gguf");
  const size_t nv = m->model->hparams().n_vocab;
  ThreadPool pool(2);
  for (KvCacheType kv : {KvCacheType::F16, KvCacheType::F32, KvCacheType::Q8_0}) {
    SCOPED_TRACE(kv_cache_type_name(kv));
    DecoderContext original(*m->model, 1024, pool, kv);
    eval(original, ids(300, 3), nv);
    const std::vector<uint8_t> state = original.save_state();
    const std::vector<float> want = eval(original, ids(7, 4), nv);
    // The windowed layers saved only what their rings held (264 of 300 positions).
    const uint64_t kv_dim = m->model->hparams().kv_dim();
    const uint64_t row = 2 * (kv == KvCacheType::Q8_0 ? kv_dim / 32 * 34 : kv_dim * (kv == KvCacheType::F16 ? 2 : 4));
    EXPECT_EQ(state.size(), 36 + 4 * nv + (10 * 264 + 2 * 300) * row);
    DecoderContext restored(*m->model, 600, pool, kv);
    restored.load_state(state.data(), state.size());
    EXPECT_EQ(restored.n_past(), 300u);
    EXPECT_EQ(eval(restored, ids(7, 4), nv), want);
  }
}
