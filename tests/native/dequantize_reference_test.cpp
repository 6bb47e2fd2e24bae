// Every tensor of every quantized file in ../shared/testdata dequantizes to
// what llama.cpp's gguf-py gives: element count, sum, sum of squares and the
// first 32 values (dequant-reference.json).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "format/incremental_parser.h"
#include "quant/quant_traits.h"
#include "testdata.h"

using namespace wasmlm;
namespace fs = std::filesystem;

namespace {

fs::path reference_testdata() { return fs::path(wasmlm_test::testdata_dir()); }

std::vector<uint8_t> read_file(const fs::path& p) { return wasmlm_test::read_file(p.string()); }

struct Summary {
  uint64_t n = 0;
  double sum = 0, sumsq = 0;
  std::vector<float> first32;
};

Summary dequantize_summary(const std::vector<uint8_t>& file, const TensorInfo& t) {
  std::vector<float> out(t.n_elements());
  // Copy to an aligned buffer: record formats place tensors at any offset.
  std::vector<uint64_t> aligned((t.nbytes + 7) / 8);
  std::memcpy(aligned.data(), file.data() + t.offset, t.nbytes);
  quant_traits(t.type).to_float(aligned.data(), out.data(), static_cast<int64_t>(out.size()));
  Summary s;
  s.n = out.size();
  for (float v : out) {
    s.sum += v;
    s.sumsq += double(v) * v;
  }
  s.first32.assign(out.begin(), out.begin() + std::min<size_t>(32, out.size()));
  return s;
}

void check_reference_file(const fs::path& json_path, std::set<std::string>& types_checked,
                          std::set<std::string>& types_pending) {
  std::ifstream in(json_path);
  nlohmann::json ref = nlohmann::json::parse(in);
  for (auto& [file_name, tensors] : ref.items()) {
    fs::path model = json_path.parent_path().parent_path() / file_name;
    if (!fs::exists(model)) model = json_path.parent_path().parent_path() / "derived" / file_name;
    ASSERT_TRUE(fs::exists(model)) << model;
    std::vector<uint8_t> bytes = read_file(model);
    ModelFile dir = read_model_directory(bytes.data(), bytes.size());
    for (auto& [name, r] : tensors.items()) {
      const TensorInfo* t = dir.find_tensor(name);
      ASSERT_NE(t, nullptr) << file_name << ": " << name;
      std::string type = r["type"];
      if (!quant_traits(t->type).to_float) {
        types_pending.insert(type);
        continue;
      }
      types_checked.insert(type);
      Summary s = dequantize_summary(bytes, *t);
      SCOPED_TRACE(file_name + ": " + name + " (" + type + ")");
      EXPECT_EQ(s.n, r["n"].get<uint64_t>());
      double sum = r["sum"], sumsq = r["sumsq"];
      EXPECT_NEAR(s.sum, sum, 1e-6 * std::max(1.0, sumsq));
      EXPECT_NEAR(s.sumsq, sumsq, 1e-6 * std::max(1.0, sumsq));
      const auto& first = r["first32"];
      ASSERT_EQ(s.first32.size(), first.size());
      for (size_t i = 0; i < first.size(); ++i) {
        double want = first[i];
        EXPECT_NEAR(s.first32[i], want, 1e-6 * std::max(1.0, std::fabs(want))) << "value " << i;
      }
    }
  }
}

}  // namespace

TEST(DequantizeReference, EveryTensorMatchesLlamaCppGgufPy) {
  WASMLM_REQUIRE_TESTDATA();
  std::set<std::string> checked, pending;
  check_reference_file(reference_testdata() / "llama/stories260K/reference/dequant-reference.json", checked, pending);
  check_reference_file(reference_testdata() / "synth-kq/reference/dequant-reference.json", checked, pending);
  // Every type the kernel issue lists that occurs in the data was checked.
  for (const char* type : {"F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K",
                           "Q5_K", "Q6_K", "IQ4_NL", "IQ4_XS", "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M", "TQ1_0", "TQ2_0", "IQ2_XXS", "IQ2_XS", "IQ2_S"})
    EXPECT_TRUE(checked.count(type)) << type << " was not covered by the reference data";
  std::string pending_list;
  for (const auto& t : pending) pending_list += t + " ";
  std::printf("dequantized against references: %zu types; no dequantizer yet: %s\n", checked.size(),
              pending_list.c_str());
}
