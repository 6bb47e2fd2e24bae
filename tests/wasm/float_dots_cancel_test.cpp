// The SIMD dots of the float weight types (F32, F16, BF16) keep their sums in
// f64, as the scalar references (the native build) do: on a row whose large
// products cancel, an f32 sum loses the digits that are left, and the wasm
// build computed other logits than native (a tiny RWKV v5.1 FP16 file past
// rwkv.cpp's bound). Here they agree to the bit.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/ggml_type.h"
#include "quant/quant_traits.h"
#include "quant/wide_activations.h"

using namespace wasmlm;

namespace {

// A row of n weights of `type` and activations (rounded as matmul rounds
// them) whose products, about +-1e6, cancel in pairs down to about 1e4.
void cancelling_row(GgmlType type, int64_t n, std::mt19937& rng, std::vector<uint8_t>* w, std::vector<float>* y) {
  std::uniform_real_distribution<float> unit(0.5f, 1.f);
  std::uniform_int_distribution<int> small(-8, 8);  // steps that BF16 (4 at 1000) can still hold
  std::vector<float> wf(n);
  y->assign(n, 0.f);
  for (int64_t i = 0; i < n; i += 2) {
    wf[i] = 1000.f * unit(rng);
    (*y)[i] = 1000.f * unit(rng);
    if (i + 1 < n) {
      wf[i + 1] = -wf[i];
      (*y)[i + 1] = (*y)[i] + static_cast<float>(small(rng));
    }
  }
  const QuantTraits& t = quant_traits(type);
  w->assign(*ggml_nbytes(type, n), 0);
  t.from_float(wf.data(), w->data(), n);
  if (t.round_activations_to != GgmlType::F32) {  // as matmul does
    const QuantTraits& rt = quant_traits(t.round_activations_to);
    std::vector<uint16_t> half(n);
    rt.from_float(y->data(), half.data(), n);
    rt.to_float(half.data(), y->data(), n);
  }
}

TEST(SimdFloatDots, RowsWhoseProductsCancelGiveTheReferenceToTheBit) {
  std::mt19937 rng(11);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16}) {
    const QuantTraits& t = quant_traits(type);
    for (int64_t n : {64, 256, 1000, 4099}) {
      SCOPED_TRACE(std::string(ggml_type_info(type).name) + " n=" + std::to_string(n));
      std::vector<uint8_t> w;
      std::vector<float> y;
      cancelling_row(type, n, rng, &w, &y);
      const float ref = t.vec_dot_ref(n, w.data(), y.data());
      EXPECT_GT(std::fabs(ref), 1.f);
      EXPECT_EQ(t.vec_dot(n, w.data(), y.data()), ref);
      if (!t.vec_dot_wide) continue;
      // The multi-token kernel, 3 tokens of the same activations.
      const uint64_t bytes = wide_activation_bytes(t.wide_form, n);
      std::vector<uint8_t> wide(3 * bytes + 16);
      for (int k = 0; k < 3; ++k) widen_activations(t.wide_form, y.data(), wide.data() + k * bytes, n, t.level_offset);
      float out[3];
      t.vec_dot_wide(n, w.data(), wide.data(), static_cast<int64_t>(bytes), 3, out, 1);
      for (float got : out) EXPECT_EQ(got, ref);
    }
  }
}

}  // namespace
