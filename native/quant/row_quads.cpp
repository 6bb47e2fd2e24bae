#include "quant/row_quads.h"

#include <cstring>
#include <vector>

#include "quant/quant_traits.h"

namespace wasmlm {

namespace {

// Calls copy(quad_offset, row, row_offset, n) for every run of bytes of a
// quad of 4 rows of `cols` weights of `type`, quad offsets ascending.
template <typename Copy>
void for_quad_bytes(GgmlType type, int64_t cols, Copy&& copy) {
  const QuadLayout& layout = quant_traits(type).quad_layout;
  const GgmlTypeInfo& info = ggml_type_info(type);
  size_t at = 0;
  for (int64_t b = 0; b < cols / info.block_size; ++b) {
    size_t field_at = b * info.type_size;
    for (int f = 0; f < layout.n_fields; ++f) {
      const QuadField& q = layout.fields[f];
      for (size_t g = 0; g < q.size; g += q.group)
        for (int r = 0; r < kTileRows; ++r, at += q.group) copy(at, r, field_at + g, q.group);
      field_at += q.size;
    }
  }
}

}  // namespace

void pack_row_quads(GgmlType type, int64_t cols, int64_t rows, uint8_t* data) {
  const uint64_t row_bytes = *ggml_nbytes(type, cols);
  std::vector<uint8_t> copy(kTileRows * row_bytes);
  for (int64_t r = 0; r < rows; r += kTileRows) {
    uint8_t* quad = data + r * row_bytes;
    std::memcpy(copy.data(), quad, copy.size());
    for_quad_bytes(type, cols, [&](size_t at, int k, size_t from, size_t n) {
      std::memcpy(quad + at, copy.data() + k * row_bytes + from, n);
    });
  }
}

void unpack_row_quad(GgmlType type, int64_t cols, const uint8_t* quad, uint8_t* rows) {
  const uint64_t row_bytes = *ggml_nbytes(type, cols);
  for_quad_bytes(type, cols, [&](size_t at, int k, size_t to, size_t n) {
    std::memcpy(rows + k * row_bytes + to, quad + at, n);
  });
}

}  // namespace wasmlm
