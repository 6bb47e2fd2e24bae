// How IQ2_XXS, IQ2_XS and IQ2_S store one sub-block of 32 weights: four
// octets, each a grid entry (8 magnitudes) and a sign pattern, under two
// 4-bit scales s1 (weights 0-15) and s2 (16-31; IQ2_XXS has one scale for
// all 32): w = d * (0.5 + s) / 4 * grid * sign. The reference code
// (iq2_reference.h) and the SIMD kernels (iq2_kernel.h) read a block through
// these codecs only.
#pragma once

#include <cstdint>
#include <cstring>

#include "quant/blocks.h"
#include "quant/iq2_grids.h"
#include "quant/iq_signs.h"

namespace wasmlm {

// Codec(block, ib32) decodes sub-block ib32's indices; then for octet l in
// 0..3: grid(l) its 8 magnitudes, sign_bits(l) (bit j set: weight j
// negative), signs(l) the same as +-1 int16 lanes, sign_bytes(l) as 0xFF
// bytes (kSignBytes); ls1, ls2 = 2 s + 1.

// 8 bytes per sub-block (two uint32): bytes 0-3 pick a grid entry each; the
// second word holds 4 7-bit sign indices (kIqSigns) and, in its top 4 bits, s.
struct Iq2xxsCodec {
  using Block = block_iq2_xxs;
  static constexpr bool kOneScale = true;
  uint32_t aux[2];
  int s1, s2, ls1, ls2;
  Iq2xxsCodec(const Block& b, int ib32) {
    std::memcpy(aux, b.qs + 4 * ib32, 8);
    s1 = s2 = static_cast<int>(aux[1] >> 28);
    ls1 = ls2 = 2 * s1 + 1;
  }
  const uint64_t* grid(int l) const { return &kIq2xxsGrid[(aux[0] >> 8 * l) & 0xFF]; }
  uint8_t sign_bits(int l) const { return kIqSigns[(aux[1] >> 7 * l) & 127]; }
  const Iq2SignRow* signs(int l) const { return &kIq2SignsBy7[(aux[1] >> 7 * l) & 127]; }
  const uint64_t* sign_bytes(int l) const { return &kSignBytesBy7[(aux[1] >> 7 * l) & 127]; }
};

// Each uint16 of qs: a 9-bit grid index and, in its top 7 bits, a sign index
// (kIqSigns); scales[ib32]: s1 in the low nibble, s2 in the high one.
struct Iq2xsCodec {
  using Block = block_iq2_xs;
  static constexpr bool kOneScale = false;
  const uint16_t* q;
  int s1, s2, ls1, ls2;
  Iq2xsCodec(const Block& b, int ib32) : q(b.qs + 4 * ib32) {
    s1 = b.scales[ib32] & 0xF;
    s2 = b.scales[ib32] >> 4;
    ls1 = 2 * s1 + 1;
    ls2 = 2 * s2 + 1;
  }
  const uint64_t* grid(int l) const { return &kIq2xsGrid[q[l] & 511]; }
  uint8_t sign_bits(int l) const { return kIqSigns[q[l] >> 9]; }
  const Iq2SignRow* signs(int l) const { return &kIq2SignsBy7[q[l] >> 9]; }
  const uint64_t* sign_bytes(int l) const { return &kSignBytesBy7[q[l] >> 9]; }
};

// A 10-bit grid index per octet (low 8 bits in qs[0..31], high 2 in qh: bits
// 2l..2l+1 of qh[ib32]) and a whole sign byte (qs[32..63]); scales as IQ2_XS.
struct Iq2sCodec {
  using Block = block_iq2_s;
  static constexpr bool kOneScale = false;
  const Block& b;
  int ib32, s1, s2, ls1, ls2;
  Iq2sCodec(const Block& blk, int ib) : b(blk), ib32(ib) {
    s1 = b.scales[ib32] & 0xF;
    s2 = b.scales[ib32] >> 4;
    ls1 = 2 * s1 + 1;
    ls2 = 2 * s2 + 1;
  }
  int grid_index(int l) const { return b.qs[4 * ib32 + l] | ((b.qh[ib32] << (8 - 2 * l)) & 0x300); }
  const uint64_t* grid(int l) const { return &kIq2sGrid[grid_index(l)]; }
  uint8_t sign_bits(int l) const { return b.qs[QK_K / 8 + 4 * ib32 + l]; }
  const Iq2SignRow* signs(int l) const { return &kIq2SignsBy8[sign_bits(l)]; }
  const uint64_t* sign_bytes(int l) const { return &kSignBytes[sign_bits(l)]; }
};

}  // namespace wasmlm
