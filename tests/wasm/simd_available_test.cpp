#include <emscripten.h>
#include <gtest/gtest.h>

#include "quant/relaxed/relaxed_simd.h"

// The wasm test binary is built with SIMD-128; the kernels rely on it.
TEST(WasmBuild, HasSimd128) {
#ifdef __wasm_simd128__
  SUCCEED();
#else
  FAIL() << "built without -msimd128";
#endif
}

// The relaxed-SIMD copy of a build (wasm/relaxed-simd.mjs) runs its relaxed
// kernels, and only that copy does: ctest runs this suite twice, as built
// under plain Node and as the relaxed copy under Node with relaxed SIMD on.
TEST(WasmBuild, RelaxedKernelsRunExactlyInTheRelaxedCopy) {
  const bool engine_has_it = EM_ASM_INT({
    const probe = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7b,
                                  0x7b, 0x01, 0x7b, 0x03, 0x02, 0x01, 0x00, 0x0a, 0x0b, 0x01, 0x09, 0x00, 0x20, 0x00,
                                  0x20, 0x01, 0xfd, 0x92, 0x02, 0x0b]);
    try {
      return WebAssembly.validate(probe) ? 1 : 0;
    } catch (e) {
      return 0;
    }
  });
  EXPECT_EQ(wasmlm::relaxed_simd_active(), engine_has_it);
}
