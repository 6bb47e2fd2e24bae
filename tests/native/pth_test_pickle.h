// Pickles written opcode by opcode for the PyTorch reader's tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace wasmlm_test {

extern const std::string kProto2;  // PROTO 2

// A string literal with its NUL bytes.
template <size_t N>
std::string B(const char (&s)[N]) {
  return std::string(s, N - 1);
}

std::string u32le(uint32_t v);
std::string str(const std::string& s);  // BINUNICODE
std::string int1(uint8_t v);            // BININT1

// A pickle of {"w": _rebuild_tensor_v2(<FloatStorage key "0", numel>, 0, size, stride, False, OrderedDict())}
// with size and stride given as pickled tuples.
std::string tensor_pickle(uint8_t numel, const std::string& size, const std::string& stride);
// A (rows, cols) row-major tensor.
std::string tensor_pickle(uint8_t numel, uint8_t rows, uint8_t cols);

// n little-endian floats -1, -0.5, 0, 0.5, ...: a storage entry's bytes.
std::string floats(size_t n);

}  // namespace wasmlm_test
