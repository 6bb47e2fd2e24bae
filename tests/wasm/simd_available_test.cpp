#include <gtest/gtest.h>

// The wasm test binary is built with SIMD-128; the kernels rely on it.
TEST(WasmBuild, HasSimd128) {
#ifdef __wasm_simd128__
  SUCCEED();
#else
  FAIL() << "built without -msimd128";
#endif
}
