// Typed key/value metadata, with GGUF's 13 value types.
//
// Scalars are held in host byte order whatever the file's endianness. Arrays
// of numbers are kept packed (one vector of bytes), so a 128k-entry score
// array costs 512 KB rather than 128k objects.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wasmlm {

enum class MetaType : uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
  String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};

const char* meta_type_name(MetaType type);
// Bytes of one element on disk; 0 for String and Array (variable size).
uint32_t meta_type_size(MetaType type);
bool meta_type_valid(uint32_t id);

struct MetaValue;

struct MetaArray {
  MetaType elem_type = MetaType::U8;
  uint64_t count = 0;
  std::vector<uint8_t> packed;        // numeric/bool elements, host byte order
  std::vector<std::string> strings;   // elem_type == String
  std::vector<MetaValue> arrays;      // elem_type == Array (nested)

  // Element i of a numeric array, converted. Precondition: numeric elem_type.
  double number(uint64_t i) const;
  int64_t integer(uint64_t i) const;
};

struct MetaValue {
  MetaType type = MetaType::U8;
  uint64_t bits = 0;  // scalar: unsigned/signed value, or IEEE bits of a float
  std::string str;
  std::shared_ptr<const MetaArray> array;

  static MetaValue of_u32(uint32_t v);
  static MetaValue of_i32(int32_t v);
  static MetaValue of_u64(uint64_t v);
  static MetaValue of_f32(float v);
  static MetaValue of_string(std::string v);
  static MetaValue of_array(MetaArray a);

  bool is_integer() const;
  bool is_number() const;
  // Conversions; nullopt when the value is not of a compatible kind.
  std::optional<int64_t> as_int() const;
  std::optional<uint64_t> as_uint() const;
  std::optional<double> as_number() const;
};

class Metadata {
 public:
  // Returns false if the key already exists (the value is not stored).
  bool add(std::string key, MetaValue value);
  const MetaValue* find(std::string_view key) const;
  std::optional<std::string> get_string(std::string_view key) const;
  std::optional<uint64_t> get_uint(std::string_view key) const;

  size_t size() const { return entries_.size(); }
  const std::vector<std::pair<std::string, MetaValue>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, MetaValue>> entries_;  // file order
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace wasmlm
