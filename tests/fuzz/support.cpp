#include "support.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "compute/thread_pool.h"
#include "model/sequence_model.h"
#include "tokenizer/tokenizer.h"

namespace wasmlm_fuzz {

void invariant_failed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, condition);
  std::abort();
}

std::vector<std::string_view> split_parts(const uint8_t* data, size_t size, size_t max_parts) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const size_t at = rest.find(kPartSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + kPartSeparator.size());
  }
  parts.push_back(rest);
  return parts;
}

void exercise_tokenizer(const wasmlm::Tokenizer& t) {
  static const char* const kTexts[] = {
      "Hello  world! It's 2024: 3.14159 \t\n\n  x",
      "<s></s><|begin_of_text|><|endoftext|><|im_start|>user\n<start_of_turn><bos>[INST]<unk><pad>",
      ("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82 \xF0\x9F\x98\x80\xE2\x96\x81 "
       "\xC3\xA9\xCC\x81 \xEF\xBC\xA1"),
      "\xFF\xFE invalid \xC0\x80 utf-8 \xED\xA0\x80",
      "",
      " ",
  };
  for (const char* text : kTexts)
    for (int flags = 0; flags < 8; ++flags) {
      const std::vector<int32_t> ids = t.encode(text, {bool(flags & 1), bool(flags & 2), bool(flags & 4)});
      for (int32_t id : ids) FUZZ_CHECK(id >= 0 && static_cast<size_t>(id) < t.n_vocab());
      (void)t.decode(ids, {bool(flags & 1), bool(flags & 2)});
    }
  std::vector<int32_t> ends;
  for (size_t i = 0; i < t.n_vocab() && i < 64; ++i) ends.push_back(static_cast<int32_t>(i));
  for (size_t i = t.n_vocab() > 64 ? t.n_vocab() - 64 : t.n_vocab(); i < t.n_vocab(); ++i)
    ends.push_back(static_cast<int32_t>(i));
  (void)t.decode(ends, {true, false});
  (void)t.decode(ends, {false, true});
}

bool run_model(const wasmlm::ModelFile& file, const wasmlm::WeightStore& store, bool kv_f16) {
  const bool directory_ok = succeeds([&] { wasmlm::check_model_directory(file); });
  const bool ran = succeeds([&] {
    wasmlm::ThreadPool pool(1);
    wasmlm::SequenceOptions options;
    options.n_ctx = 320;
    options.kv_type = kv_f16 ? wasmlm::KvCacheType::F16 : wasmlm::KvCacheType::F32;
    const std::unique_ptr<wasmlm::SequenceModel> model = wasmlm::open_sequence_model(file, store, pool, options);
    const int32_t last = static_cast<int32_t>(model->n_vocab()) - 1;
    const int32_t tokens[2] = {0, last};
    FUZZ_CHECK(model->eval(tokens, 2) != nullptr);
    FUZZ_CHECK(model->n_past() == 2 && model->logits() != nullptr);
  });
  FUZZ_CHECK(directory_ok || !ran);  // what the directory check refuses must not run
  return ran;
}

void write_seeds_if_asked(const char* target, const std::function<std::vector<std::vector<uint8_t>>()>& make) {
  const char* dir = std::getenv("WASMLM_FUZZ_WRITE_SEEDS");
  if (!dir) return;
  const std::vector<std::vector<uint8_t>> seeds = make();
  for (size_t i = 0; i < seeds.size(); ++i) {
    const std::string path = std::string(dir) + "/" + target + "-generated-" + std::to_string(i);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(seeds[i].data(), 1, seeds[i].size(), f) != seeds[i].size() || std::fclose(f) != 0) {
      std::perror(path.c_str());
      std::exit(1);
    }
  }
  std::exit(0);
}

}  // namespace wasmlm_fuzz
