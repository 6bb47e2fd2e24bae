#include "quant/fp16.h"

#include <vector>

namespace wasmlm {

namespace {
std::vector<float> make_table() {
  std::vector<float> t(65536);
  for (uint32_t h = 0; h < 65536; ++h) t[h] = fp16_to_fp32(static_cast<uint16_t>(h));
  return t;
}
const std::vector<float> table = make_table();
}  // namespace

// Built during static initialization, before any kernel can run.
const float* const kFp16Table = table.data();

}  // namespace wasmlm
