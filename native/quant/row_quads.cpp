#include "quant/row_quads.h"

#include <cstring>
#include <vector>

#include "quant/quant_traits.h"

namespace wasmlm {

namespace {

// Calls copy(quad_offset, row, row_offset, n) for every run of bytes of the
// 4 rows' blocks, quad offsets ascending.
template <typename Copy>
void for_quad_bytes(const QuadLayout& layout, size_t block_bytes, int64_t n_blocks, Copy&& copy) {
  size_t at = 0;
  for (int64_t b = 0; b < n_blocks; ++b) {
    size_t field_at = b * block_bytes;
    for (int f = 0; f < layout.n_fields; ++f) {
      const QuadField& q = layout.fields[f];
      for (size_t g = 0; g < q.size; g += q.group)
        for (int r = 0; r < kTileRows; ++r, at += q.group) copy(at, r, field_at + g, q.group);
      field_at += q.size;
    }
  }
}

}  // namespace

void pack_row_quad(const QuadLayout& layout, size_t block_bytes, int64_t n_blocks, uint8_t* rows, size_t row_bytes) {
  const std::vector<uint8_t> copy(rows, rows + kTileRows * row_bytes);
  for_quad_bytes(layout, block_bytes, n_blocks, [&](size_t at, int r, size_t from, size_t n) {
    std::memcpy(rows + at, copy.data() + r * row_bytes + from, n);
  });
}

void unpack_row_quad(const QuadLayout& layout, size_t block_bytes, int64_t n_blocks, const uint8_t* quad,
                     uint8_t* rows, size_t row_bytes) {
  for_quad_bytes(layout, block_bytes, n_blocks, [&](size_t at, int r, size_t to, size_t n) {
    std::memcpy(rows + r * row_bytes + to, quad + at, n);
  });
}

}  // namespace wasmlm
