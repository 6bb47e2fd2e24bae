#include "format/metadata.h"

#include <cstring>

namespace wasmlm {

const char* meta_type_name(MetaType type) {
  switch (type) {
    case MetaType::U8: return "u8";
    case MetaType::I8: return "i8";
    case MetaType::U16: return "u16";
    case MetaType::I16: return "i16";
    case MetaType::U32: return "u32";
    case MetaType::I32: return "i32";
    case MetaType::F32: return "f32";
    case MetaType::Bool: return "bool";
    case MetaType::String: return "string";
    case MetaType::Array: return "array";
    case MetaType::U64: return "u64";
    case MetaType::I64: return "i64";
    case MetaType::F64: return "f64";
  }
  return "?";
}

uint32_t meta_type_size(MetaType type) {
  switch (type) {
    case MetaType::U8: case MetaType::I8: case MetaType::Bool: return 1;
    case MetaType::U16: case MetaType::I16: return 2;
    case MetaType::U32: case MetaType::I32: case MetaType::F32: return 4;
    case MetaType::U64: case MetaType::I64: case MetaType::F64: return 8;
    case MetaType::String: case MetaType::Array: return 0;
  }
  return 0;
}

bool meta_type_valid(uint32_t id) { return id <= static_cast<uint32_t>(MetaType::F64); }

namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Interprets the low `size` bytes of a host-order scalar of the given type.
double to_number(MetaType type, const uint8_t* p) {
  switch (type) {
    case MetaType::U8: return load<uint8_t>(p);
    case MetaType::I8: return load<int8_t>(p);
    case MetaType::Bool: return load<uint8_t>(p) != 0;
    case MetaType::U16: return load<uint16_t>(p);
    case MetaType::I16: return load<int16_t>(p);
    case MetaType::U32: return load<uint32_t>(p);
    case MetaType::I32: return load<int32_t>(p);
    case MetaType::F32: return load<float>(p);
    case MetaType::U64: return static_cast<double>(load<uint64_t>(p));
    case MetaType::I64: return static_cast<double>(load<int64_t>(p));
    case MetaType::F64: return load<double>(p);
    default: return 0;
  }
}

int64_t to_integer(MetaType type, const uint8_t* p) {
  switch (type) {
    case MetaType::U8: return load<uint8_t>(p);
    case MetaType::I8: return load<int8_t>(p);
    case MetaType::Bool: return load<uint8_t>(p) != 0;
    case MetaType::U16: return load<uint16_t>(p);
    case MetaType::I16: return load<int16_t>(p);
    case MetaType::U32: return load<uint32_t>(p);
    case MetaType::I32: return load<int32_t>(p);
    case MetaType::U64: return static_cast<int64_t>(load<uint64_t>(p));
    case MetaType::I64: return load<int64_t>(p);
    case MetaType::F32: return static_cast<int64_t>(load<float>(p));
    case MetaType::F64: return static_cast<int64_t>(load<double>(p));
    default: return 0;
  }
}

}  // namespace

double MetaArray::number(uint64_t i) const { return to_number(elem_type, packed.data() + i * meta_type_size(elem_type)); }
int64_t MetaArray::integer(uint64_t i) const {
  return to_integer(elem_type, packed.data() + i * meta_type_size(elem_type));
}

MetaValue MetaValue::of_u32(uint32_t v) { return MetaValue{MetaType::U32, v, {}, {}}; }
MetaValue MetaValue::of_i32(int32_t v) {
  MetaValue m{MetaType::I32, 0, {}, {}};
  std::memcpy(&m.bits, &v, sizeof v);
  return m;
}
MetaValue MetaValue::of_u64(uint64_t v) { return MetaValue{MetaType::U64, v, {}, {}}; }
MetaValue MetaValue::of_f32(float v) {
  MetaValue m{MetaType::F32, 0, {}, {}};
  std::memcpy(&m.bits, &v, sizeof v);
  return m;
}
MetaValue MetaValue::of_string(std::string v) { return MetaValue{MetaType::String, 0, std::move(v), {}}; }
MetaValue MetaValue::of_array(MetaArray a) {
  return MetaValue{MetaType::Array, 0, {}, std::make_shared<const MetaArray>(std::move(a))};
}

bool MetaValue::is_integer() const {
  switch (type) {
    case MetaType::U8: case MetaType::I8: case MetaType::U16: case MetaType::I16:
    case MetaType::U32: case MetaType::I32: case MetaType::U64: case MetaType::I64: case MetaType::Bool:
      return true;
    default:
      return false;
  }
}

bool MetaValue::is_number() const { return is_integer() || type == MetaType::F32 || type == MetaType::F64; }

std::optional<int64_t> MetaValue::as_int() const {
  if (!is_integer()) return std::nullopt;
  uint8_t raw[8];
  std::memcpy(raw, &bits, 8);
  return to_integer(type, raw);
}

std::optional<uint64_t> MetaValue::as_uint() const {
  if (!is_integer()) return std::nullopt;
  if (type == MetaType::U64) return bits;
  auto v = as_int();
  if (*v < 0) return std::nullopt;
  return static_cast<uint64_t>(*v);
}

std::optional<double> MetaValue::as_number() const {
  if (!is_number()) return std::nullopt;
  uint8_t raw[8];
  std::memcpy(raw, &bits, 8);
  return to_number(type, raw);
}

bool Metadata::add(std::string key, MetaValue value) {
  if (!index_.emplace(key, entries_.size()).second) return false;
  entries_.emplace_back(std::move(key), std::move(value));
  return true;
}

const MetaValue* Metadata::find(std::string_view key) const {
  auto it = index_.find(std::string(key));
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

std::optional<std::string> Metadata::get_string(std::string_view key) const {
  const MetaValue* v = find(key);
  if (!v || v->type != MetaType::String) return std::nullopt;
  return v->str;
}

std::optional<uint64_t> Metadata::get_uint(std::string_view key) const {
  const MetaValue* v = find(key);
  return v ? v->as_uint() : std::nullopt;
}

}  // namespace wasmlm
