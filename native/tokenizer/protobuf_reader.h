// A minimal reader of the protobuf wire format (varints, length-delimited
// fields, fixed32/fixed64), enough to walk a message field by field without
// a schema or a protobuf dependency. Every length is checked against the
// bytes that remain; errors carry the absolute file offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace wasmlm {

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

struct ProtoField {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  uint64_t value = 0;      // Varint, Fixed32, Fixed64
  std::string_view bytes;  // Bytes
  uint64_t offset = 0;     // absolute offset of the field's tag

  // A proto int32 (negative values are sign-extended 64-bit varints).
  int32_t as_int32() const { return static_cast<int32_t>(static_cast<int64_t>(value)); }
  float as_float() const;
};

class ProtoReader {
 public:
  // `base` is the absolute offset of data[0], for error messages.
  ProtoReader(std::string_view data, uint64_t base = 0) : data_(data), base_(base) {}

  // Reads the next field; false at the end of the message. Throws
  // Error(Truncated) when a field runs past the end, Error(BadFormat) for
  // malformed tags, Error(Unsupported) for groups.
  bool next(ProtoField* field);
  // The absolute offset of a view returned in ProtoField::bytes.
  uint64_t offset_of(std::string_view bytes) const { return base_ + (bytes.data() - data_.data()); }

 private:
  uint64_t varint();

  std::string_view data_;
  uint64_t base_;
  size_t pos_ = 0;
};

}  // namespace wasmlm
