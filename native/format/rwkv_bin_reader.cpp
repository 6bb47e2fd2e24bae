// rwkv.cpp's model files (magic "ggmf", versions 100 and 101).
//
// Layout: u32 {magic, version, n_vocab, n_embed, n_layer, data_type}, then
// tensor records until the end of the file: u32 {n_dims, key_len, type},
// u32 dims[n_dims] (ggml order, reversed from PyTorch), key bytes, raw data,
// no alignment. Types use rwkv.cpp's own numbering, not GGUF's.
#include <string>

#include "core/checked_math.h"
#include "format/format_reader.h"
#include "format/limits.h"

namespace wasmlm {

namespace {

constexpr uint32_t kVersionOldQuant = 100;  // quantized layouts before ggml's 2023 change
constexpr uint32_t kVersionCurrent = 101;

struct RwkvType {
  const char* name;
  std::optional<GgmlType> ggml;
};

RwkvType rwkv_type(uint32_t id) {
  switch (id) {
    case 0: return {"FP32", GgmlType::F32};
    case 1: return {"FP16", GgmlType::F16};
    case 2: return {"Q4_0", GgmlType::Q4_0};
    case 3: return {"Q4_1", GgmlType::Q4_1};
    case 4: return {"Q4_1_O", std::nullopt};
    case 5: return {"Q4_2", std::nullopt};
    case 6: return {"Q4_3", std::nullopt};
    case 7: return {"Q5_0", GgmlType::Q5_0};
    case 8: return {"Q5_1", GgmlType::Q5_1};
    case 9: return {"Q8_0", GgmlType::Q8_0};
    default: return {nullptr, std::nullopt};
  }
}

class RwkvBinReader final : public FormatReader {
 public:
  UnitResult read_unit(ByteCursor& in, ModelFile& out) override {
    return header_done_ ? read_record(in, out) : read_header(in, out);
  }

 private:
  UnitResult read_header(ByteCursor& in, ModelFile& out) {
    in.skip(4, "magic");
    uint32_t version = in.u32("rwkv.cpp file version");
    uint32_t n_vocab = in.u32("n_vocab");
    uint32_t n_embed = in.u32("n_embed");
    uint32_t n_layer = in.u32("n_layer");
    uint64_t type_at = in.pos();
    uint32_t data_type = in.u32("data type");
    if (version != kVersionOldQuant && version != kVersionCurrent)
      fail(ErrorCode::Unsupported, 4, "expected rwkv.cpp file version 100 or 101, found " + std::to_string(version));
    RwkvType file_type = rwkv_type(data_type);
    if (!file_type.name)
      fail(ErrorCode::BadFormat, type_at, "expected an rwkv.cpp data type 0..9, found " + std::to_string(data_type));
    out.format = FileFormat::RwkvBin;
    out.version = version;
    out.alignment = 1;
    Metadata& m = out.metadata;
    m.add("general.architecture", MetaValue::of_string("rwkv"));
    m.add("general.file_type", MetaValue::of_string(file_type.name));
    m.add("rwkv.vocab_size", MetaValue::of_u32(n_vocab));
    m.add("rwkv.embedding_length", MetaValue::of_u32(n_embed));
    m.add("rwkv.block_count", MetaValue::of_u32(n_layer));
    header_done_ = true;
    return in.bytes_left_in_file() == 0 ? UnitResult::End : UnitResult::Continue;
  }

  UnitResult read_record(ByteCursor& in, ModelFile& out) {
    uint64_t at = in.pos();
    uint32_t n_dims = in.u32("tensor dimension count");
    uint32_t key_len = in.u32("tensor name length");
    uint32_t type_id = in.u32("tensor type");
    if (n_dims < 1 || n_dims > kMaxDims)
      fail(ErrorCode::BadFormat, at, "expected 1 to 4 tensor dimensions, found " + std::to_string(n_dims));
    if (key_len == 0 || key_len > limits::kMaxTensorNameBytes)
      fail(ErrorCode::BadFormat, at + 4, "expected a tensor name length of 1 to 4096, found " + std::to_string(key_len));
    RwkvType type = rwkv_type(type_id);
    if (!type.name)
      fail(ErrorCode::BadFormat, at + 8, "expected an rwkv.cpp tensor type 0..9, found " + std::to_string(type_id));
    if (!type.ggml)
      fail(ErrorCode::Unsupported, at + 8,
           std::string("tensor type ") + type.name + " was removed from rwkv.cpp; re-quantize the model from FP16/FP32");
    TensorInfo t;
    t.type = *type.ggml;
    t.n_dims = static_cast<int>(n_dims);
    uint64_t n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      t.ne[d] = in.u32("tensor dimension");
      n_elements = checked_mul(n_elements, t.ne[d], at, "tensor element count");
      if (n_elements > (uint64_t(1) << 62)) fail(ErrorCode::TooLarge, at, "tensor element count overflows");
    }
    t.name = std::string(in.bytes(key_len, "tensor name"));
    if (out.version == kVersionOldQuant && ggml_type_info(t.type).quantized)
      fail(ErrorCode::Unsupported, at + 8,
           "tensor '" + t.name + "' is quantized in the format of rwkv.cpp file version 100, which changed; "
           "re-quantize the model from its FP16/FP32 file with a current rwkv.cpp");
    auto nbytes = ggml_nbytes(t.type, n_elements);
    if (!nbytes)
      fail(ErrorCode::BadFormat, at,
           "tensor '" + t.name + "' has " + std::to_string(n_elements) + " elements, not a whole number of blocks");
    t.nbytes = *nbytes;
    t.offset = in.pos();
    if (in.size_known() && t.nbytes > in.bytes_left_in_file())
      fail(ErrorCode::Truncated, t.offset,
           "tensor '" + t.name + "' needs " + std::to_string(t.nbytes) + " bytes of data, " +
               std::to_string(in.bytes_left_in_file()) + " are left in the file");
    out.tensors.push_back(std::move(t));
    return UnitResult::TensorData;
  }

  bool header_done_ = false;
};

}  // namespace

std::unique_ptr<FormatReader> make_rwkv_bin_reader() { return std::make_unique<RwkvBinReader>(); }

}  // namespace wasmlm
