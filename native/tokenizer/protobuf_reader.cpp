#include "tokenizer/protobuf_reader.h"

#include <cstring>

#include "core/error.h"

namespace wasmlm {

float ProtoField::as_float() const {
  const uint32_t bits = static_cast<uint32_t>(value);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint64_t ProtoReader::varint() {
  const size_t start = pos_;
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) fail(ErrorCode::Truncated, base_ + start, "protobuf varint runs past the end");
    const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return v;
  }
  fail(ErrorCode::BadFormat, base_ + start, "protobuf varint longer than 10 bytes");
}

bool ProtoReader::next(ProtoField* f) {
  if (pos_ >= data_.size()) return false;
  f->offset = base_ + pos_;
  const uint64_t tag = varint();
  const uint64_t number = tag >> 3;
  if (number == 0 || number > 0x1FFFFFFF) fail(ErrorCode::BadFormat, f->offset, "protobuf field number 0 or too large");
  f->number = static_cast<uint32_t>(number);
  f->bytes = {};
  const size_t remaining_after_tag = data_.size() - pos_;
  auto fixed = [&](size_t n) {
    if (remaining_after_tag < n) fail(ErrorCode::Truncated, f->offset, "protobuf fixed-size field runs past the end");
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  };
  switch (tag & 7) {
    case 0:
      f->type = WireType::Varint;
      f->value = varint();
      break;
    case 1:
      f->type = WireType::Fixed64;
      f->value = fixed(8);
      break;
    case 5:
      f->type = WireType::Fixed32;
      f->value = fixed(4);
      break;
    case 2: {
      f->type = WireType::Bytes;
      const uint64_t len = varint();
      if (len > data_.size() - pos_)
        fail(ErrorCode::Truncated, f->offset,
             "protobuf field " + std::to_string(number) + " declares " + std::to_string(len) + " bytes, " +
                 std::to_string(data_.size() - pos_) + " remain");
      f->bytes = data_.substr(pos_, static_cast<size_t>(len));
      pos_ += static_cast<size_t>(len);
      break;
    }
    case 3: case 4:
      fail(ErrorCode::Unsupported, f->offset, "protobuf groups are not supported");
    default:
      fail(ErrorCode::BadFormat, f->offset, "protobuf wire type " + std::to_string(tag & 7) + " is invalid");
  }
  return true;
}

}  // namespace wasmlm
