// Every real model file under ../shared/testdata (GGUF v1-v3, rwkv.cpp .bin,
// GGJT) parses to exactly its last byte, lists the tensors the references
// list (names, types, shapes), and streams through IncrementalParser to the
// same directory with every tensor's bytes delivered from its offset.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "model_compare.h"
#include "stream_parse.h"
#include "testdata.h"

namespace wasmlm_test {
namespace {

using json = nlohmann::json;
using wasmlm::FileFormat;
using wasmlm::ModelFile;
using wasmlm::TensorInfo;

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }
bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

const json& load_json(const std::string& rel) {
  static std::map<std::string, json> cache;
  auto it = cache.find(rel);
  if (it == cache.end()) {
    std::ifstream f(testdata_dir() + "/" + rel);
    it = cache.emplace(rel, f ? json::parse(f) : json::object()).first;
  }
  return it->second;
}

const json& stories_dequant() { return load_json("llama/stories260K/reference/dequant-reference.json"); }
const json& synth_dequant() { return load_json("synth-kq/reference/dequant-reference.json"); }

// synth-kq/tensor-types.jsonl, one JSON object per line, by file name.
const std::map<std::string, json>& synth_tensor_types() {
  static std::map<std::string, json> by_file = [] {
    std::map<std::string, json> m;
    std::ifstream f(testdata_dir() + "/synth-kq/tensor-types.jsonl");
    for (std::string line; std::getline(f, line);)
      if (!line.empty()) {
        json j = json::parse(line);
        m[j.at("file").get<std::string>()] = j;
      }
    return m;
  }();
  return by_file;
}

std::string type_name(const TensorInfo& t) { return wasmlm::ggml_type_info(t.type).name; }

std::vector<uint64_t> shape(const TensorInfo& t) { return std::vector<uint64_t>(t.ne.begin(), t.ne.begin() + t.n_dims); }

uint64_t array_count(const ModelFile& m, const std::string& key) {
  const wasmlm::MetaValue* v = m.metadata.find(key);
  if (!v || v->type != wasmlm::MetaType::Array || !v->array) return 0;
  return v->array->count;
}

// Names of "<prefix>N." layers: the number of distinct N.
size_t count_layers(const ModelFile& m, const std::string& prefix) {
  std::set<std::string> ids;
  for (const auto& t : m.tensors)
    if (starts_with(t.name, prefix)) ids.insert(t.name.substr(prefix.size(), t.name.find('.', prefix.size()) - prefix.size()));
  return ids.size();
}

// Names, shapes (ggml order) and, if `check_types`, types equal a dequant-reference entry.
void expect_matches_dequant_reference(const ModelFile& m, const json& ref, bool check_types) {
  ASSERT_TRUE(ref.is_object() && !ref.empty()) << "no reference entry";
  EXPECT_EQ(m.tensors.size(), ref.size());
  for (const auto& [name, r] : ref.items()) {
    const TensorInfo* t = m.find_tensor(name);
    if (!t) {
      ADD_FAILURE() << "tensor '" << name << "' of the reference is missing";
      continue;
    }
    EXPECT_EQ(shape(*t), r.at("shape").get<std::vector<uint64_t>>()) << name;
    EXPECT_EQ(t->n_elements(), r.at("n").get<uint64_t>()) << name;
    if (check_types) { EXPECT_EQ(type_name(*t), r.at("type").get<std::string>()) << name; }
  }
}

// One test per folder of testdata, looping over its files.
class RealFiles : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { WASMLM_REQUIRE_TESTDATA(); }

  struct File {
    std::string rel;
    std::vector<uint8_t> bytes;
    ModelFile model;
  };

  // Runs `check` on each file of the group (parsed once), tracing its name.
  template <typename Check>
  void for_each_file(Check check) {
    std::vector<std::string> files = files_in_group(GetParam());
    ASSERT_FALSE(files.empty());
    for (const auto& rel : files) {
      SCOPED_TRACE(rel);
      File f{rel, read_file(testdata_dir() + "/" + rel), {}};
      ASSERT_FALSE(f.bytes.empty());
      try {
        f.model = wasmlm::read_model_directory(f.bytes.data(), f.bytes.size());
      } catch (const wasmlm::Error& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      check(f);
    }
  }
};

void check_parses_to_last_byte(const std::vector<uint8_t>& bytes, const ModelFile& m) {
  bool gguf = m.format == FileFormat::Gguf;
  EXPECT_EQ(m.file_size, bytes.size());
  EXPECT_EQ(m.trailing_bytes, 0u);
  // Tensor data ranges lie in the file, in order, without overlap.
  std::vector<const TensorInfo*> order;
  for (const auto& t : m.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  uint64_t end = 0;
  for (const TensorInfo* t : order) {
    EXPECT_GE(t->offset, end) << t->name << " overlaps the previous tensor";
    EXPECT_EQ(t->offset % m.alignment, 0u) << t->name;
    EXPECT_LE(t->offset + t->nbytes, bytes.size()) << t->name;
    end = std::max(end, t->offset + t->nbytes);
  }
  if (!m.tensors.empty()) {
    if (gguf) {
      EXPECT_LE(m.data_offset, order.front()->offset);
      EXPECT_EQ(align_up(end, m.alignment), bytes.size()) << "last tensor ends at " << end;
    } else {
      EXPECT_EQ(end, bytes.size());
    }
    return;
  }
  // A vocabulary-only GGUF: its header ends exactly at the last byte.
  ASSERT_TRUE(gguf);
  EXPECT_EQ(m.data_offset, align_up(bytes.size(), m.alignment));
  try {
    wasmlm::read_model_directory(bytes.data(), bytes.size() - 1);
    ADD_FAILURE() << "the file without its last byte parsed";
  } catch (const wasmlm::Error& e) {
    EXPECT_EQ(e.code(), wasmlm::ErrorCode::Truncated) << e.what();
  }
}

TEST_P(RealFiles, ParseToExactlyTheirLastByte) {
  for_each_file([](const File& f) { check_parses_to_last_byte(f.bytes, f.model); });
}

TEST_P(RealFiles, StreamIn64KBChunksToTheSameDirectoryAndTensorBytes) {
  for_each_file([](const File& f) {
    Streamed s = stream_parse(f.bytes.data(), f.bytes.size(), [] { return size_t(64) << 10; });
    EXPECT_TRUE(s.problems.empty()) << s.problems.front();
    EXPECT_EQ(model_diff(s.file, f.model), "");
    ASSERT_EQ(s.tensor_bytes.size(), f.model.tensors.size());
    for (size_t i = 0; i < f.model.tensors.size(); ++i) {
      const TensorInfo& t = f.model.tensors[i];
      ASSERT_EQ(s.tensor_bytes[i].size(), t.nbytes) << t.name;
      EXPECT_EQ(std::memcmp(s.tensor_bytes[i].data(), f.bytes.data() + t.offset, t.nbytes), 0) << t.name;
    }
  });
}

TEST_P(RealFiles, StreamWithUnknownSizeToTheSameDirectory) {
  for_each_file([](const File& f) {
    Streamed s = stream_parse(f.bytes.data(), f.bytes.size(), [] { return size_t(100000); }, StreamOptions{false, false});
    EXPECT_TRUE(s.problems.empty()) << s.problems.front();
    EXPECT_EQ(model_diff(s.file, f.model), "");
  });
}

// --- what each file holds ----------------------------------------------------

void check_stories_like(const ModelFile& m, const std::string& name) {
  // stories260K.gguf and its crabml (v1, F32) and llama4j (v2, Q8_0) copies:
  // the names and shapes of the llama.cpp-quantized derived files.
  const json& ref = stories_dequant().at("stories260K-py-Q8_0.gguf");
  EXPECT_EQ(m.tensors.size(), 48u);
  expect_matches_dequant_reference(m, ref, false);
  bool q8 = name.find("q8_0") != std::string::npos;
  size_t n_q8 = 0;
  for (const auto& t : m.tensors) {
    if (q8 && t.n_dims == 2) {
      EXPECT_EQ(type_name(t), "Q8_0") << t.name;
      ++n_q8;
    } else {
      EXPECT_EQ(type_name(t), "F32") << t.name;
    }
  }
  if (q8) {
    EXPECT_EQ(n_q8, 37u);
    // 172-wide ffn_down rows: Q8_0 blocks run across row ends.
    EXPECT_FALSE(m.find_tensor("blk.0.ffn_down.weight")->rows_block_aligned());
    EXPECT_FALSE(m.warnings.empty());
  }
}

// LLaMA GGUFs: hyperparameters agree with the tensors.
void check_llama_hparams(const ModelFile& m) {
  auto n_embd = m.metadata.get_uint("llama.embedding_length");
  auto n_layer = m.metadata.get_uint("llama.block_count");
  ASSERT_TRUE(n_embd && n_layer);
  uint64_t n_vocab = array_count(m, "tokenizer.ggml.tokens");
  EXPECT_GT(n_vocab, 0u);
  const TensorInfo* emb = m.find_tensor("token_embd.weight");
  ASSERT_NE(emb, nullptr);
  EXPECT_EQ(shape(*emb), (std::vector<uint64_t>{*n_embd, n_vocab}));
  EXPECT_EQ(count_layers(m, "blk."), *n_layer);
}

// Vocabulary sizes of the upstream tokenizers in llama.cpp's models/ folder.
const std::map<std::string, uint64_t> kVocabSizes = {
    {"ggml-vocab-baichuan.gguf", 64000},   {"ggml-vocab-bert-bge.gguf", 30522},
    {"ggml-vocab-deepseek-coder.gguf", 32256}, {"ggml-vocab-deepseek-llm.gguf", 102400},
    {"ggml-vocab-falcon.gguf", 65024},     {"ggml-vocab-gpt-2.gguf", 50257},
    {"ggml-vocab-gpt-neox.gguf", 50432},   {"ggml-vocab-llama-spm.gguf", 32000},
    {"ggml-vocab-mpt.gguf", 50432},        {"ggml-vocab-phi-3.gguf", 32064},
    {"ggml-vocab-refact.gguf", 49216},     {"ggml-vocab-starcoder.gguf", 49152},
    {"ggml-vocab-llama.v1.gguf", 32000},
};

void check_vocab_only(const ModelFile& m, const std::string& name) {
  EXPECT_TRUE(m.tensors.empty());
  uint64_t n = array_count(m, "tokenizer.ggml.tokens");
  auto it = kVocabSizes.find(name);
  ASSERT_NE(it, kVocabSizes.end()) << "no expected vocabulary size for " << name;
  EXPECT_EQ(n, it->second);
  EXPECT_EQ(array_count(m, "tokenizer.ggml.token_type"), n);
  if (m.metadata.find("tokenizer.ggml.scores")) { EXPECT_EQ(array_count(m, "tokenizer.ggml.scores"), n); }
  if (auto arch = m.metadata.get_string("general.architecture"))
    if (auto v = m.metadata.get_uint(*arch + ".vocab_size")) { EXPECT_EQ(*v, n); }
  const auto* tokens = m.metadata.find("tokenizer.ggml.tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->array->strings.size(), n);
}

void check_rwkv(const ModelFile& m) {
  EXPECT_EQ(m.format, FileFormat::RwkvBin);
  auto n_vocab = m.metadata.get_uint("rwkv.vocab_size");
  auto n_embd = m.metadata.get_uint("rwkv.embedding_length");
  auto n_layer = m.metadata.get_uint("rwkv.block_count");
  ASSERT_TRUE(n_vocab && n_embd && n_layer);
  EXPECT_EQ(*n_vocab, 256u);  // byte-level vocabulary
  const TensorInfo* emb = m.find_tensor("emb.weight");
  ASSERT_NE(emb, nullptr);
  EXPECT_EQ(shape(*emb), (std::vector<uint64_t>{*n_embd, *n_vocab}));
  EXPECT_EQ(count_layers(m, "blocks."), *n_layer);
  const TensorInfo* head = m.find_tensor("head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(shape(*head), (std::vector<uint64_t>{*n_embd, *n_vocab}));
}

void check_ggjt(const ModelFile& m) {
  EXPECT_EQ(m.format, FileFormat::Ggjt);
  EXPECT_EQ(m.version, 3u);
  EXPECT_EQ(m.tensors.size(), 75u);
  EXPECT_EQ(m.metadata.get_uint("llama.vocab_size"), 32000u);
  EXPECT_EQ(array_count(m, "tokenizer.ggml.tokens"), 32000u);
  EXPECT_EQ(array_count(m, "tokenizer.ggml.scores"), 32000u);
  EXPECT_EQ(m.metadata.get_uint("llama.embedding_length"), 64u);
  EXPECT_EQ(m.metadata.get_uint("llama.block_count"), 8u);
  // Tensors under llama.cpp's GGUF names (tok_embeddings.weight in the file).
  EXPECT_EQ(count_layers(m, "blk."), 8u);
  const TensorInfo* emb = m.find_tensor("token_embd.weight");
  ASSERT_NE(emb, nullptr);
  EXPECT_EQ(shape(*emb), (std::vector<uint64_t>{64, 32000}));
  for (const auto& t : m.tensors) EXPECT_EQ(type_name(t), t.n_dims == 1 ? "F32" : "Q4_0") << t.name;
}

void check_references(const std::string& rel, const ModelFile& m) {
  std::string name = base_name(rel);
  if (starts_with(rel, "synth-kq/")) {
    auto it = synth_tensor_types().find(name);
    ASSERT_NE(it, synth_tensor_types().end()) << "not in tensor-types.jsonl";
    const json& tt = it->second;
    EXPECT_EQ(m.tensors.size(), tt.at("n_tensors").get<size_t>());
    for (const auto& [tname, type] : tt.at("tensors").items()) {
      const TensorInfo* t = m.find_tensor(tname);
      ASSERT_NE(t, nullptr) << tname;
      EXPECT_EQ(type_name(*t), type.get<std::string>()) << tname;
    }
    expect_matches_dequant_reference(m, synth_dequant().at(name), true);
    check_llama_hparams(m);
  } else if (starts_with(rel, "llama/stories260K/derived/")) {
    expect_matches_dequant_reference(m, stories_dequant().at(name), true);
    EXPECT_EQ(m.tensors.size(), 48u);
    check_llama_hparams(m);
  } else if (starts_with(rel, "llama/stories260K/")) {
    check_stories_like(m, name);
    EXPECT_EQ(m.version, name.find("crabml") != std::string::npos ? 1u : name.find("llama4j") != std::string::npos ? 2u : 3u);
    check_llama_hparams(m);
  } else if (rel == "llama/tiny-random/llama-2-tiny-random.gguf") {
    const json& ref = load_json("llama/tiny-random/reference/reference-output.json");
    EXPECT_EQ(m.tensors.size(), 12u);
    EXPECT_EQ(m.metadata.get_uint("llama.embedding_length"), 8u);
    EXPECT_EQ(m.metadata.get_uint("llama.block_count"), 1u);
    EXPECT_EQ(array_count(m, "tokenizer.ggml.tokens"), ref.at("n_vocab").get<uint64_t>());
    check_llama_hparams(m);
  } else if (starts_with(rel, "tokenizers/")) {
    check_vocab_only(m, name);
    EXPECT_EQ(m.version, rel.find("old-gguf-v1") != std::string::npos ? 1u : 3u);
  } else if (starts_with(rel, "rwkv/")) {
    check_rwkv(m);
  } else if (starts_with(rel, "legacy/")) {
    check_ggjt(m);
  } else {
    ADD_FAILURE() << "no expectations for " << rel << ": add them to real_files_test.cpp";
  }
}

TEST_P(RealFiles, MatchTheReferencesInTensorsAndHyperparameters) {
  for_each_file([](const File& f) { check_references(f.rel, f.model); });
}

INSTANTIATE_TEST_SUITE_P(Testdata, RealFiles, ::testing::ValuesIn(testdata_groups()),
                         [](const auto& info) { return param_name(info.param); });

// --- across files --------------------------------------------------------------

std::set<std::string> present_file_names() {
  std::set<std::string> names;
  for (const auto& rel : real_model_files()) names.insert(base_name(rel));
  return names;
}

TEST(RealFilesReferences, EveryReferencedFileIsPresent) {
  WASMLM_REQUIRE_TESTDATA();
  std::set<std::string> present = present_file_names();
  size_t n = 0;
  for (const json* ref : {&stories_dequant(), &synth_dequant()})
    for (const auto& [file, _] : ref->items()) {
      EXPECT_TRUE(present.count(file)) << file;
      ++n;
    }
  for (const auto& [file, _] : synth_tensor_types()) EXPECT_TRUE(present.count(file)) << file;
  EXPECT_EQ(n, 12u + 34u);
  EXPECT_EQ(synth_tensor_types().size(), 34u);
}

TEST(RealFilesReferences, RwkvFilesOfOneModelHaveIdenticalNamesAndShapes) {
  WASMLM_REQUIRE_TESTDATA();
  // tiny-rwkv-<model>-<type>.bin, grouped by <model>.
  std::map<std::string, std::vector<std::string>> groups;
  for (const auto& rel : real_model_files()) {
    if (!starts_with(rel, "rwkv/")) continue;
    std::string name = base_name(rel);
    groups[name.substr(0, name.rfind('-'))].push_back(rel);
  }
  EXPECT_EQ(groups.size(), 6u);
  for (const auto& [model, files] : groups) {
    SCOPED_TRACE(model);
    EXPECT_EQ(files.size(), model == "tiny-rwkv-6v0-3m" ? 2u : 4u);
    std::vector<std::pair<std::string, std::vector<uint64_t>>> first;
    for (const auto& rel : files) {
      auto bytes = read_file(testdata_dir() + "/" + rel);
      ModelFile m = wasmlm::read_model_directory(bytes.data(), bytes.size());
      std::vector<std::pair<std::string, std::vector<uint64_t>>> names_shapes;
      for (const auto& t : m.tensors) names_shapes.emplace_back(t.name, shape(t));
      if (first.empty()) first = names_shapes;
      else EXPECT_TRUE(names_shapes == first) << rel << " differs from " << files.front();
      std::string type = base_name(rel).substr(base_name(rel).rfind('-') + 1);
      type = type.substr(0, type.find('.'));
      EXPECT_EQ(m.metadata.get_string("general.file_type"), type) << rel;
    }
  }
}

TEST(RealFilesReferences, DerivedStories260KFilesShareNamesAndShapes) {
  WASMLM_REQUIRE_TESTDATA();
  const json& ref = stories_dequant();
  const json& base = ref.at("stories260K-py-Q8_0.gguf");
  for (const auto& [file, tensors] : ref.items()) {
    ASSERT_EQ(tensors.size(), base.size()) << file;
    for (const auto& [name, r] : tensors.items())
      EXPECT_EQ(r.at("shape"), base.at(name).at("shape")) << file << " " << name;
  }
}

}  // namespace
}  // namespace wasmlm_test
