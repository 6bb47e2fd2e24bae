// Test helper: writes GGUF files byte by byte, independently of the reader.
//
// Versions 1 (u32 counts, string lengths and dims), 2 and 3 (u64), little- or
// big-endian (as gguf-py's --bigendian writes them: the magic stays the bytes
// "GGUF", every number is byte-swapped, string bytes are not). Every field can
// be set to an invalid value, so error tests describe broken files with it too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wasmlm_test {

// GGUF metadata value type ids.
enum GType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};

// Bytes of one scalar of a type on disk; 0 for string/array/invalid ids.
uint32_t gtype_size(uint32_t type);

// A metadata value as written: `type` is the raw id (may be invalid).
struct GValue {
  uint32_t type = kU8;
  uint64_t bits = 0;          // scalars: the value's bytes, zero-extended (floats: IEEE bits)
  std::string str;            // kString
  uint32_t elem_type = kU8;   // kArray: element type id (may be invalid)
  std::vector<GValue> items;  // kArray: elements (nested arrays are kArray items)
  std::optional<uint64_t> count_override;  // kArray: count written instead of items.size()
  std::optional<uint64_t> len_override;    // kString: length written instead of str.size()

  static GValue u8(uint8_t v);
  static GValue i8(int8_t v);
  static GValue u16(uint16_t v);
  static GValue i16(int16_t v);
  static GValue u32(uint32_t v);
  static GValue i32(int32_t v);
  static GValue f32(float v);
  static GValue f32_bits(uint32_t bits);
  static GValue boolean(bool v);
  static GValue raw_bool(uint8_t byte);  // any byte, e.g. 2
  static GValue string(std::string v);
  static GValue u64(uint64_t v);
  static GValue i64(int64_t v);
  static GValue f64(double v);
  static GValue f64_bits(uint64_t bits);
  static GValue array(uint32_t elem_type, std::vector<GValue> items);
  static GValue raw(uint32_t type, uint64_t bits);  // any type id with scalar bits
};

// Bytes per block and elements per block of ggml type ids, as ggml-common.h
// lays blocks out (own table, not the library's registry). nullopt: unknown id.
struct GgmlBlock {
  uint32_t block_size;
  uint32_t type_size;
};
std::optional<GgmlBlock> ggml_block(uint32_t type_id);
// Bytes of a tensor of n elements; nullopt if unknown type or partial block.
std::optional<uint64_t> ggml_tensor_bytes(uint32_t type_id, uint64_t n_elements);

struct GTensor {
  std::string name;
  std::vector<uint64_t> dims;  // ggml order, ne[0] first; written as given (0..n dims)
  uint32_t type = 0;           // ggml type id
  // Data bytes. If empty and the type is known, `nbytes` deterministic
  // pseudo-random bytes are generated (seeded by the name).
  std::vector<uint8_t> data;
  // Offset relative to the data section written instead of the computed one.
  std::optional<uint64_t> offset_override;
};

struct GgufSpec {
  uint32_t version = 3;
  bool big_endian = false;
  std::string magic = "GGUF";                // exactly 4 bytes written
  std::optional<uint32_t> version_override;  // the version field's value (host order before swapping)
  std::optional<uint64_t> n_tensors_override, n_kv_override;
  std::vector<std::pair<std::string, GValue>> kv;
  std::vector<GTensor> tensors;
  // Alignment used for the layout. 0: general.alignment from `kv` when it is
  // an integer, else 32. (Does not add a general.alignment key.)
  uint64_t layout_alignment = 0;
  // Pad the file end to the alignment after the last tensor (as gguf-py and
  // llama.cpp do). With no tensors, the file ends after the padded header.
  bool pad_end = true;
};

// Where things went in a written file (absolute byte offsets).
struct GgufLayout {
  std::vector<uint8_t> bytes;
  uint64_t n_tensors_at = 0, n_kv_at = 0;
  std::vector<uint64_t> kv_at;        // start of each KV entry (its key length)
  std::vector<uint64_t> kv_value_at;  // start of each value (after the u32 type)
  std::vector<uint64_t> tensor_info_at;    // start of each tensor info (its name length)
  std::vector<uint64_t> tensor_dims_at;    // its u32 n_dims field
  std::vector<uint64_t> tensor_type_at;    // its u32 type field
  std::vector<uint64_t> tensor_offset_at;  // its u64 offset field
  uint64_t header_end = 0;   // end of the tensor infos
  uint64_t alignment = 32;
  uint64_t data_offset = 0;  // header_end padded to the alignment
  std::vector<uint64_t> tensor_offset;  // absolute offset of each tensor's data
  std::vector<uint64_t> tensor_nbytes;
  std::vector<std::vector<uint8_t>> tensor_data;  // the bytes written for each tensor
  uint64_t data_end = 0;     // end of the last tensor's data (max over tensors)
};

GgufLayout write_gguf(const GgufSpec& spec);

// A small valid file: a few metadata entries and two F32 tensors.
GgufSpec small_gguf_spec(uint32_t version = 3, bool big_endian = false);

}  // namespace wasmlm_test
