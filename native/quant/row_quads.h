// Weights repacked at load into row quads, as llama.cpp's repacked CPU types
// do: kTileRows (4) rows stored as one, block by block, each field of a block
// interleaved across the 4 rows `group` bytes at a time. Where the field is
// the levels and the group 4 bytes, one 16-byte load holds the 4 rows'
// levels of the same 4 weights: the operand of a dot-add whose lanes are the
// rows (row_lanes_relaxed.h), with nothing to interleave or reduce per token.
// A field may have a codec of its own instead (the K-quants' 6-bit scales:
// k_scales.h), into a form its kernel unpacks for the 4 rows at once.
// A quad takes the bytes of its 4 rows, in the same place.
#pragma once

#include <cstdint>

#include "core/ggml_type.h"

namespace wasmlm {

struct QuadField {
  uint16_t size;   // bytes per row and block
  uint16_t group;  // bytes of one row before the next row's; divides size (0: a codec)
  // group 0: the 4 rows' fields (size bytes each) rewritten into the quad's
  // 4 * size bytes, and back, by the field's own codec.
  void (*encode)(const uint8_t* const* rows, uint8_t* quad) = nullptr;
  void (*decode)(const uint8_t* quad, uint8_t* const* rows) = nullptr;
};

// A type's quad layout: its block's fields in order (n_fields == 0: none).
struct QuadLayout {
  int n_fields = 0;
  QuadField fields[6] = {};
};

// The `rows` rows (a multiple of 4) of `cols` weights of `type` at `data`,
// one after another, rewritten in place as quads of the type's
// QuantTraits::quad_layout.
void pack_row_quads(GgmlType type, int64_t cols, int64_t rows, uint8_t* data);
// The quad at `quad` (4 rows of `cols` weights of `type`) as its 4 rows, one
// after another, at `rows` (another place).
void unpack_row_quad(GgmlType type, int64_t cols, const uint8_t* quad, uint8_t* rows);

}  // namespace wasmlm
