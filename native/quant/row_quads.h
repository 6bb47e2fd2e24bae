// Weights repacked at load into row quads, as llama.cpp's repacked CPU types
// do: kTileRows (4) rows stored as one, block by block, each field of a block
// interleaved across the 4 rows `group` bytes at a time. Where the field is
// the levels and the group 4 bytes, one 16-byte load holds the 4 rows'
// levels of the same 4 weights: the operand of a dot-add whose lanes are the
// rows (row_lanes_relaxed.h), with nothing to interleave or reduce per token.
// A quad takes the bytes of its 4 rows, in the same place.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wasmlm {

struct QuadField {
  uint16_t size;   // bytes per row and block
  uint16_t group;  // bytes of one row before the next row's; divides size
};

// A type's quad layout: its block's fields in order (n_fields == 0: none).
struct QuadLayout {
  int n_fields = 0;
  QuadField fields[6] = {};
};

// The 4 rows at `rows` (row_bytes apart, n_blocks blocks of block_bytes
// each) rewritten in place as a quad.
void pack_row_quad(const QuadLayout& layout, size_t block_bytes, int64_t n_blocks, uint8_t* rows, size_t row_bytes);
// The quad at `quad` as its 4 rows, row_bytes apart, at `rows` (another place).
void unpack_row_quad(const QuadLayout& layout, size_t block_bytes, int64_t n_blocks, const uint8_t* quad,
                     uint8_t* rows, size_t row_bytes);

}  // namespace wasmlm
