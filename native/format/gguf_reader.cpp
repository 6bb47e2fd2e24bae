// GGUF v1 (32-bit counts), v2 and v3 (64-bit counts), little- or big-endian.
//
// Layout: "GGUF", u32 version, n_tensors, n_kv, then n_kv entries
// {string key, u32 value type, value}, then n_tensors entries {string name,
// u32 n_dims, dims, u32 type, u64 offset}, then padding to general.alignment
// and the data section; tensor offsets are relative to it.
#include <algorithm>
#include <string>

#include "core/checked_math.h"
#include "format/format_reader.h"
#include "format/limits.h"

namespace wasmlm {

namespace {

// Containers grow with the bytes that really arrive, not with declared counts.
constexpr uint64_t kReserveCap = 1 << 16;

class GgufReader final : public FormatReader {
 public:
  UnitResult read_unit(ByteCursor& in, ModelFile& out) override {
    in.set_big_endian(out.big_endian);
    switch (state_) {
      case State::Header: return read_header(in, out);
      case State::Metadata: return read_kv(in, out);
      case State::Tensors: return read_tensor_info(in, out);
    }
    return UnitResult::End;
  }

 private:
  enum class State { Header, Metadata, Tensors };

  // --- header ---------------------------------------------------------------
  UnitResult read_header(ByteCursor& in, ModelFile& out) {
    in.skip(4, "GGUF magic");
    uint32_t version = in.u32("GGUF version");
    bool big = false;
    if (version == 0 || version > 0xFFFF) {
      // A big-endian file: the magic is written as bytes, numbers byte-swapped.
      version = __builtin_bswap32(version);
      big = true;
    }
    if (version < 1 || version > 3)
      fail(ErrorCode::Unsupported, 4, "expected GGUF version 1, 2 or 3, found " + std::to_string(version));
    in.set_big_endian(big);
    uint64_t n_tensors = count(in, version, "tensor count");
    uint64_t n_kv = count(in, version, "metadata entry count");
    // Smallest possible entries: a KV is a key length, one key byte, a type and a 1-byte value.
    uint64_t len_size = version == 1 ? 4 : 8;
    check_count(in, n_kv, len_size + 1 + 4 + 1, limits::kMaxMetadataEntries, "metadata entries", 8 + len_size);
    check_count(in, n_tensors, len_size + 4 + 4 + 4 + 8, limits::kMaxTensors, "tensors", 8);
    out.format = FileFormat::Gguf;
    out.version = version;
    out.big_endian = big;
    version_ = version;
    n_tensors_ = n_tensors;
    n_kv_ = n_kv;
    state_ = State::Metadata;
    return n_kv_ == 0 ? finish_metadata(in, out) : UnitResult::Continue;
  }

  uint64_t count(ByteCursor& in, uint32_t version, const char* what) {
    return version == 1 ? in.u32(what) : in.u64(what);
  }

  // A declared count of items, each at least `min_item` bytes, must fit in the
  // rest of the file and under `limit`.
  static void check_count(ByteCursor& in, uint64_t n, uint64_t min_item, uint64_t limit, const char* what,
                          uint64_t at) {
    if (n > limit)
      fail(ErrorCode::TooLarge, at,
           std::string("expected at most ") + std::to_string(limit) + " " + what + ", found " + std::to_string(n));
    if (n > in.bytes_left_in_file() / min_item)
      fail(ErrorCode::Truncated, at,
           std::string("file too short for ") + std::to_string(n) + " " + what + " (" +
               std::to_string(in.bytes_left_in_file()) + " bytes left)");
  }

  std::string read_string(ByteCursor& in, const char* what, uint64_t max_len) {
    uint64_t at = in.pos();
    uint64_t len = version_ == 1 ? in.u32(what) : in.u64(what);
    if (len > max_len)
      fail(ErrorCode::TooLarge, at, std::string(what) + " of " + std::to_string(len) + " bytes exceeds the limit of " +
                                        std::to_string(max_len));
    return std::string(in.bytes(len, what));
  }

  // --- metadata -------------------------------------------------------------
  UnitResult read_kv(ByteCursor& in, ModelFile& out) {
    uint64_t at = in.pos();
    std::string key = read_string(in, "metadata key", limits::kMaxStringBytes);
    if (key.empty()) fail(ErrorCode::BadFormat, at, "expected a non-empty metadata key");
    if (!is_valid_utf8(key)) fail(ErrorCode::BadFormat, at, "expected a metadata key in valid UTF-8");
    uint64_t type_at = in.pos();
    uint32_t type = in.u32("metadata value type");
    if (!meta_type_valid(type))
      fail(ErrorCode::BadFormat, type_at,
           "expected a metadata value type 0..12 for key '" + key + "', found " + std::to_string(type));
    MetaValue value = read_value(in, static_cast<MetaType>(type), 0);
    if (!out.metadata.add(key, std::move(value)))
      fail(ErrorCode::BadFormat, at, "duplicate metadata key '" + key + "'");
    if (key == "general.alignment") alignment_at_ = at;
    if (++kv_done_ < n_kv_) return UnitResult::Continue;
    return finish_metadata(in, out);
  }

  MetaValue read_value(ByteCursor& in, MetaType type, uint32_t depth) {
    MetaValue v;
    v.type = type;
    switch (type) {
      case MetaType::String:
        v.str = read_string(in, "string value", limits::kMaxStringBytes);
        return v;
      case MetaType::Array:
        v.array = std::make_shared<const MetaArray>(read_array(in, depth));
        return v;
      case MetaType::Bool: {
        uint64_t at = in.pos();
        uint8_t b = in.u8("bool value");
        if (b > 1) fail(ErrorCode::BadFormat, at, "expected a bool 0 or 1, found " + std::to_string(b));
        v.bits = b;
        return v;
      }
      default: {
        // Scalars keep their bits; values() swaps to host order.
        uint32_t size = meta_type_size(type);
        uint8_t raw[8] = {};
        in.values(raw, 1, size, "metadata value");
        uint64_t bits = 0;
        std::memcpy(&bits, raw, size);
        v.bits = bits;
        return v;
      }
    }
  }

  MetaArray read_array(ByteCursor& in, uint32_t depth) {
    uint64_t at = in.pos();
    if (depth >= limits::kMaxArrayNesting)
      fail(ErrorCode::TooLarge, at, "arrays nested deeper than " + std::to_string(limits::kMaxArrayNesting));
    uint32_t elem = in.u32("array element type");
    if (!meta_type_valid(elem))
      fail(ErrorCode::BadFormat, at, "expected an array element type 0..12, found " + std::to_string(elem));
    MetaArray a;
    a.elem_type = static_cast<MetaType>(elem);
    uint64_t count_at = in.pos();
    a.count = version_ == 1 ? in.u32("array length") : in.u64("array length");
    uint32_t size = meta_type_size(a.elem_type);
    uint64_t min_elem = size != 0 ? size : (a.elem_type == MetaType::String ? (version_ == 1 ? 4 : 8) : 4 + (version_ == 1 ? 4 : 8));
    if (a.count > in.bytes_left_in_file() / min_elem)
      fail(ErrorCode::Truncated, count_at,
           "array of " + std::to_string(a.count) + " " + meta_type_name(a.elem_type) + " elements does not fit in the " +
               std::to_string(in.bytes_left_in_file()) + " bytes left in the file");
    if (a.elem_type == MetaType::String) {
      a.strings.reserve(std::min<uint64_t>(a.count, kReserveCap));
      for (uint64_t i = 0; i < a.count; ++i) a.strings.push_back(read_string(in, "array string", limits::kMaxStringBytes));
    } else if (a.elem_type == MetaType::Array) {
      a.arrays.reserve(std::min<uint64_t>(a.count, kReserveCap));
      for (uint64_t i = 0; i < a.count; ++i) {
        MetaValue nested;
        nested.type = MetaType::Array;
        nested.array = std::make_shared<const MetaArray>(read_array(in, depth + 1));
        a.arrays.push_back(std::move(nested));
      }
    } else {
      in.require(a.count * size, "array elements");
      a.packed.resize(a.count * size);
      in.values(a.packed.data(), a.count, size, "array elements");
      if (a.elem_type == MetaType::Bool)
        for (uint64_t i = 0; i < a.count; ++i)
          if (a.packed[i] > 1) fail(ErrorCode::BadFormat, in.pos() - a.count + i, "expected a bool 0 or 1 in array");
    }
    return a;
  }

  UnitResult finish_metadata(ByteCursor& in, ModelFile& out) {
    alignment_ = 32;
    if (const MetaValue* v = out.metadata.find("general.alignment")) {
      auto a = v->as_uint();
      if (!a || *a == 0 || (*a & (*a - 1)) != 0 || *a > limits::kMaxAlignment)
        fail(ErrorCode::BadFormat, alignment_at_, "expected general.alignment to be a power of two up to 1 MiB");
      alignment_ = static_cast<uint32_t>(*a);
    }
    out.alignment = alignment_;
    state_ = State::Tensors;
    out.tensors.reserve(std::min<uint64_t>(n_tensors_, kReserveCap));
    if (n_tensors_ == 0) return finish_tensors(in, out);
    return UnitResult::Continue;
  }

  // --- tensor infos -----------------------------------------------------------
  UnitResult read_tensor_info(ByteCursor& in, ModelFile& out) {
    uint64_t at = in.pos();
    TensorInfo t;
    t.name = read_string(in, "tensor name", limits::kMaxTensorNameBytes);
    if (!is_valid_utf8(t.name)) fail(ErrorCode::BadFormat, at, "expected a tensor name in valid UTF-8");
    uint64_t dims_at = in.pos();
    uint32_t n_dims = in.u32("tensor dimension count");
    if (n_dims < 1 || n_dims > kMaxDims)
      fail(ErrorCode::BadFormat, dims_at,
           "expected 1 to 4 dimensions for tensor '" + t.name + "', found " + std::to_string(n_dims));
    t.n_dims = static_cast<int>(n_dims);
    uint64_t n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t ne = version_ == 1 ? in.u32("tensor dimension") : in.u64("tensor dimension");
      n_elements = checked_mul(n_elements, ne, dims_at, "element count of tensor '" + t.name + "'");
      if (ne > (uint64_t(1) << 62) || n_elements > (uint64_t(1) << 62))
        fail(ErrorCode::TooLarge, dims_at, "element count of tensor '" + t.name + "' overflows");
      t.ne[d] = ne;
    }
    uint64_t type_at = in.pos();
    uint32_t type_id = in.u32("tensor type");
    const GgmlTypeInfo* info = ggml_type_info(type_id);
    if (!info)
      fail(ErrorCode::Unsupported, type_at,
           "expected a known ggml type id for tensor '" + t.name + "', found " + std::to_string(type_id));
    t.type = info->type;
    auto nbytes = ggml_nbytes(t.type, n_elements);
    if (!nbytes)
      fail(ErrorCode::BadFormat, dims_at,
           "tensor '" + t.name + "' has " + std::to_string(n_elements) + " elements, not a whole number of " +
               info->name + " blocks of " + std::to_string(info->block_size));
    t.nbytes = *nbytes;
    uint64_t offset_at = in.pos();
    t.offset = in.u64("tensor data offset");
    if (t.offset % alignment_ != 0)
      fail(ErrorCode::BadFormat, offset_at,
           "expected tensor '" + t.name + "' data offset " + std::to_string(t.offset) + " to be a multiple of " +
               std::to_string(alignment_));
    if (t.offset > (uint64_t(1) << 62) || t.nbytes > (uint64_t(1) << 62))
      fail(ErrorCode::TooLarge, offset_at, "tensor '" + t.name + "' data range overflows");
    if (!t.rows_block_aligned())
      out.warnings.push_back("tensor '" + t.name + "': rows of " + std::to_string(t.ne[0]) + " are not a whole number of " +
                             info->name + " blocks; its blocks run across row ends");
    out.tensors.push_back(std::move(t));
    if (out.tensors.size() < n_tensors_) return UnitResult::Continue;
    return finish_tensors(in, out);
  }

  UnitResult finish_tensors(ByteCursor& in, ModelFile& out) {
    uint64_t header_end = in.pos();
    uint64_t data_offset = (header_end + alignment_ - 1) / alignment_ * alignment_;
    out.data_offset = data_offset;
    validate_layout(out, header_end);
    return UnitResult::HeaderDone;
  }

  // Tensor names unique; data ranges inside the file and not overlapping.
  static void validate_layout(ModelFile& out, uint64_t header_end) {
    std::vector<size_t> order(out.tensors.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    // Zero-size tensors first among equal offsets: they sit at the next tensor's offset.
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const TensorInfo& x = out.tensors[a];
      const TensorInfo& y = out.tensors[b];
      return x.offset != y.offset ? x.offset < y.offset : x.nbytes < y.nbytes;
    });
    check_unique_tensor_names(out, header_end);
    uint64_t end = 0;
    for (size_t i : order) {
      TensorInfo& t = out.tensors[i];
      if (t.offset < end)
        fail(ErrorCode::BadFormat, header_end,
             "tensor '" + t.name + "' data at offset " + std::to_string(t.offset) + " overlaps the previous tensor");
      end = t.offset + t.nbytes;
      t.offset += out.data_offset;
    }
    uint64_t data_end = out.data_offset + end;
    if (out.file_size != 0) {
      if (!out.tensors.empty() && data_end > out.file_size)
        fail(ErrorCode::Truncated, out.file_size,
             "tensor data needs bytes up to " + std::to_string(data_end) + " but the file ends at byte " +
                 std::to_string(out.file_size));
      uint64_t used = out.tensors.empty() ? header_end : data_end;
      uint64_t padded = (used + out.alignment - 1) / out.alignment * out.alignment;
      out.trailing_bytes = out.file_size > padded ? out.file_size - padded : 0;
      if (out.trailing_bytes != 0)
        out.warnings.push_back(std::to_string(out.trailing_bytes) + " bytes after the last tensor are not used");
    }
  }

  State state_ = State::Header;
  uint32_t version_ = 0;
  uint64_t n_tensors_ = 0, n_kv_ = 0, kv_done_ = 0;
  uint32_t alignment_ = 32;
  uint64_t alignment_at_ = kNoOffset;  // where the general.alignment entry starts
};

}  // namespace

std::unique_ptr<FormatReader> make_gguf_reader() { return std::make_unique<GgufReader>(); }

}  // namespace wasmlm
