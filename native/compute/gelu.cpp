#include <array>
#include <cmath>

#include "compute/ops.h"
#include "quant/fp16.h"

namespace wasmlm {

namespace {

float gelu_tanh(float x) {
  constexpr float kA = 0.044715f, kSqrt2OverPi = 0.79788456080286535587989211986876f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + kA * x * x)));
}

// GELU of every F16 value, rounded to F16 (128 KiB, built on first use).
const std::array<uint16_t, 65536>& gelu_table() {
  static const std::array<uint16_t, 65536> table = [] {
    std::array<uint16_t, 65536> t{};
    for (uint32_t i = 0; i < 65536; ++i) t[i] = fp32_to_fp16(gelu_tanh(fp16_to_fp32(static_cast<uint16_t>(i))));
    return t;
  }();
  return table;
}

}  // namespace

float gelu_ggml(float x) {
  if (x <= -10.0f) return 0.0f;
  if (x >= 10.0f) return x;
  return fp16_to_fp32(gelu_table()[fp32_to_fp16(x)]);
}

}  // namespace wasmlm
