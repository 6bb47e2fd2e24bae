#include "pth_test_pickle.h"

namespace wasmlm_test {

const std::string kProto2("\x80\x02", 2);

std::string u32le(uint32_t v) { return std::string{char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; }
std::string str(const std::string& s) { return "X" + u32le(static_cast<uint32_t>(s.size())) + s; }
std::string int1(uint8_t v) { return std::string("K") + char(v); }

std::string tensor_pickle(uint8_t numel, const std::string& size, const std::string& stride) {
  return kProto2 + "}(" + str("w") + "ctorch._utils\n_rebuild_tensor_v2\n(" + "(" + str("storage") +
         "ctorch\nFloatStorage\n" + str("0") + str("cpu") + int1(numel) + "tQ" + int1(0) + size + stride + "\x89" +
         "ccollections\nOrderedDict\n)Rt" + "R" + "u.";
}

std::string tensor_pickle(uint8_t numel, uint8_t rows, uint8_t cols) {
  return tensor_pickle(numel, int1(rows) + int1(cols) + "\x86", int1(cols) + int1(1) + "\x86");
}

std::string floats(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    float f = static_cast<float>(i) * 0.5f - 1.0f;
    s.append(reinterpret_cast<const char*>(&f), 4);
  }
  return s;
}

}  // namespace wasmlm_test
