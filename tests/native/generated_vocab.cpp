#include "generated_vocab.h"

#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace wasmlm_test {

namespace {

const fs::path kRepo = WASMLM_REPO_ROOT;
const fs::path kScripts = kRepo / "tests/models";

// The newest write time among the generator's scripts.
fs::file_time_type scripts_time() {
  fs::file_time_type newest{};
  for (const char* f : {"vocab-gguf.js", "hf-vocab-to-gguf.js", "vocab-sources.js", "gguf-write.js"}) {
    std::error_code ec;
    const auto t = fs::last_write_time(kScripts / f, ec);
    if (!ec && t > newest) newest = t;
  }
  return newest;
}

}  // namespace

std::string reference_dir() { return (kRepo / "tests/reference").string(); }

std::optional<std::string> npm_package_file(const std::string& package, const std::string& relative, std::string* why) {
  const fs::path p = kRepo / "node_modules" / package / relative;
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) return p.string();
  *why = p.string() + " is missing: run npm install (devDependency " + package + ")";
  return std::nullopt;
}

std::optional<std::string> generated_vocab_gguf(const std::string& name, std::string* why) {
  const fs::path out = kRepo / "tests/.tmp/vocab" / ("ggml-vocab-" + name + ".gguf");
  std::error_code ec;
  if (fs::is_regular_file(out, ec) && fs::last_write_time(out, ec) >= scripts_time()) return out.string();
  const std::string cmd = "cd '" + kRepo.string() + "' && node tests/models/vocab-gguf.js '" + name +
                          "' '" + out.string() + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    *why = "cannot run node to write " + out.string();
    return std::nullopt;
  }
  std::string output;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  const int status = pclose(p);
  if (status != 0 || !fs::is_regular_file(out, ec)) {
    *why = "writing " + out.string() + " failed (needs node and npm install): " + output.substr(0, 600);
    return std::nullopt;
  }
  return out.string();
}

}  // namespace wasmlm_test
