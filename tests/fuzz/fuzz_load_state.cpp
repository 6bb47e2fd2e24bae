// libFuzzer target: saved states (the bytes loadState takes) on arbitrary
// bytes, loaded into fresh sequences of tiny in-process models. The first
// byte picks the model: the decoder whose first layer's window keeps a ring,
// with an F16 or an F32 KV cache, or RWKV v4 or v7. A blob in the envelope
// the bindings hand out (magic WLME) is unwrapped first, as loadState does,
// with the model's fingerprint and an empty token list; a bare one is the
// model's state itself (the envelope's checksum would keep mutations from
// reaching it). A state that loads must save, load again and save to the
// same bytes, and evaluate a token after it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "compute/thread_pool.h"
#include "format/incremental_parser.h"
#include "model/sequence_model.h"
#include "model/state_envelope.h"
#include "support.h"
#include "tiny_models.h"

namespace {

struct TinyModel {
  wasmlm::WeightStore store;
  wasmlm::ModelFile file;
  wasmlm::SequenceOptions options;
  uint64_t fingerprint = 0;
};

constexpr int kModels = 4;

const TinyModel& tiny_model(int which) {
  static std::unique_ptr<TinyModel> models[kModels];
  std::unique_ptr<TinyModel>& m = models[which];
  if (!m) {
    m = std::make_unique<TinyModel>();
    const std::vector<uint8_t> bytes = wasmlm_test::write_gguf(
        which < 2 ? wasmlm_fuzz::tiny_decoder_spec() : wasmlm_fuzz::tiny_rwkv_spec(which == 2 ? 4 : 7)).bytes;
    m->file = wasmlm::load_weights(bytes.size(), wasmlm::read_from_memory(bytes.data(), bytes.size()), m->store);
    m->options.n_ctx = 320;  // more than the window's ring of 4 + 256 positions
    m->options.kv_type = which == 1 ? wasmlm::KvCacheType::F32 : wasmlm::KvCacheType::F16;
    wasmlm::ThreadPool pool(1);
    m->fingerprint = wasmlm::model_fingerprint(m->file, m->store,
                                               wasmlm::open_sequence_model(m->file, m->store, pool, m->options)->n_vocab());
  }
  return *m;
}

std::unique_ptr<wasmlm::SequenceModel> open(int which, wasmlm::ThreadPool& pool) {
  const TinyModel& m = tiny_model(which);
  return wasmlm::open_sequence_model(m.file, m.store, pool, m.options);
}

// States after a few tokens and, for the decoder, after its ring wrapped;
// a version 1 state (no ring position); each bare and in an envelope, with
// its model byte in front.
std::vector<std::vector<uint8_t>> seeds() {
  std::vector<std::vector<uint8_t>> out;
  wasmlm::ThreadPool pool(1);
  for (int which = 0; which < kModels; ++which)
    for (int n : {3, 290}) {
      if (which >= 2 && n > 3) continue;
      auto model = open(which, pool);
      std::vector<int32_t> tokens(n);
      for (int i = 0; i < n; ++i) tokens[i] = i % 16;
      model->eval(tokens.data(), n);
      std::vector<uint8_t> state = model->save_state();
      std::vector<uint8_t> wrapped = wasmlm::wrap_state(state, tiny_model(which).fingerprint, {});
      wrapped.insert(wrapped.begin(), static_cast<uint8_t>(which));
      out.push_back(wrapped);
      state.insert(state.begin(), static_cast<uint8_t>(which));
      out.push_back(state);
      if (which == 0 && n == 3) {  // version 1: 32-byte header, no ring_first
        std::vector<uint8_t> v1 = state;
        v1[5] = 1;
        v1.erase(v1.begin() + 33, v1.begin() + 37);
        out.push_back(v1);
      }
    }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  wasmlm_fuzz::write_seeds_if_asked("fuzz_load_state", seeds);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % kModels;
  wasmlm::ThreadPool pool(1);
  auto model = open(which, pool);
  const bool loaded = wasmlm_fuzz::succeeds([&] {
    if (size >= 5 && std::memcmp(data + 1, "WLME", 4) == 0) {
      const wasmlm::StatePayload state = wasmlm::unwrap_state(data + 1, size - 1, tiny_model(which).fingerprint, {});
      model->load_state(state.data, state.size);
    } else {
      model->load_state(data + 1, size - 1);
    }
  });
  if (!loaded) return 0;
  const std::vector<uint8_t> saved = model->save_state();
  auto again = open(which, pool);
  again->load_state(saved.data(), saved.size());  // a wasmlm::Error here is a finding too
  FUZZ_CHECK(again->save_state() == saved);
  FUZZ_CHECK(again->n_past() == model->n_past());
  const int32_t token = 1;
  if (model->n_ctx() == 0 || model->n_past() < model->n_ctx()) FUZZ_CHECK(model->eval(&token, 1) != nullptr);
  return 0;
}
