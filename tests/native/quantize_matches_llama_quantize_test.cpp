// The reference quantizers reproduce llama-quantize's output bit for bit:
// quantizing the F32 source model's tensors gives exactly the blocks stored
// in the files llama.cpp quantized from it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "format/incremental_parser.h"
#include "quant/quant_traits.h"
#include "testdata.h"

using namespace wasmlm;
namespace fs = std::filesystem;

namespace {

fs::path testdata() { return fs::path(wasmlm_test::testdata_dir()); }

std::vector<uint8_t> read_file(const fs::path& p) { return wasmlm_test::read_file(p.string()); }

struct Loaded {
  std::vector<uint8_t> bytes;
  ModelFile dir;
};

Loaded load(const fs::path& p) {
  Loaded l;
  l.bytes = read_file(p);
  l.dir = read_model_directory(l.bytes.data(), l.bytes.size());
  return l;
}

// Returns the number of tensors compared; records mismatching ones.
int compare_requantized(const Loaded& source, const Loaded& quantized, std::map<std::string, int>& per_type) {
  int compared = 0;
  for (const TensorInfo& q : quantized.dir.tensors) {
    const QuantTraits& traits = quant_traits(q.type);
    const TensorInfo* src = source.dir.find_tensor(q.name);
    if (!traits.from_float || !src || src->type != GgmlType::F32 || q.type == GgmlType::F32) continue;
    std::vector<float> x(src->n_elements());
    std::memcpy(x.data(), source.bytes.data() + src->offset, src->nbytes);
    std::vector<uint8_t> out(q.nbytes);
    const uint64_t row = q.ne[0], rows = q.n_elements() / row;
    const uint64_t row_bytes = q.nbytes / rows;
    for (uint64_t r = 0; r < rows; ++r)
      traits.from_float(x.data() + r * row, out.data() + r * row_bytes, static_cast<int64_t>(row));
    const uint8_t* want = quantized.bytes.data() + q.offset;
    uint64_t differing = 0;
    for (uint64_t i = 0; i < q.nbytes; ++i) differing += out[i] != want[i];
    EXPECT_EQ(differing, 0u) << q.name << " (" << ggml_type_info(q.type).name << "): " << differing << " of "
                             << q.nbytes << " bytes differ";
    ++per_type[ggml_type_info(q.type).name];
    ++compared;
  }
  return compared;
}

}  // namespace

TEST(QuantizeReference, RequantizingTheF32ModelReproducesLlamaQuantizeOutput) {
  WASMLM_REQUIRE_TESTDATA();
  std::map<std::string, int> per_type;
  Loaded synth = load(testdata() / "synth-kq/synth-kq-F32.gguf");
  for (const char* name : {"synth-kq-pure-Q4_0", "synth-kq-pure-Q4_1", "synth-kq-pure-Q5_0", "synth-kq-pure-Q5_1",
                           "synth-kq-pure-Q4_K", "synth-kq-pure-Q5_K", "synth-kq-pure-IQ4_NL", "synth-kq-pure-TQ1_0",
                           "synth-kq-pure-TQ2_0", "synth-kq-Q6_K",
                           "synth-kq-Q8_0", "synth-kq-F16", "synth-kq-BF16"}) {
    SCOPED_TRACE(name);
    EXPECT_GT(compare_requantized(synth, load(testdata() / "synth-kq" / (std::string(name) + ".gguf")), per_type), 0);
  }
  Loaded stories = load(testdata() / "llama/stories260K/stories260K.gguf");
  for (const char* name : {"stories260K-lq-Q8_0", "stories260K-lq-Q4_K_M", "stories260K-lq-Q3_K_M", "stories260K-lq-F16",
                           "stories260K-lq-BF16"}) {
    fs::path p = testdata() / "llama/stories260K/derived" / (std::string(name) + ".gguf");
    if (!fs::exists(p)) continue;
    SCOPED_TRACE(name);
    compare_requantized(stories, load(p), per_type);
  }
  for (const char* type : {"Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q4_K", "Q5_K", "Q6_K", "IQ4_NL", "TQ1_0", "TQ2_0", "F16", "BF16"})
    EXPECT_GT(per_type[type], 0) << type << " was not compared";
  for (auto& [type, n] : per_type) std::printf("  %s: %d tensors bit-exact\n", type.c_str(), n);
}
