#include "quant/row_quads.h"

#include <cstring>
#include <vector>

#include "quant/quant_traits.h"

namespace wasmlm {

namespace {

// Calls field(quad_offset, f, row_offset) for every field f of every block of
// a quad of 4 rows of `cols` weights of `type`, quad offsets ascending (a
// field takes 4 times its size in the quad).
template <typename Field>
void for_quad_fields(GgmlType type, int64_t cols, Field&& field) {
  const QuadLayout& layout = quant_traits(type).quad_layout;
  const GgmlTypeInfo& info = ggml_type_info(type);
  size_t at = 0;
  for (int64_t b = 0; b < cols / info.block_size; ++b) {
    size_t field_at = b * info.type_size;
    for (int f = 0; f < layout.n_fields; ++f) {
      field(at, layout.fields[f], field_at);
      at += kTileRows * layout.fields[f].size;
      field_at += layout.fields[f].size;
    }
  }
}

// A field of the 4 rows (row r's at rows + r * row_bytes + from) into its
// place in a quad, and back.
void pack_field(const QuadField& q, uint8_t* quad, const uint8_t* rows, uint64_t row_bytes, size_t from) {
  if (q.group == 0) {
    const uint8_t* in[kTileRows];
    for (int r = 0; r < kTileRows; ++r) in[r] = rows + r * row_bytes + from;
    return q.encode(in, quad);
  }
  for (size_t g = 0; g < q.size; g += q.group)
    for (int r = 0; r < kTileRows; ++r, quad += q.group) std::memcpy(quad, rows + r * row_bytes + from + g, q.group);
}

void unpack_field(const QuadField& q, const uint8_t* quad, uint8_t* rows, uint64_t row_bytes, size_t to) {
  if (q.group == 0) {
    uint8_t* out[kTileRows];
    for (int r = 0; r < kTileRows; ++r) out[r] = rows + r * row_bytes + to;
    return q.decode(quad, out);
  }
  for (size_t g = 0; g < q.size; g += q.group)
    for (int r = 0; r < kTileRows; ++r, quad += q.group) std::memcpy(rows + r * row_bytes + to + g, quad, q.group);
}

}  // namespace

void pack_row_quads(GgmlType type, int64_t cols, int64_t rows, uint8_t* data) {
  const uint64_t row_bytes = *ggml_nbytes(type, cols);
  std::vector<uint8_t> copy(kTileRows * row_bytes);
  for (int64_t r = 0; r < rows; r += kTileRows) {
    uint8_t* quad = data + r * row_bytes;
    std::memcpy(copy.data(), quad, copy.size());
    for_quad_fields(type, cols, [&](size_t at, const QuadField& q, size_t from) {
      pack_field(q, quad + at, copy.data(), row_bytes, from);
    });
  }
}

void unpack_row_quad(GgmlType type, int64_t cols, const uint8_t* quad, uint8_t* rows) {
  const uint64_t row_bytes = *ggml_nbytes(type, cols);
  for_quad_fields(type, cols, [&](size_t at, const QuadField& q, size_t to) {
    unpack_field(q, quad + at, rows, row_bytes, to);
  });
}

}  // namespace wasmlm
