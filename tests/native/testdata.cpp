#include "testdata.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace wasmlm_test {

const char* const kMissingTestdata = "MISSING_TESTDATA";

std::string testdata_dir() { return WASMLM_REPO_ROOT "/../shared/testdata"; }

bool testdata_present() {
  std::error_code ec;
  return fs::is_directory(testdata_dir(), ec);
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> scan() {
  if (!testdata_present()) return {kMissingTestdata};
  std::vector<std::string> files;
  // Only the folders holding model files (each test process lists them at start-up).
  for (const char* sub : {"llama", "synth-kq", "tokenizers/llamacpp-vocab", "rwkv", "legacy"}) {
    std::error_code ec;
    fs::path dir = fs::path(testdata_dir()) / sub;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      std::string path = it->path().generic_string();
      std::string rel = std::string(sub) + path.substr(dir.generic_string().size());
      std::string name = it->path().filename().string();
      bool gguf = ends_with(name, ".gguf");
      bool rwkv = std::string(sub) == "rwkv" && name.rfind("tiny-rwkv-", 0) == 0 && ends_with(name, ".bin");
      bool legacy = std::string(sub) == "legacy" && ends_with(name, ".bin");
      if (gguf || rwkv || legacy) files.push_back(rel);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<std::string> real_model_files() {
  static const std::vector<std::string> files = scan();
  return files;
}

std::vector<std::string> testdata_groups() {
  std::vector<std::string> groups;
  for (const auto& rel : real_model_files()) {
    std::string g = rel.substr(0, rel.find('/'));
    if (groups.empty() || groups.back() != g) groups.push_back(g);
  }
  return groups;
}

std::vector<std::string> files_in_group(const std::string& group) {
  std::vector<std::string> files;
  for (const auto& rel : real_model_files())
    if (rel.rfind(group + "/", 0) == 0) files.push_back(rel);
  return files;
}

std::string param_name(const std::string& path) {
  std::string s;
  for (char c : path) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<uint8_t> bytes(static_cast<size_t>(f.tellg()));
  f.seekg(0);
  if (!f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    throw std::runtime_error("cannot read " + path);
  return bytes;
}

std::string read_text(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<std::string> read_vocab_cases(const std::string& inp_path) {
  const std::string text = read_text(inp_path);
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> cases;
  size_t pos = 0;
  for (size_t hit; (hit = text.find(sep, pos)) != std::string::npos; pos = hit + sep.size())
    cases.push_back(text.substr(pos, hit - pos));
  if (pos < text.size()) cases.push_back(text.substr(pos));
  return cases;
}

std::vector<std::vector<int32_t>> read_vocab_ids(const std::string& out_path) {
  std::istringstream in(read_text(out_path));
  std::vector<std::vector<int32_t>> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ids(line);
    std::vector<int32_t> v;
    for (int32_t id; ids >> id;) v.push_back(id);
    out.push_back(std::move(v));
  }
  return out;
}

void load_into(LoadedModel& m, std::vector<uint8_t> bytes) {
  m.bytes = std::move(bytes);
  m.file = wasmlm::load_weights(m.bytes.size(), wasmlm::read_from_memory(m.bytes.data(), m.bytes.size()), m.store);
}

std::unique_ptr<LoadedModel> load_model(const std::string& relative) {
  auto m = std::make_unique<LoadedModel>();
  load_into(*m, read_file(testdata_dir() + "/" + relative));
  return m;
}

}  // namespace wasmlm_test
