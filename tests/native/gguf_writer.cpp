#include "gguf_writer.h"

#include <algorithm>
#include <cstring>

namespace wasmlm_test {

uint32_t gtype_size(uint32_t type) {
  switch (type) {
    case kU8: case kI8: case kBool: return 1;
    case kU16: case kI16: return 2;
    case kU32: case kI32: case kF32: return 4;
    case kU64: case kI64: case kF64: return 8;
    default: return 0;
  }
}

namespace {

template <typename T>
uint64_t zext(T v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);  // little-endian host: low bytes
  return bits;
}

GValue scalar(uint32_t type, uint64_t bits) {
  GValue v;
  v.type = type;
  v.bits = bits;
  return v;
}

class Out {
 public:
  explicit Out(bool big) : big_(big) {}
  std::vector<uint8_t> bytes;

  uint64_t pos() const { return bytes.size(); }
  void raw(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
  // The low `size` bytes of `v`, in the file's byte order.
  void num(uint64_t v, uint32_t size) {
    for (uint32_t i = 0; i < size; ++i) {
      uint32_t shift = 8 * (big_ ? size - 1 - i : i);
      bytes.push_back(static_cast<uint8_t>(v >> shift));
    }
  }
  void pad_to(uint64_t alignment) {
    while (bytes.size() % alignment != 0) bytes.push_back(0);
  }

 private:
  bool big_;
};

struct Writer {
  const GgufSpec& spec;
  Out out;
  uint32_t len_size() const { return spec.version == 1 ? 4 : 8; }

  void string(const std::string& s, std::optional<uint64_t> len = std::nullopt) {
    out.num(len.value_or(s.size()), len_size());
    out.raw(s.data(), s.size());
  }

  // The value's payload (without its type tag).
  void value(const GValue& v) {
    if (v.type == kString) {
      string(v.str, v.len_override);
    } else if (v.type == kArray) {
      out.num(v.elem_type, 4);
      out.num(v.count_override.value_or(v.items.size()), len_size());
      for (const GValue& item : v.items) value(item);
    } else {
      uint32_t size = gtype_size(v.type);
      out.num(v.bits, size != 0 ? size : 4);  // invalid types: write 4 bytes of payload
    }
  }
};

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

GValue GValue::u8(uint8_t v) { return scalar(kU8, v); }
GValue GValue::i8(int8_t v) { return scalar(kI8, zext(v)); }
GValue GValue::u16(uint16_t v) { return scalar(kU16, v); }
GValue GValue::i16(int16_t v) { return scalar(kI16, zext(v)); }
GValue GValue::u32(uint32_t v) { return scalar(kU32, v); }
GValue GValue::i32(int32_t v) { return scalar(kI32, zext(v)); }
GValue GValue::f32(float v) { return scalar(kF32, zext(v)); }
GValue GValue::f32_bits(uint32_t bits) { return scalar(kF32, bits); }
GValue GValue::boolean(bool v) { return scalar(kBool, v ? 1 : 0); }
GValue GValue::raw_bool(uint8_t byte) { return scalar(kBool, byte); }
GValue GValue::string(std::string v) {
  GValue g;
  g.type = kString;
  g.str = std::move(v);
  return g;
}
GValue GValue::u64(uint64_t v) { return scalar(kU64, v); }
GValue GValue::i64(int64_t v) { return scalar(kI64, zext(v)); }
GValue GValue::f64(double v) { return scalar(kF64, zext(v)); }
GValue GValue::f64_bits(uint64_t bits) { return scalar(kF64, bits); }
GValue GValue::array(uint32_t elem_type, std::vector<GValue> items) {
  GValue g;
  g.type = kArray;
  g.elem_type = elem_type;
  g.items = std::move(items);
  return g;
}
GValue GValue::raw(uint32_t type, uint64_t bits) { return scalar(type, bits); }

std::optional<GgmlBlock> ggml_block(uint32_t id) {
  constexpr uint32_t K = 256;
  switch (id) {
    case 0: return GgmlBlock{1, 4};      // F32
    case 1: return GgmlBlock{1, 2};      // F16
    case 2: return GgmlBlock{32, 18};    // Q4_0
    case 3: return GgmlBlock{32, 20};    // Q4_1
    case 6: return GgmlBlock{32, 22};    // Q5_0
    case 7: return GgmlBlock{32, 24};    // Q5_1
    case 8: return GgmlBlock{32, 34};    // Q8_0
    case 9: return GgmlBlock{32, 36};    // Q8_1
    case 10: return GgmlBlock{K, 84};    // Q2_K
    case 11: return GgmlBlock{K, 110};   // Q3_K
    case 12: return GgmlBlock{K, 144};   // Q4_K
    case 13: return GgmlBlock{K, 176};   // Q5_K
    case 14: return GgmlBlock{K, 210};   // Q6_K
    case 15: return GgmlBlock{K, 292};   // Q8_K
    case 16: return GgmlBlock{K, 66};    // IQ2_XXS
    case 17: return GgmlBlock{K, 74};    // IQ2_XS
    case 18: return GgmlBlock{K, 98};    // IQ3_XXS
    case 19: return GgmlBlock{K, 50};    // IQ1_S
    case 20: return GgmlBlock{32, 18};   // IQ4_NL
    case 21: return GgmlBlock{K, 110};   // IQ3_S
    case 22: return GgmlBlock{K, 82};    // IQ2_S
    case 23: return GgmlBlock{K, 136};   // IQ4_XS
    case 24: return GgmlBlock{1, 1};     // I8
    case 25: return GgmlBlock{1, 2};     // I16
    case 26: return GgmlBlock{1, 4};     // I32
    case 27: return GgmlBlock{1, 8};     // I64
    case 28: return GgmlBlock{1, 8};     // F64
    case 29: return GgmlBlock{K, 56};    // IQ1_M
    case 30: return GgmlBlock{1, 2};     // BF16
    case 34: return GgmlBlock{K, 54};    // TQ1_0
    case 35: return GgmlBlock{K, 66};    // TQ2_0
    case 39: return GgmlBlock{32, 17};   // MXFP4
    default: return std::nullopt;
  }
}

std::optional<uint64_t> ggml_tensor_bytes(uint32_t type_id, uint64_t n) {
  auto b = ggml_block(type_id);
  if (!b || n % b->block_size != 0) return std::nullopt;
  return n / b->block_size * b->type_size;
}

GgufLayout write_gguf(const GgufSpec& spec) {
  Writer w{spec, Out(spec.big_endian)};
  Out& out = w.out;
  GgufLayout L;

  std::string magic = spec.magic;
  magic.resize(4, '\0');
  out.raw(magic.data(), 4);
  out.num(spec.version_override.value_or(spec.version), 4);
  L.n_tensors_at = out.pos();
  out.num(spec.n_tensors_override.value_or(spec.tensors.size()), w.len_size());
  L.n_kv_at = out.pos();
  out.num(spec.n_kv_override.value_or(spec.kv.size()), w.len_size());

  L.alignment = spec.layout_alignment;
  for (const auto& [key, v] : spec.kv) {
    L.kv_at.push_back(out.pos());
    w.string(key);
    out.num(v.type, 4);
    L.kv_value_at.push_back(out.pos());
    w.value(v);
    if (L.alignment == 0 && key == "general.alignment" && gtype_size(v.type) != 0 && v.type != kF32 &&
        v.type != kF64 && v.bits != 0 && v.bits < (1u << 24))
      L.alignment = v.bits;
  }
  if (L.alignment == 0) L.alignment = 32;

  // Data layout: each tensor at the running end padded to the alignment.
  uint64_t running = 0;
  std::vector<uint64_t> rel;
  for (const GTensor& t : spec.tensors) {
    uint64_t n = 1;
    for (uint64_t d : t.dims) n *= d;
    std::vector<uint8_t> data = t.data;
    if (data.empty()) {
      if (auto nb = ggml_tensor_bytes(t.type, n)) {
        data.resize(*nb);
        uint64_t s = fnv1a(t.name);
        for (auto& b : data) {
          s = s * 6364136223846793005ull + 1442695040888963407ull;
          b = static_cast<uint8_t>(s >> 56);
        }
      }
    }
    uint64_t off = align_up(running, L.alignment);
    if (t.offset_override) off = *t.offset_override;
    running = std::max(running, off + data.size());
    rel.push_back(off);
    L.tensor_data.push_back(std::move(data));
  }

  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const GTensor& t = spec.tensors[i];
    L.tensor_info_at.push_back(out.pos());
    w.string(t.name);
    L.tensor_dims_at.push_back(out.pos());
    out.num(t.dims.size(), 4);
    for (uint64_t d : t.dims) out.num(d, w.len_size());
    L.tensor_type_at.push_back(out.pos());
    out.num(t.type, 4);
    L.tensor_offset_at.push_back(out.pos());
    out.num(rel[i], 8);
  }
  L.header_end = out.pos();
  out.pad_to(L.alignment);
  L.data_offset = out.pos();

  uint64_t end = L.data_offset;
  for (size_t i = 0; i < rel.size(); ++i) {
    L.tensor_offset.push_back(L.data_offset + rel[i]);
    L.tensor_nbytes.push_back(L.tensor_data[i].size());
    end = std::max(end, L.data_offset + rel[i] + L.tensor_data[i].size());
  }
  L.data_end = spec.tensors.empty() ? L.header_end : end;
  if (!spec.tensors.empty()) {
    out.bytes.resize(end, 0);
    for (size_t i = 0; i < rel.size(); ++i)
      std::copy(L.tensor_data[i].begin(), L.tensor_data[i].end(), out.bytes.begin() + L.tensor_offset[i]);
  } else if (!spec.pad_end) {
    out.bytes.resize(L.header_end);
  }
  if (spec.pad_end) out.pad_to(L.alignment);
  L.bytes = std::move(out.bytes);
  return L;
}

GgufSpec small_gguf_spec(uint32_t version, bool big_endian) {
  GgufSpec s;
  s.version = version;
  s.big_endian = big_endian;
  s.kv.emplace_back("general.architecture", GValue::string("llama"));
  s.kv.emplace_back("llama.block_count", GValue::u32(1));
  s.kv.emplace_back("flag", GValue::boolean(true));
  s.kv.emplace_back("scores", GValue::array(kF32, {GValue::f32(0.5f), GValue::f32(-1.0f)}));
  s.tensors.push_back(GTensor{"a", {4, 2}, 0, {}, {}});
  s.tensors.push_back(GTensor{"b", {3}, 0, {}, {}});
  return s;
}

}  // namespace wasmlm_test
