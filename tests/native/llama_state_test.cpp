// Saving and restoring a context, and truncating it to a shared prefix: the
// logits that follow are those of the uninterrupted sequence, to the bit.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "model/decoder_context.h"
#include "testdata.h"

using namespace wasmlm;

namespace {

std::vector<float> logits_after(DecoderContext& ctx, const std::vector<int32_t>& ids, size_t n_vocab) {
  const float* l = ctx.eval(ids.data(), static_cast<int>(ids.size()));
  return std::vector<float>(l, l + n_vocab);
}

const std::vector<int32_t> kPrompt = {1, 403, 407, 261, 378};
const std::vector<int32_t> kMore = {432, 383, 286};

}  // namespace

TEST(LlamaState, ARestoredContextContinuesExactlyAsTheOriginal) {
  WASMLM_REQUIRE_TESTDATA();
  auto m = wasmlm_test::load_model("synth-kq/synth-kq-Q4_K_M.gguf");
  DecoderModel model(m->file, m->store);
  const size_t nv = model.hparams().n_vocab;
  ThreadPool pool(2);
  for (KvCacheType kv : {KvCacheType::F16, KvCacheType::F32}) {
    DecoderContext original(model, 64, pool, kv);
    const std::vector<float> after_prompt = logits_after(original, kPrompt, nv);
    const std::vector<uint8_t> state = original.save_state();
    const std::vector<float> want = logits_after(original, kMore, nv);

    DecoderContext restored(model, 32, pool, kv);  // a smaller context is fine if the state fits
    restored.load_state(state.data(), state.size());
    EXPECT_EQ(restored.n_past(), kPrompt.size());
    EXPECT_EQ(std::vector<float>(restored.logits(), restored.logits() + nv), after_prompt);
    EXPECT_EQ(logits_after(restored, kMore, nv), want);
  }
}

TEST(LlamaState, TruncatingToASharedPrefixGivesTheFreshSequencesLogits) {
  WASMLM_REQUIRE_TESTDATA();
  auto m = wasmlm_test::load_model("llama/stories260K/stories260K.gguf");
  DecoderModel model(m->file, m->store);
  const size_t nv = model.hparams().n_vocab;
  ThreadPool pool(1);
  DecoderContext ctx(model, 64, pool), fresh(model, 64, pool);
  std::vector<int32_t> a = kPrompt;
  a.insert(a.end(), {300, 301, 302});
  ctx.eval(a.data(), static_cast<int>(a.size()));
  ctx.truncate(static_cast<uint32_t>(kPrompt.size()));
  EXPECT_EQ(ctx.n_past(), kPrompt.size());
  std::vector<int32_t> b = kPrompt;
  b.insert(b.end(), kMore.begin(), kMore.end());
  EXPECT_EQ(logits_after(ctx, kMore, nv), logits_after(fresh, b, nv));
}

TEST(LlamaState, StatesThatDoNotFitAreTypedErrors) {
  WASMLM_REQUIRE_TESTDATA();
  auto m = wasmlm_test::load_model("llama/stories260K/stories260K.gguf");
  DecoderModel model(m->file, m->store);
  ThreadPool pool(1);
  DecoderContext f16(model, 64, pool, KvCacheType::F16), f32(model, 64, pool, KvCacheType::F32), tiny(model, 4, pool);
  f16.eval(kPrompt.data(), static_cast<int>(kPrompt.size()));
  std::vector<uint8_t> state = f16.save_state();
  auto code_of = [](DecoderContext& c, const std::vector<uint8_t>& s) {
    try {
      c.load_state(s.data(), s.size());
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::Internal;  // no error
  };
  EXPECT_EQ(code_of(f32, state), ErrorCode::BadFormat);  // saved with the other cache type
  EXPECT_EQ(code_of(tiny, state), ErrorCode::TooLarge);  // 5 positions, room for 4
  EXPECT_EQ(code_of(f16, std::vector<uint8_t>(state.begin(), state.end() - 1)), ErrorCode::Truncated);
  EXPECT_EQ(code_of(f16, std::vector<uint8_t>(state.begin(), state.begin() + 10)), ErrorCode::Truncated);
  std::vector<uint8_t> bad = state;
  bad[0] = 'X';
  EXPECT_EQ(code_of(f16, bad), ErrorCode::BadFormat);
  EXPECT_EQ(code_of(f16, state), ErrorCode::Internal);  // the intact state loads
}
