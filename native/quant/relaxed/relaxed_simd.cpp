#include "quant/relaxed/relaxed_simd.h"
#ifdef __wasm_simd128__

#include <atomic>
#include <cstdint>

#include <emscripten.h>

namespace wasmlm {

bool relaxed_simd_active() {
  static const bool active = [] {
    // Through volatile memory, so the compiler cannot fold the placeholder.
    volatile int8_t a[16], b[16];
    for (int i = 0; i < 16; ++i) {
      a[i] = static_cast<int8_t>(-3 - i);
      b[i] = static_cast<int8_t>(5 + i);
    }
    alignas(16) int8_t ca[16], cb[16];
    for (int i = 0; i < 16; ++i) {
      ca[i] = a[i];
      cb[i] = b[i];
    }
    alignas(16) int16_t r[8];
    wasm_v128_store(r, simd::relaxed_dot_i8x16_i7x16(wasm_v128_load(ca), wasm_v128_load(cb)));
    for (int k = 0; k < 8; ++k)
      if (r[k] != ca[2 * k] * cb[2 * k] + ca[2 * k + 1] * cb[2 * k + 1]) return false;
    return true;
  }();
  return active;
}

bool relaxed_dot_add_exact() {
  static const bool exact = [] {
    // V8 before 11.4 (Node 20, relaxed SIMD behind a flag) compiles the
    // dot-add wrongly in some register assignments: once the accumulator
    // dropped and the dot doubled in the kernels, while this probe passed.
    const bool old_v8 = EM_ASM_INT({
      const v = typeof process === 'object' && process.versions && process.versions.v8;
      return v && Number(v.split('.')[0]) * 100 + Number(v.split('.')[1]) < 1104 ? 1 : 0;
    });
    if (old_v8) return false;
    volatile int8_t va[16], vb[16];
    volatile int32_t vc[4];
    for (int i = 0; i < 16; ++i) {
      va[i] = static_cast<int8_t>(i * 17 - 128);
      vb[i] = static_cast<int8_t>(127 - 8 * i);  // 7..127: the 7-bit operand
    }
    for (int k = 0; k < 4; ++k) vc[k] = 1000 * (k + 1) - 7;
    alignas(16) int8_t a[16], b[16];
    alignas(16) int32_t c[4], r[4];
    for (int i = 0; i < 16; ++i) a[i] = va[i], b[i] = vb[i];
    for (int k = 0; k < 4; ++k) c[k] = vc[k];
    wasm_v128_store(r, simd::relaxed_dot_add_i8x16_i7x16(wasm_v128_load(a), wasm_v128_load(b), wasm_v128_load(c)));
    for (int k = 0; k < 4; ++k) {
      int32_t want = c[k];
      for (int j = 4 * k; j < 4 * k + 4; ++j) want += a[j] * b[j];
      if (r[k] != want) return false;
    }
    return true;
  }();
  return exact;
}

DotAddLowering relaxed_dot_add_lowering() {
  static const DotAddLowering lowering = [] {
    // 127 times 0xFF: a 7-bit operand out of its range, where the spec lets
    // engines differ, and they do by the instructions they use.
    volatile int8_t va = 127, vb = -1;
    alignas(16) int8_t a[16], b[16];
    alignas(16) int32_t r[4];
    for (int i = 0; i < 16; ++i) a[i] = va, b[i] = vb;
    wasm_v128_store(r, simd::relaxed_dot_add_i8x16_i7x16(wasm_v128_load(a), wasm_v128_load(b), wasm_i32x4_splat(0)));
    for (int k = 1; k < 4; ++k)
      if (r[k] != r[0]) return DotAddLowering::kOther;
    switch (r[0]) {
      case 4 * 127 * 255: return DotAddLowering::kUnsignedExact;
      case 2 * 32767: return DotAddLowering::kPairsSaturated;
      case 4 * 127 * -1: return DotAddLowering::kSigned;
      default: return DotAddLowering::kOther;
    }
  }();
  return lowering;
}

bool relaxed_dot_add_unsigned() {
  return relaxed_dot_add_exact() && relaxed_dot_add_lowering() == DotAddLowering::kUnsignedExact;
}

bool relaxed_dot_add_one_instruction() {
  if (!relaxed_dot_add_exact()) return false;
  const DotAddLowering lowering = relaxed_dot_add_lowering();
  return lowering == DotAddLowering::kUnsignedExact || lowering == DotAddLowering::kSigned;
}

namespace {

std::atomic<int> pinned_tile_dots{-1};  // a TileDots, or -1: by the lowering

}  // namespace

TileDots relaxed_tile_dots() {
  const int pinned = pinned_tile_dots.load(std::memory_order_relaxed);
  if (pinned >= 0) return static_cast<TileDots>(pinned);
  static const TileDots chosen = relaxed_dot_add_one_instruction() ? TileDots::kDotAdd : TileDots::kInt16;
  return chosen;
}

void pin_relaxed_tile_dots(TileDots dots) {
  if (dots == TileDots::kDotAdd && !relaxed_dot_add_exact()) dots = TileDots::kInt16;
  pinned_tile_dots.store(static_cast<int>(dots), std::memory_order_relaxed);
}

void unpin_relaxed_tile_dots() { pinned_tile_dots.store(-1, std::memory_order_relaxed); }

}  // namespace wasmlm
#endif
