// llama.cpp's pre-GGUF files: GGML (unversioned), GGMF v1 and GGJT v1-v3.
//
// Layout: u32 magic, u32 version (not in GGML), 7 u32 hyperparameters
// {n_vocab, n_embd, n_mult, n_head, n_layer, n_rot, ftype}, n_vocab tokens
// {u32 len, bytes, f32 score (not in GGML)}, then tensor records until the
// end of the file: {u32 n_dims, u32 name_len, u32 type, u32 dims[n_dims],
// name, (GGJT: padding to 32 bytes), data}. Hyperparameters are presented
// under the GGUF key names, and LLaMA tensors under llama.cpp's GGUF tensor
// names (tok_embeddings.weight -> token_embd.weight, layers.N.attention.wq
// -> blk.N.attn_q, ...; the data is untouched: llama.cpp's old convert.py
// had already permuted Q/K into its rotary layout), so the rest of wasmlm
// reads one vocabulary and a GGJT file runs like the GGUF llama.cpp's
// convert_llama_ggml_to_gguf.py would make of it.
#include <algorithm>
#include <string>
#include <utility>

#include "core/checked_math.h"
#include "format/format_reader.h"
#include "format/limits.h"

namespace wasmlm {

namespace {

constexpr uint32_t kMagicGgml = 0x67676d6c;
constexpr uint32_t kMagicGgmf = 0x67676d66;
constexpr uint32_t kMagicGgjt = 0x67676a74;

// Bytes per 32-element block of the quantized types before GGJT v3 changed
// their scales from f32 to f16.
std::optional<uint32_t> pre_v3_block_bytes(GgmlType type) {
  switch (type) {
    case GgmlType::Q4_0: return 4 + 16;
    case GgmlType::Q4_1: return 4 + 4 + 16;
    case GgmlType::Q8_0: return 4 + 32;
    case GgmlType::Q8_1: return 4 + 4 + 32;
    default: return std::nullopt;
  }
}

// llama.cpp's tensor names before GGUF and in GGUF (its old llama.cpp and
// convert_llama_ggml_to_gguf.py): per layer after "layers.N." / "blk.N.".
constexpr std::pair<const char*, const char*> kLayerNames[] = {
    {"attention.wq.weight", "attn_q.weight"},       {"attention.wk.weight", "attn_k.weight"},
    {"attention.wv.weight", "attn_v.weight"},       {"attention.wo.weight", "attn_output.weight"},
    {"feed_forward.w1.weight", "ffn_gate.weight"},  {"feed_forward.w2.weight", "ffn_down.weight"},
    {"feed_forward.w3.weight", "ffn_up.weight"},    {"attention_norm.weight", "attn_norm.weight"},
    {"ffn_norm.weight", "ffn_norm.weight"},
};
constexpr std::pair<const char*, const char*> kModelNames[] = {
    {"tok_embeddings.weight", "token_embd.weight"},
    {"norm.weight", "output_norm.weight"},
    {"output.weight", "output.weight"},
};

// The GGUF name of a legacy LLaMA tensor; other names are kept.
std::string gguf_tensor_name(const std::string& name) {
  for (const auto& [from, to] : kModelNames)
    if (name == from) return to;
  const std::string layers = "layers.";
  if (name.compare(0, layers.size(), layers) != 0) return name;
  size_t i = layers.size(), digits = 0;
  while (i + digits < name.size() && name[i + digits] >= '0' && name[i + digits] <= '9') ++digits;
  if (digits == 0 || digits > 9 || i + digits >= name.size() || name[i + digits] != '.') return name;
  const std::string rest = name.substr(i + digits + 1);
  for (const auto& [from, to] : kLayerNames)
    if (rest == from) return "blk." + name.substr(i, digits) + "." + to;
  return name;
}

class LegacyLlamaReader final : public FormatReader {
 public:
  UnitResult read_unit(ByteCursor& in, ModelFile& out) override {
    switch (state_) {
      case State::Header: return read_header(in, out);
      case State::Vocab: return read_vocab(in, out);
      case State::Records: return read_record(in, out);
    }
    return UnitResult::End;
  }

 private:
  enum class State { Header, Vocab, Records };

  UnitResult read_header(ByteCursor& in, ModelFile& out) {
    uint32_t magic = in.u32("magic");
    uint32_t version = 0;
    if (magic == kMagicGgml) {
      out.format = FileFormat::Ggml;
    } else if (magic == kMagicGgmf) {
      out.format = FileFormat::Ggmf;
      version = in.u32("GGMF version");
      if (version != 1) fail(ErrorCode::Unsupported, 4, "expected GGMF version 1, found " + std::to_string(version));
    } else if (magic == kMagicGgjt) {
      out.format = FileFormat::Ggjt;
      version = in.u32("GGJT version");
      if (version < 1 || version > 3)
        fail(ErrorCode::Unsupported, 4, "expected GGJT version 1, 2 or 3, found " + std::to_string(version));
    } else {
      fail(ErrorCode::BadFormat, 0, "expected the magic ggml, ggmf or ggjt");
    }
    static const char* kNames[7] = {"n_vocab", "n_embd", "n_mult", "n_head", "n_layer", "n_rot", "ftype"};
    uint32_t hp[7];
    for (int i = 0; i < 7; ++i) hp[i] = in.u32(kNames[i]);
    uint32_t n_vocab = hp[0], n_embd = hp[1], n_mult = hp[2];
    uint64_t min_token = out.format == FileFormat::Ggml ? 4 : 8;
    if (n_vocab > limits::kMaxVocab)
      fail(ErrorCode::TooLarge, in.pos() - 28,
           "vocabulary of " + std::to_string(n_vocab) + " tokens exceeds the limit of " + std::to_string(limits::kMaxVocab));
    if (n_vocab > in.bytes_left_in_file() / min_token)
      fail(ErrorCode::Truncated, in.pos() - 28, "vocabulary of " + std::to_string(n_vocab) + " tokens does not fit in the file");
    out.version = version;
    out.alignment = out.format == FileFormat::Ggjt ? 32 : 1;
    Metadata& m = out.metadata;
    m.add("general.architecture", MetaValue::of_string("llama"));
    m.add("general.file_type", MetaValue::of_u32(hp[6]));
    m.add("llama.vocab_size", MetaValue::of_u32(n_vocab));
    m.add("llama.embedding_length", MetaValue::of_u32(n_embd));
    if (n_mult != 0 && n_embd <= (1u << 24)) {
      // llama.cpp's rule before GGUF stored the FFN width.
      uint64_t n_ff = ((2ull * (4ull * n_embd) / 3 + n_mult - 1) / n_mult) * n_mult;
      m.add("llama.feed_forward_length", MetaValue::of_u64(n_ff));
    }
    m.add("llama.attention.head_count", MetaValue::of_u32(hp[3]));
    m.add("llama.block_count", MetaValue::of_u32(hp[4]));
    m.add("llama.rope.dimension_count", MetaValue::of_u32(hp[5]));
    // Not stored before GGUF: convert_llama_ggml_to_gguf.py's defaults.
    m.add("llama.context_length", MetaValue::of_u32(2048));
    m.add("llama.attention.layer_norm_rms_epsilon", MetaValue::of_f32(5e-6f));
    m.add("legacy.n_mult", MetaValue::of_u32(n_mult));
    n_vocab_ = n_vocab;
    state_ = State::Vocab;
    return UnitResult::Continue;
  }

  // The vocabulary as llama.cpp's convert_llama_ggml_to_gguf.py writes it:
  // ids 0-2 are <unk> (unknown) and <s>, </s> (control), other empty tokens
  // control, one-byte tokens 3-258 the byte tokens <0xXX>, and in the rest
  // the spaces the old convert.py wrote become SentencePiece's U+2581.
  static std::string gguf_token(uint32_t id, std::string text, int32_t* type) {
    *type = 1;  // normal
    if (id <= 2) {
      *type = id == 0 ? 2 : 3;
      return id == 0 ? "<unk>" : id == 1 ? "<s>" : "</s>";
    }
    if (text.empty()) {
      *type = 3;
      return text;
    }
    if (id <= 258 && text.size() == 1) {
      static const char kHex[] = "0123456789ABCDEF";
      const auto b = static_cast<uint8_t>(text[0]);
      *type = 6;
      return std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">";
    }
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
      if (c == ' ')
        out += "\xe2\x96\x81";
      else
        out += c;
    }
    return out;
  }

  UnitResult read_vocab(ByteCursor& in, ModelFile& out) {
    bool scored = out.format != FileFormat::Ggml;
    MetaArray tokens, scores, types;
    tokens.elem_type = MetaType::String;
    tokens.count = n_vocab_;
    tokens.strings.reserve(std::min<uint32_t>(n_vocab_, 1 << 16));
    scores.elem_type = MetaType::F32;
    scores.count = scored ? n_vocab_ : 0;
    types.elem_type = MetaType::I32;
    types.count = n_vocab_;
    // Grows with the tokens actually read, not with the declared count.
    scores.packed.reserve(std::min<uint64_t>(scores.count, 1 << 16) * 4);
    types.packed.reserve(std::min<uint64_t>(types.count, 1 << 16) * 4);
    for (uint32_t i = 0; i < n_vocab_; ++i) {
      uint64_t at = in.pos();
      uint32_t len = in.u32("token length");
      if (len > limits::kMaxTensorNameBytes)
        fail(ErrorCode::TooLarge, at, "token " + std::to_string(i) + " is " + std::to_string(len) + " bytes long");
      int32_t type = 1;
      tokens.strings.emplace_back(gguf_token(i, std::string(in.bytes(len, "token bytes")), &type));
      const auto* type_bytes = reinterpret_cast<const uint8_t*>(&type);
      types.packed.insert(types.packed.end(), type_bytes, type_bytes + 4);
      if (scored) {
        float s = in.f32("token score");
        const auto* bytes = reinterpret_cast<const uint8_t*>(&s);
        scores.packed.insert(scores.packed.end(), bytes, bytes + 4);
      }
    }
    out.metadata.add("tokenizer.ggml.model", MetaValue::of_string("llama"));
    out.metadata.add("tokenizer.ggml.tokens", MetaValue::of_array(std::move(tokens)));
    if (scored) out.metadata.add("tokenizer.ggml.scores", MetaValue::of_array(std::move(scores)));
    out.metadata.add("tokenizer.ggml.token_type", MetaValue::of_array(std::move(types)));
    if (n_vocab_ >= 3) {
      out.metadata.add("tokenizer.ggml.unknown_token_id", MetaValue::of_u32(0));
      out.metadata.add("tokenizer.ggml.bos_token_id", MetaValue::of_u32(1));
      out.metadata.add("tokenizer.ggml.eos_token_id", MetaValue::of_u32(2));
    }
    state_ = State::Records;
    return in.bytes_left_in_file() == 0 ? UnitResult::End : UnitResult::Continue;
  }

  UnitResult read_record(ByteCursor& in, ModelFile& out) {
    uint64_t at = in.pos();
    uint32_t n_dims = in.u32("tensor dimension count");
    uint32_t name_len = in.u32("tensor name length");
    uint32_t type_id = in.u32("tensor type");
    if (n_dims < 1 || n_dims > kMaxDims)
      fail(ErrorCode::BadFormat, at, "expected 1 to 4 tensor dimensions, found " + std::to_string(n_dims));
    if (name_len == 0 || name_len > limits::kMaxTensorNameBytes)
      fail(ErrorCode::BadFormat, at + 4, "expected a tensor name length of 1 to 4096, found " + std::to_string(name_len));
    TensorInfo t;
    t.n_dims = static_cast<int>(n_dims);
    uint64_t n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      t.ne[d] = in.u32("tensor dimension");
      n_elements = checked_mul(n_elements, t.ne[d], at, "tensor element count");
      if (n_elements > (uint64_t(1) << 62)) fail(ErrorCode::TooLarge, at, "tensor element count overflows");
    }
    t.name = gguf_tensor_name(std::string(in.bytes(name_len, "tensor name")));
    const GgmlTypeInfo* info = ggml_type_info(type_id);
    if (!info || (info->quantized && info->block_size != 32 && out.version < 3))
      fail(ErrorCode::Unsupported, at + 8,
           "tensor '" + t.name + "' has type id " + std::to_string(type_id) + ", which this llama file version cannot hold");
    t.type = info->type;
    std::optional<uint64_t> nbytes;
    auto old = pre_v3_block_bytes(t.type);
    if (old && (out.format != FileFormat::Ggjt || out.version < 3)) {
      legacy_quant_ = true;
      if (n_elements % 32 == 0) nbytes = n_elements / 32 * *old;
    } else {
      nbytes = ggml_nbytes(t.type, n_elements);
    }
    if (!nbytes)
      fail(ErrorCode::BadFormat, at,
           "tensor '" + t.name + "' has " + std::to_string(n_elements) + " elements, not a whole number of blocks");
    t.nbytes = *nbytes;
    if (out.format == FileFormat::Ggjt) in.align_to(32, "padding before tensor data");
    t.offset = in.pos();
    if (in.size_known() && t.nbytes > in.bytes_left_in_file())
      fail(ErrorCode::Truncated, t.offset,
           "tensor '" + t.name + "' needs " + std::to_string(t.nbytes) + " bytes of data, " +
               std::to_string(in.bytes_left_in_file()) + " are left in the file");
    if (legacy_quant_ && out.warnings.empty())
      out.warnings.push_back(
          "quantized tensors use the block layout from before GGJT v3; they are listed but cannot be run: re-convert the model");
    out.tensors.push_back(std::move(t));
    return UnitResult::TensorData;
  }

  State state_ = State::Header;
  uint32_t n_vocab_ = 0;
  bool legacy_quant_ = false;
};

}  // namespace

std::unique_ptr<FormatReader> make_legacy_llama_reader() { return std::make_unique<LegacyLlamaReader>(); }

}  // namespace wasmlm
