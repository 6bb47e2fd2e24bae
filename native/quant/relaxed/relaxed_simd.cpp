#include "quant/relaxed/relaxed_simd.h"
#ifdef __wasm_simd128__

#include <cstdint>

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

}  // namespace wasmlm
#endif
