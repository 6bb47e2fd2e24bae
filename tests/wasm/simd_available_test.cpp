#include <cstdio>

#include <emscripten.h>
#include <wasm_simd128.h>
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

// The relaxed copy's two rewritten instructions do what the kernels take
// them for: the 8-bit dot, and the swizzle for indices 0..15 (a wrong
// encoding of either would fail here, not only deep in a kernel test).
TEST(WasmBuild, RelaxedCopyRewritesTheDotAndTheSwizzle) {
  if (!wasmlm::relaxed_simd_active()) GTEST_SKIP() << "the SIMD-128 build (its placeholders are never run)";
  // Through a volatile, so that no optimizer computes the placeholders
  // themselves at build time.
  volatile int step = 1;
  alignas(16) int8_t table[16], idx[16], a[16], b[16];
  for (int i = 0; i < 16; i += step) {
    table[i] = static_cast<int8_t>(100 - 13 * i);
    idx[i] = static_cast<int8_t>((7 * i + 3) % 16);
    a[i] = static_cast<int8_t>(i % 2 ? -127 + 9 * i : 120 - 5 * i);
    b[i] = static_cast<int8_t>((37 * i) % 128);
  }
  alignas(16) int8_t looked_up[16];
  wasm_v128_store(looked_up, wasmlm::simd::relaxed_swizzle(wasm_v128_load(table), wasm_v128_load(idx)));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(looked_up[i], table[idx[i]]) << "lane " << i;
  alignas(16) int16_t dots[8];
  wasm_v128_store(dots, wasmlm::simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(a), wasm_v128_load(b)));
  for (int k = 0; k < 8; ++k) EXPECT_EQ(dots[k], a[2 * k] * b[2 * k] + a[2 * k + 1] * b[2 * k + 1]) << "lane " << k;
}

// The dot-add kernels run in every engine that has relaxed SIMD but V8
// before 11.4; in Chromium (tests/browser/kernel-tests.test.js) they must.
TEST(WasmBuild, DotAddKernelsRunWhereTheEngineIsTrusted) {
  if (!wasmlm::relaxed_simd_active()) GTEST_SKIP() << "the SIMD-128 build";
  const bool old_v8 = EM_ASM_INT({
    const v = typeof process === 'object' && process.versions && process.versions.v8;
    return v && Number(v.split('.')[0]) * 100 + Number(v.split('.')[1]) < 1104 ? 1 : 0;
  });
  if (!wasmlm::relaxed_dot_add_exact()) printf("dot-add kernels not in use\n");
  EXPECT_EQ(wasmlm::relaxed_dot_add_exact(), !old_v8);
  // The tiles chosen by the dot-add's lowering (the browser test logs them).
  static const char* const kLowerings[] = {"one instruction, unsigned (x86 AVX-VNNI)",
                                           "int16 pairs saturated (x86 without VNNI)", "one instruction, signed (ARM)",
                                           "unknown"};
  const wasmlm::DotAddLowering lowering = wasmlm::relaxed_dot_add_lowering();
  const bool dot_add = wasmlm::relaxed_tile_dots() == wasmlm::TileDots::kDotAdd;
  printf("dot-add lowering: %s; prompt tiles by %s\n", kLowerings[static_cast<int>(lowering)],
         dot_add ? "dot-adds" : "int16 dots");
  if (!wasmlm::relaxed_dot_add_exact() || lowering == wasmlm::DotAddLowering::kPairsSaturated) EXPECT_FALSE(dot_add);
}
