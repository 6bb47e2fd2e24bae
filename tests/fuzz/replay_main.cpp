// Runs files through a fuzz target's LLVMFuzzerTestOneInput without libFuzzer,
// so that the findings committed under tests/fuzz/regressions/<target>/ run
// as ordinary tests with any compiler (ctest; the ASan build is where they
// matter). Like a libFuzzer run, each input must finish within the time limit
// and the process stay under the memory limit.
//
// Usage: <target>_replay [--timeout=SECONDS] [--rss-limit-mb=MB] DIR|FILE...
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

long max_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;  // KB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  double timeout = 20;
  long rss_limit_mb = 2048;
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--timeout=", 0) == 0) {
      timeout = std::atof(arg.c_str() + 10);
    } else if (arg.rfind("--rss-limit-mb=", 0) == 0) {
      rss_limit_mb = std::atol(arg.c_str() + 15);
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    } else {
      inputs.push_back(arg);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "%s: no inputs to replay\n", argv[0]);
    return 2;
  }
  for (const auto& path : inputs) {
    const std::vector<uint8_t> bytes = read_file(path);
    const auto start = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > timeout) {
      std::fprintf(stderr, "%s: took %.1f s (limit %.0f s)\n", path.c_str(), seconds, timeout);
      return 1;
    }
    if (max_rss_mb() > rss_limit_mb) {
      std::fprintf(stderr, "%s: peak memory %ld MB (limit %ld MB)\n", path.c_str(), max_rss_mb(), rss_limit_mb);
      return 1;
    }
    std::printf("ok %s (%zu bytes, %.3f s)\n", path.c_str(), bytes.size(), seconds);
  }
  std::printf("%zu inputs replayed\n", inputs.size());
  return 0;
}
