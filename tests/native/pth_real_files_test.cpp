// Every checkpoint under testdata/pytorch/ reads as torch itself reads it:
// the same tensor names, dtypes, shapes, strides, storage offsets and storage
// sharing, and bit-identical values (as float32, torch's own conversion).
// The expected values come from Debian's torch (/usr/bin/python3) run on the
// same files; without it the test is skipped (fails under CI=true).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "format/pth_checkpoint.h"
#include "format/pth_tensor_values.h"
#include "testdata.h"

namespace wasmlm_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Flattens torch.load's result as the reader does; prints JSON keyed by path.
// (No single quotes: it is passed in a single-quoted shell argument.)
const char* kTorchScript = R"PY(
import sys, json, torch
DT = {torch.bfloat16: "BF16", torch.float16: "F16", torch.float32: "F32", torch.float64: "F64", torch.int8: "I8",
      torch.int16: "I16", torch.int32: "I32", torch.int64: "I64", torch.uint8: "U8", torch.bool: "BOOL"}
def walk(o, name, out):
    join = lambda k: str(k) if not name else name + "." + str(k)
    if isinstance(o, torch.Tensor):
        out.append((name, o))
    elif isinstance(o, dict):
        for k, v in o.items():
            if type(k) is str or type(k) is int:
                walk(v, join(k), out)
    elif isinstance(o, (list, tuple)):
        for i, v in enumerate(o):
            walk(v, join(i), out)
res = {}
for path in sys.argv[1:]:
    out = []
    walk(torch.load(path, map_location="cpu"), "", out)
    ptrs, ts = [], []
    for name, t in out:
        s = t.storage()
        sid = -1
        if s.nbytes() > 0:
            if s.data_ptr() not in ptrs: ptrs.append(s.data_ptr())
            sid = ptrs.index(s.data_ptr())
        d = {"name": name, "dtype": DT[t.dtype], "shape": list(t.shape), "stride": list(t.stride()),
             "offset": t.storage_offset(), "sid": sid, "contiguous": t.is_contiguous()}
        if t.numel() <= 100000:
            d["bits"] = t.detach().to(torch.float32).contiguous().view(torch.int32).flatten().tolist()
        ts.append(d)
    res[path] = ts
print(json.dumps(res))
)PY";

bool is_checkpoint(const std::string& rel) {
  std::string name = fs::path(rel).filename().string();
  return name != "broken.pt" && fs::path(rel).extension() != ".tar";
}

// Files under pytorch/ that torch.save wrote (.pt, .pth, .tar), relative to testdata_dir().
std::vector<std::string> pytorch_files() {
  std::vector<std::string> files;
  fs::path root = fs::path(testdata_dir()) / "pytorch";
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string ext = it->path().extension().string();
    if (it->is_regular_file() && (ext == ".pt" || ext == ".pth" || ext == ".tar"))
      files.push_back("pytorch" + it->path().generic_string().substr(root.generic_string().size()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

#ifdef __EMSCRIPTEN__
// Runs a shell command with Node's child_process, its output into a file; 0 if it succeeded.
EM_JS(int, run_shell_to_file, (const char* cmd, const char* out_path), {
  let out;
  let status = 0;
  try {
    out = require('child_process').execSync(UTF8ToString(cmd), { encoding: 'latin1', maxBuffer: 1 << 30 });
  } catch (e) {
    out = String(e.stdout || e.message);
    status = 1;
  }
  require('fs').writeFileSync(UTF8ToString(out_path), out, 'latin1');
  return status;
});
#endif

// Runs a Python script with Debian's torch; its stdout, or nullopt (with `why`).
std::optional<std::string> run_torch(const std::string& script, const std::vector<std::string>& args, std::string& why) {
  if (!fs::exists("/usr/bin/python3")) return why = "/usr/bin/python3 is missing", std::nullopt;
  std::string cmd = "/usr/bin/python3 -c '" + script + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1";
  std::string out;
#ifdef __EMSCRIPTEN__
  // wasm has no popen: Node runs it, its output comes back through a file (NODERAWFS).
  const std::string out_path = fs::temp_directory_path() / ("wasmlm-torch-" + std::to_string(getpid()) + ".out");
  const int status = run_shell_to_file(cmd.c_str(), out_path.c_str());
  out = read_text(out_path);
  fs::remove(out_path);
#else
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return why = "cannot run /usr/bin/python3", std::nullopt;
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
#endif
  if (status != 0) return why = "torch failed (is python3-torch installed?): " + out.substr(0, 800), std::nullopt;
  return out;
}

// torch's view of the checkpoints at these absolute paths, keyed by path.
std::optional<json> torch_expectations(const std::vector<std::string>& paths, std::string& why) {
  std::optional<std::string> out = run_torch(kTorchScript, paths, why);
  if (!out) return std::nullopt;
  return json::parse(*out);
}

#define REQUIRE_TORCH(expected, why)                                                \
  do {                                                                              \
    if (!(expected)) {                                                              \
      const char* ci_ = std::getenv("CI");                                          \
      if (ci_ && std::string(ci_) == "true") FAIL() << "torch unavailable: " << why; \
      GTEST_SKIP() << "torch unavailable, skipping the comparison: " << why;        \
    }                                                                               \
  } while (0)

// A ReadAt over memory that records the byte ranges read.
struct RecordingReader {
  const std::vector<uint8_t>& bytes;
  std::vector<std::pair<uint64_t, uint64_t>> reads;
  wasmlm::ReadAt reader() {
    return [this](uint64_t offset, uint8_t* dst, size_t n) -> size_t {
      if (offset >= bytes.size()) return 0;
      size_t k = std::min<uint64_t>(n, bytes.size() - offset);
      std::memcpy(dst, bytes.data() + offset, k);
      reads.push_back({offset, offset + k});
      return k;
    };
  }
};

void expect_matches_torch(const std::string& rel, const std::string& path, const json& expected) {
  std::vector<uint8_t> bytes = read_file(path);
  RecordingReader rec{bytes, {}};
  wasmlm::ReadAt read_at = rec.reader();
  wasmlm::PthCheckpoint ck = wasmlm::read_pth_checkpoint(bytes.size(), read_at);
  bool legacy = rel.find("legacy") != std::string::npos;
  EXPECT_EQ(ck.format, legacy ? wasmlm::PthFormat::Legacy : wasmlm::PthFormat::Zip);

  ASSERT_EQ(ck.tensors.size(), expected.size());
  std::map<uint32_t, int> our_to_torch_storage;
  for (size_t i = 0; i < expected.size(); ++i) {
    const json& e = expected[i];
    const wasmlm::PthTensor& t = ck.tensors[i];
    SCOPED_TRACE(rel + " tensor '" + e["name"].get<std::string>() + "'");
    EXPECT_EQ(t.name, e["name"].get<std::string>());
    EXPECT_STREQ(wasmlm::pth_dtype_name(t.dtype), e["dtype"].get<std::string>().c_str());
    EXPECT_EQ(t.shape, e["shape"].get<std::vector<int64_t>>());
    EXPECT_EQ(t.stride, e["stride"].get<std::vector<int64_t>>());
    EXPECT_EQ(t.storage_offset, e["offset"].get<uint64_t>());
    EXPECT_EQ(t.contiguous(), e["contiguous"].get<bool>());
    int sid = e["sid"].get<int>();
    if (sid >= 0) {  // the same storage in torch <=> the same storage here
      auto [it, fresh] = our_to_torch_storage.emplace(t.storage, sid);
      EXPECT_EQ(it->second, sid) << "tensors share a storage here but not in torch";
      for (const auto& [ours, theirs] : our_to_torch_storage)
        if (theirs == sid) EXPECT_EQ(ours, t.storage) << "torch shares a storage these do not";
    }
    if (!e.contains("bits")) continue;

    rec.reads.clear();
    std::vector<float> values = wasmlm::read_pth_tensor_as_float(ck, t, read_at);
    const wasmlm::PthStorage& s = ck.storages[t.storage];
    for (auto [from, to] : rec.reads)
      EXPECT_TRUE(from >= s.offset && to <= s.offset + s.nbytes) << "read [" << from << ", " << to
                                                                 << ") outside storage '" << s.key << "'";
    std::vector<int32_t> bits = e["bits"].get<std::vector<int32_t>>();
    ASSERT_EQ(values.size(), bits.size());
    size_t mismatches = 0;
    for (size_t k = 0; k < values.size(); ++k) {
      int32_t ours;
      std::memcpy(&ours, &values[k], 4);
      float theirs;
      std::memcpy(&theirs, &bits[k], 4);
      bool same = ours == bits[k] || (values[k] != values[k] && theirs != theirs);
      if (!same && ++mismatches <= 5)
        ADD_FAILURE() << "value " << k << ": " << values[k] << " (bits " << ours << "), torch " << theirs << " (bits "
                      << bits[k] << ")";
    }
    EXPECT_EQ(mismatches, 0u);
  }
}

TEST(PthRealFiles, EveryCheckpointReadsAsTorchReadsIt) {
  WASMLM_REQUIRE_TESTDATA();
  std::vector<std::string> files = pytorch_files();
  ASSERT_FALSE(files.empty()) << "no .pt/.pth files under " << testdata_dir() << "/pytorch";
  std::vector<std::string> paths;
  for (const auto& rel : files)
    if (is_checkpoint(rel)) paths.push_back(testdata_dir() + "/" + rel);
  std::string why;
  std::optional<json> expected = torch_expectations(paths, why);
  REQUIRE_TORCH(expected, why);
  size_t checked = 0, tensors = 0;
  for (const auto& rel : files) {
    if (!is_checkpoint(rel)) continue;
    SCOPED_TRACE(rel);
    std::string path = testdata_dir() + "/" + rel;
    const json& e = (*expected)[path];
    try {
      expect_matches_torch(rel, path, e);
    } catch (const wasmlm::Error& err) {
      ADD_FAILURE() << rel << ": " << err.what();
    }
    ++checked;
    tensors += e.size();
  }
  // Every folder the test data README lists is covered.
  for (const char* group : {"pytorch/burn/", "pytorch/candle/", "pytorch/torchtune/", "pytorch/meta-stories260K/"})
    EXPECT_TRUE(std::any_of(files.begin(), files.end(), [&](const std::string& f) { return f.rfind(group, 0) == 0; }))
        << group;
  std::printf("[ compared  ] %zu checkpoints, %zu tensors against torch\n", checked, tensors);
}

// Written by torch here, into a temporary folder: every pickle protocol
// torch.save takes (2-5: FRAME, MEMOIZE, STACK_GLOBAL, ...), zip and legacy,
// with views (transposed, sliced, permuted, offset into a shared storage),
// every dtype, a Parameter, int dict keys, lists and non-tensor values.
const char* kWriteScript = R"PY(
import sys, os, torch
d = sys.argv[1]
torch.manual_seed(0)
base = torch.randn(6, 8)
sd = {"w": base, "wt": base.t(), "row": base[2], "col": base[:, 3], "slice": base[1:4, 2:6],
      "half": torch.randn(5, 3).half(), "bf": torch.randn(4).bfloat16(), "f64": torch.randn(3).double(),
      "i8": torch.arange(-3, 3, dtype=torch.int8), "i16": torch.arange(-5, 5, dtype=torch.int16),
      "i32": torch.arange(-2, 2, dtype=torch.int32), "i64": torch.tensor([-(2**62), 2**53 + 1, 7]),
      "u8": torch.arange(250, 256, dtype=torch.uint8), "b": torch.tensor([True, False]),
      "nested": {"deep": {"p": torch.nn.Parameter(torch.randn(3, 2))}}, "list": [torch.ones(2, dtype=torch.int64), 7, "x"],
      3: torch.tensor(True), "scalar": torch.tensor(2.5, dtype=torch.float64),
      "perm": torch.randn(2, 3, 4).permute(2, 0, 1), "empty": torch.zeros(0, 3), "meta": "text", "pi": 3.14}
for proto in (2, 3, 4, 5):
    torch.save(sd, os.path.join(d, "zip_p%d.pt" % proto), pickle_protocol=proto)
    torch.save(sd, os.path.join(d, "legacy_p%d.pt" % proto), pickle_protocol=proto, _use_new_zipfile_serialization=False)
print("ok")
)PY";

TEST(PthRealFiles, EveryPickleProtocolAndViewKindReadsAsTorchReadsIt) {
  std::string dir = (fs::temp_directory_path() / ("wasmlm-pth-" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  std::string why;
  std::optional<std::string> wrote = run_torch(kWriteScript, {dir}, why);
  std::optional<json> expected;
  std::vector<std::string> paths;
  if (wrote) {
    for (int proto = 2; proto <= 5; ++proto)
      for (const char* kind : {"zip", "legacy"}) paths.push_back(dir + "/" + kind + "_p" + std::to_string(proto) + ".pt");
    expected = torch_expectations(paths, why);
  }
  if (!expected) fs::remove_all(dir);
  REQUIRE_TORCH(expected, why);
  for (const auto& path : paths) {
    SCOPED_TRACE(path);
    const json& e = (*expected)[path];
    EXPECT_EQ(e.size(), 20u);  // every tensor of the script's dict
    try {
      expect_matches_torch(fs::path(path).filename().string(), path, e);
    } catch (const wasmlm::Error& err) {
      ADD_FAILURE() << path << ": " << err.what();
    }
  }
  fs::remove_all(dir);
}

TEST(PthRealFiles, TarCheckpointsAreRefusedNamingTheFormat) {
  WASMLM_REQUIRE_TESTDATA();
  size_t n = 0;
  for (const auto& rel : pytorch_files()) {
    if (fs::path(rel).extension() != ".tar") continue;
    ++n;
    std::vector<uint8_t> bytes = read_file(testdata_dir() + "/" + rel);
    try {
      wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
      ADD_FAILURE() << rel << " was read";
    } catch (const wasmlm::Error& e) {
      EXPECT_EQ(e.code(), wasmlm::ErrorCode::Unsupported) << rel << ": " << e.what();
      EXPECT_NE(e.detail().find("tar"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(n, 0u) << "no tar checkpoints under pytorch/";
}

TEST(PthRealFiles, BrokenFileIsATypedError) {
  WASMLM_REQUIRE_TESTDATA();
  std::vector<uint8_t> bytes = read_file(testdata_dir() + "/pytorch/burn/broken.pt");
  try {
    wasmlm::read_pth_checkpoint(bytes.data(), bytes.size());
    FAIL() << "broken.pt was read";
  } catch (const wasmlm::Error& e) {
    EXPECT_EQ(e.code(), wasmlm::ErrorCode::BadFormat) << e.what();
    EXPECT_EQ(e.offset(), 0u) << e.what();
  }
}

}  // namespace
}  // namespace wasmlm_test
