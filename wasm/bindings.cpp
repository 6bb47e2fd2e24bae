// Embind bindings: a one-to-one wrapper of the core API for JS.
//
// Errors never cross the boundary as C++ exceptions: every call that can fail
// returns null or {code, offset, message}, and web/src turns that into a
// WasmLMError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <emscripten/heap.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/ggml_type.h"
#include "format/gguf_split.h"
#include "format/incremental_parser.h"
#include "format/pth_checkpoint.h"
#include "format/pth_range_reader.h"
#include "model/decoder_features.h"
#include "model/meta_checkpoint.h"
#include "model/quantize_choice.h"
#include "model/rwkv_model.h"
#include "model/sequence_model.h"
#include "model/state_envelope.h"
#include "sampling/generation_text.h"
#include "sampling/sampler.h"
#include "quant/quant_traits.h"
#include "quant/relaxed/relaxed_simd.h"
#include "quant/tensor_stats.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_file.h"

using emscripten::val;
using namespace wasmlm;

namespace {

val error_value(const Error& e) {
  val out = val::object();
  out.set("code", std::string(error_code_name(e.code())));
  out.set("offset", e.offset() == kNoOffset ? val::null() : val(static_cast<double>(e.offset())));
  out.set("message", std::string(e.what()));
  return out;
}

template <typename F>
val guarded(F&& f) {
  try {
    f();
    return val::null();
  } catch (const Error& e) {
    return error_value(e);
  } catch (const std::bad_alloc&) {
    return error_value(Error(ErrorCode::OutOfMemory, kNoOffset, "out of memory"));
  } catch (const std::exception& e) {
    return error_value(Error(ErrorCode::Internal, kNoOffset, e.what()));
  }
}

// A copy of `n` bytes at `p` as a new JS typed array of the given constructor.
val typed_copy(const char* ctor, const void* p, size_t n_bytes, size_t elem_size) {
  val bytes = val(emscripten::typed_memory_view(n_bytes, static_cast<const uint8_t*>(p)));
  val copy = bytes.call<val>("slice");
  return val::global(ctor).new_(copy["buffer"], 0, n_bytes / elem_size);
}

val int64_value(int64_t v) {
  if (v >= -(int64_t(1) << 53) && v <= (int64_t(1) << 53)) return val(static_cast<double>(v));
  return val::global("BigInt")(std::to_string(v));
}

val uint64_value(uint64_t v) {
  if (v <= (uint64_t(1) << 53)) return val(static_cast<double>(v));
  return val::global("BigInt")(std::to_string(v));
}

std::string type_label(MetaType type, const MetaArray* array) {
  if (type != MetaType::Array) return meta_type_name(type);
  std::string inner = array->elem_type == MetaType::Array && !array->arrays.empty()
                          ? type_label(MetaType::Array, array->arrays.front().array.get())
                          : meta_type_name(array->elem_type);
  return "array<" + inner + ">";
}

val array_value(const MetaArray& a);

val scalar_value(const MetaValue& v) {
  switch (v.type) {
    case MetaType::String: return val(v.str);
    case MetaType::Array: return array_value(*v.array);
    case MetaType::Bool: return val(v.bits != 0);
    case MetaType::U64: return uint64_value(v.bits);
    case MetaType::I64: return int64_value(static_cast<int64_t>(v.bits));
    default: return val(*v.as_number());
  }
}

// Numeric arrays become typed arrays; string arrays are passed packed
// ({strings: bytes, offsets}) and decoded in JS in one pass.
val array_value(const MetaArray& a) {
  const void* p = a.packed.data();
  size_t n = a.packed.size();
  switch (a.elem_type) {
    case MetaType::U8: return typed_copy("Uint8Array", p, n, 1);
    case MetaType::I8: return typed_copy("Int8Array", p, n, 1);
    case MetaType::U16: return typed_copy("Uint16Array", p, n, 2);
    case MetaType::I16: return typed_copy("Int16Array", p, n, 2);
    case MetaType::U32: return typed_copy("Uint32Array", p, n, 4);
    case MetaType::I32: return typed_copy("Int32Array", p, n, 4);
    case MetaType::F32: return typed_copy("Float32Array", p, n, 4);
    case MetaType::U64: return typed_copy("BigUint64Array", p, n, 8);
    case MetaType::I64: return typed_copy("BigInt64Array", p, n, 8);
    case MetaType::F64: return typed_copy("Float64Array", p, n, 8);
    case MetaType::Bool: {
      val out = val::array();
      for (uint64_t i = 0; i < a.count; ++i) out.call<void>("push", val(a.packed[i] != 0));
      return out;
    }
    case MetaType::String: {
      std::vector<uint8_t> bytes;
      std::vector<uint32_t> offsets;
      offsets.reserve(a.strings.size() + 1);
      size_t total = 0;
      for (const auto& s : a.strings) total += s.size();
      bytes.reserve(total);
      for (const auto& s : a.strings) {
        offsets.push_back(static_cast<uint32_t>(bytes.size()));
        bytes.insert(bytes.end(), s.begin(), s.end());
      }
      offsets.push_back(static_cast<uint32_t>(bytes.size()));
      val packed = val::object();
      packed.set("packedStrings", typed_copy("Uint8Array", bytes.data(), bytes.size(), 1));
      packed.set("offsets", typed_copy("Uint32Array", offsets.data(), offsets.size() * 4, 4));
      return packed;
    }
    case MetaType::Array: {
      val out = val::array();
      for (const auto& nested : a.arrays) out.call<void>("push", array_value(*nested.array));
      return out;
    }
  }
  return val::null();
}

// How the decoder runs the file (decoder_features.h): null for other
// architectures, {error} when the file's keys do not fit its row.
val decoder_value(const ModelFile& f) {
  std::optional<DecoderFeatures> d;
  val err = guarded([&] { d = decoder_features(f); });
  if (!err.isNull()) {
    val out = val::object();
    out.set("error", err);
    return out;
  }
  if (!d) return val::null();
  val out = val::object();
  out.set("architecture", d->architecture);
  out.set("families", d->families);
  out.set("norms", d->norms);
  out.set("qkNorm", d->qk_norm);
  out.set("rope", d->rope);
  out.set("ropeDimensions", d->rope_dims);
  out.set("headDim", d->head_dim);
  out.set("activation", d->activation);
  out.set("layers", d->n_layer);
  out.set("slidingWindow", d->sliding_window);
  out.set("windowedLayers", d->windowed_layers);
  out.set("noRopeLayers", d->nope_layers);
  out.set("fusedQkv", d->fused_qkv);
  out.set("fusedGateUp", d->fused_gate_up);
  out.set("qkvBias", d->qkv_bias);
  out.set("tiedOutput", d->tied_output);
  out.set("longRope", d->long_rope);
  out.set("ropeBase", d->rope_base);
  out.set("ropeScale", d->rope_scale);
  out.set("ropeAttnFactor", d->rope_attn_factor);
  out.set("windowRopeBase", d->sliding_window ? val(d->window_rope_base) : val::null());
  out.set("windowRopeScale", d->sliding_window ? val(d->window_rope_scale) : val::null());
  out.set("queryScale", d->query_scale);
  out.set("attnSoftcap", d->attn_softcap);
  out.set("finalSoftcap", d->final_softcap);
  out.set("embeddingScale", d->embedding_scale);
  out.set("residualScale", d->residual_scale);
  out.set("logitScale", d->logit_scale);
  val kv = val::object();
  kv.set("bytesPerPosition", static_cast<double>(d->kv_bytes_full));
  kv.set("windowedBytesPerPosition", static_cast<double>(d->kv_bytes_windowed));
  kv.set("ringPositions", d->ring_positions);
  out.set("kvCacheF16", kv);
  return out;
}

val describe_file(const ModelFile& f) {
  val out = val::object();
  out.set("format", std::string(file_format_name(f.format)));
  out.set("version", f.version);
  out.set("endianness", std::string(f.big_endian ? "big" : "little"));
  out.set("alignment", f.alignment);
  out.set("dataOffset", static_cast<double>(f.data_offset));
  out.set("fileSize", static_cast<double>(f.file_size));
  out.set("trailingBytes", static_cast<double>(f.trailing_bytes));
  // Keys come from the file: a null-prototype object keeps "__proto__" a key.
  val metadata = val::global("Object").call<val>("create", val::null());
  val types = val::global("Object").call<val>("create", val::null());
  for (const auto& [key, value] : f.metadata.entries()) {
    metadata.set(key, scalar_value(value));
    types.set(key, type_label(value.type, value.array.get()));
  }
  out.set("metadata", metadata);
  out.set("metadataTypes", types);
  val tensors = val::array();
  for (const auto& t : f.tensors) {
    val shape = val::array();
    for (int d = 0; d < t.n_dims; ++d) shape.call<void>("push", static_cast<double>(t.ne[d]));
    val tv = val::object();
    tv.set("name", t.name);
    tv.set("type", std::string(ggml_type_info(t.type).name));
    tv.set("typeId", static_cast<uint32_t>(t.type));
    tv.set("shape", shape);
    tv.set("offset", static_cast<double>(t.offset));
    tv.set("nbytes", static_cast<double>(t.nbytes));
    tensors.call<void>("push", tv);
  }
  out.set("tensors", tensors);
  val warnings = val::array();
  for (const auto& w : f.warnings) warnings.call<void>("push", w);
  out.set("warnings", warnings);
  out.set("decoder", decoder_value(f));
  return out;
}

const char* phase_name(IncrementalParser::Phase p) {
  switch (p) {
    case IncrementalParser::Phase::Header: return "header";
    case IncrementalParser::Phase::TensorData: return "data";
    case IncrementalParser::Phase::Done: return "done";
  }
  return "done";
}

// Text <-> token ids with the model's own vocabulary (from GGUF metadata), or
// from a tokenizer file (SentencePiece .model, tokenizer.json, tiktoken).
class TokenizerBinding {
 public:
  explicit TokenizerBinding(const ModelFile& file) {
    error_ = guarded([&] { tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::from_model_file(file)); });
  }
  // `make` returns the Tokenizer; what it throws becomes error().
  template <typename Make>
  static TokenizerBinding* made_by(Make&& make) {
    auto* b = new TokenizerBinding();
    b->error_ = guarded([&] { b->tokenizer_ = std::make_unique<Tokenizer>(make()); });
    return b;
  }
  val error() const { return error_; }
  // Int32Array of ids, or an error object.
  val encode(const std::string& text, bool add_bos, bool parse_special) const {
    std::vector<int32_t> ids;
    val err = guarded([&] {
      EncodeOptions options;
      options.add_bos = add_bos;
      options.parse_special = parse_special;
      ids = tokenizer_->encode(text, options);
    });
    if (!err.isNull()) return err;
    return typed_copy("Int32Array", ids.data(), ids.size() * 4, 4);
  }
  // The UTF-8 bytes of ids (may end inside a character), or an error object.
  val decode(const val& ids, bool render_special) const {
    std::string bytes;
    val err = guarded([&] {
      std::vector<int32_t> v = emscripten::convertJSArrayToNumberVector<int32_t>(ids);
      for (int32_t id : v)
        if (id < 0 || static_cast<size_t>(id) >= tokenizer_->n_vocab())
          fail(ErrorCode::BadFormat, kNoOffset, "token id " + std::to_string(id) + " is outside the vocabulary");
      DecodeOptions options;
      options.render_special = render_special;
      bytes = tokenizer_->decode(v, options);
    });
    if (!err.isNull()) return err;
    return typed_copy("Uint8Array", bytes.data(), bytes.size(), 1);
  }
  int n_vocab() const { return tokenizer_ ? static_cast<int>(tokenizer_->n_vocab()) : 0; }
  int bos() const { return tokenizer_ ? tokenizer_->bos() : -1; }
  int eos() const { return tokenizer_ ? tokenizer_->eos() : -1; }
  bool add_bos_default() const { return tokenizer_ && tokenizer_->add_bos_default(); }
  const Tokenizer* get() const { return tokenizer_.get(); }

 private:
  TokenizerBinding() = default;

  std::unique_ptr<Tokenizer> tokenizer_;
  val error_ = val::null();
};

// tiktoken's special tokens from JS: undefined/null = LLaMA 3's right after
// the ranks, false = none, a number = LLaMA 3's from that id, an array of
// [text, id] pairs = exactly those.
TiktokenOptions tiktoken_options(const val& specials) {
  TiktokenOptions options;
  if (specials.isUndefined() || specials.isNull()) return options;
  if (specials.isFalse()) {
    options.llama3_specials = false;
  } else if (specials.isNumber()) {
    const double first = specials.as<double>();
    if (!(first >= 0 && first < 2147483647.0 - 256))
      fail(ErrorCode::BadFormat, kNoOffset, "tiktoken special tokens: bad first id");
    options.special_tokens = llama3_special_tokens(static_cast<int32_t>(first));
  } else if (specials.instanceof(val::global("Array"))) {
    options.llama3_specials = false;
    const size_t n = specials["length"].as<size_t>();
    for (size_t i = 0; i < n; ++i) {
      const val pair = specials[i];
      const double id = pair[1].as<double>();
      if (!pair[0].isString() || !(id >= 0 && id < 2147483647.0))
        fail(ErrorCode::BadFormat, kNoOffset, "tiktoken special tokens: expected [text, id] pairs");
      options.special_tokens.push_back({pair[0].as<std::string>(), static_cast<int32_t>(id)});
    }
  } else {
    fail(ErrorCode::BadFormat, kNoOffset, "tiktoken special tokens: expected false, a number or [text, id] pairs");
  }
  return options;
}

// A tokenizer from the whole bytes of a tokenizer file (JS deletes it).
TokenizerBinding* tokenizer_from_file_bytes(const std::string& bytes, const val& tiktoken_specials) {
  return TokenizerBinding::made_by([&] {
    TokenizerFileOptions options;
    options.tiktoken = tiktoken_options(tiktoken_specials);
    return tokenizer_from_file(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), options);
  });
}

// 'gguf', 'sentencepiece', 'tokenizer.json', 'tiktoken' or 'unknown', from a file's first bytes.
std::string tokenizer_file_format(const std::string& head) {
  return tokenizer_file_format_name(
      detect_tokenizer_file(reinterpret_cast<const uint8_t*>(head.data()), head.size()));
}

// The JS -> wasm byte path shared by parsing and model loading: JS writes
// each chunk into the staging buffer, then calls push(n).
class ParserFeed {
 public:
  explicit ParserFeed(double file_size) : parser_(static_cast<uint64_t>(file_size)) {}

  val need() const {
    IncrementalParser::Need n = current().need();
    val out = val::object();
    out.set("phase", std::string(phase_name(n.phase)));
    out.set("offset", static_cast<double>(n.offset));
    out.set("length", static_cast<double>(n.length));
    out.set("tensor", static_cast<double>(n.tensor));
    return out;
  }

  // Address of a buffer of at least n bytes for the next push.
  uintptr_t staging(size_t n) {
    if (staging_.size() < n) staging_.resize(n);
    return reinterpret_cast<uintptr_t>(staging_.data());
  }
  val push(size_t n) {
    return guarded([&] {
      if (n > staging_.size()) fail(ErrorCode::Internal, kNoOffset, "push larger than the staging buffer");
      current().push(staging_.data(), n);
      pushed();
    });
  }
  val finish() { return guarded([&] { current().finish(); }); }
  bool done() const { return current().done(); }
  bool directory_complete() const { return current().directory_complete(); }
  // The directory read so far (complete once directory_complete()).
  val describe() const { return describe_file(file()); }
  virtual ~ParserFeed() = default;

 protected:
  virtual void pushed() {}  // after each push that went in
  virtual const ModelFile& file() const { return current().file(); }
  // The parser bytes go to (a split model's loader has one per shard).
  virtual IncrementalParser& current() { return parser_; }
  virtual const IncrementalParser& current() const { return parser_; }
  IncrementalParser parser_;
  std::vector<uint8_t> staging_;
};

class Parser : public ParserFeed {
 public:
  using ParserFeed::ParserFeed;
  val skip_data() { return guarded([&] { parser_.skip_tensor_data(); }); }
  void release_staging() { std::vector<uint8_t>().swap(staging_); }
  // Once the directory is complete: the file's tokenizer (JS deletes it).
  TokenizerBinding* tokenizer() const { return new TokenizerBinding(parser_.file()); }
};

// Dequantizes a tensor streamed through the staging buffer and summarizes it.
class TensorStatsBinding {
 public:
  TensorStatsBinding(uint32_t type_id, double n_elements) {
    error_ = guarded([&] {
      const GgmlTypeInfo* info = ggml_type_info(type_id);
      if (!info) fail(ErrorCode::Unsupported, kNoOffset, "unknown tensor type id " + std::to_string(type_id));
      stats_ = std::make_unique<TensorStats>(info->type, static_cast<uint64_t>(n_elements));
    });
  }
  val error() const { return error_; }
  uintptr_t staging(size_t n) {
    if (staging_.size() < n) staging_.resize(n);
    return reinterpret_cast<uintptr_t>(staging_.data());
  }
  val push(size_t n) {
    return guarded([&] {
      if (!stats_ || n > staging_.size()) fail(ErrorCode::Internal, kNoOffset, "push without a valid tensor");
      stats_->add_bytes(staging_.data(), n);
    });
  }
  val result() const {
    val out = val::object();
    if (!stats_) return out;
    out.set("n", static_cast<double>(stats_->count()));
    out.set("sum", stats_->sum());
    out.set("sumsq", stats_->sum_of_squares());
    out.set("min", stats_->min());
    out.set("max", stats_->max());
    const auto& first = stats_->first_values();
    out.set("first32", typed_copy("Float32Array", first.data(), first.size() * 4, 4));
    out.set("complete", stats_->complete());
    return out;
  }

 private:
  std::unique_ptr<TensorStats> stats_;
  std::vector<uint8_t> staging_;
  val error_ = val::null();
};

val describe_pth(const PthCheckpoint& c) {
  val out = val::object();
  out.set("format", std::string(c.format == PthFormat::Zip ? "pytorch-zip" : "pytorch-legacy"));
  out.set("pickleProtocol", c.pickle_protocol);
  val tensors = val::array();
  for (const PthTensor& t : c.tensors) {
    const PthStorage& st = c.storages[t.storage];
    val v = val::object();
    v.set("name", t.name);
    v.set("dtype", std::string(pth_dtype_name(t.dtype)));
    val shape = val::array(), stride = val::array();
    for (int64_t d : t.shape) shape.call<void>("push", static_cast<double>(d));
    for (int64_t d : t.stride) stride.call<void>("push", static_cast<double>(d));
    v.set("shape", shape);
    v.set("stride", stride);
    v.set("storage", st.key);
    v.set("storageOffset", static_cast<double>(t.storage_offset));
    v.set("offset", static_cast<double>(c.data_offset(t)));
    v.set("nbytes", static_cast<double>(t.nbytes()));
    v.set("contiguous", t.contiguous());
    tensors.call<void>("push", v);
  }
  out.set("tensors", tensors);
  out.set("storageCount", static_cast<double>(c.storages.size()));
  return out;
}

val need_range(const NeedRange& need) {
  val range = val::object();
  range.set("offset", static_cast<double>(need.offset));
  range.set("length", static_cast<double>(need.length));
  return range;
}

// Dequantizes whole blocks of one tensor type streamed through the staging
// buffer: dequantize(n) gives the Float32Array of the n bytes' values.
class DequantizeBinding {
 public:
  explicit DequantizeBinding(uint32_t type_id) : info_(ggml_type_info(type_id)) {}
  uintptr_t staging(size_t n) {
    if (staging_.size() < n) staging_.resize(n);
    return reinterpret_cast<uintptr_t>(staging_.data());
  }
  val dequantize(size_t n) {
    val out = val::null();
    val err = guarded([&] {
      if (!info_ || !quant_traits(info_->type).to_float)
        fail(ErrorCode::Unsupported, kNoOffset, "cannot dequantize this tensor type");
      if (n > staging_.size() || n % info_->type_size != 0)
        fail(ErrorCode::Internal, kNoOffset, "dequantize: not whole blocks in the staging buffer");
      values_.resize(n / info_->type_size * info_->block_size);
      quant_traits(info_->type).to_float(staging_.data(), values_.data(), static_cast<int64_t>(values_.size()));
      out = typed_copy("Float32Array", values_.data(), values_.size() * 4, 4);
    });
    return err.isNull() ? out : err;
  }

 private:
  const GgmlTypeInfo* info_;
  std::vector<uint8_t> staging_;
  std::vector<float> values_;
};

// Reads a PyTorch checkpoint's directory (the zip's central directory and
// data.pkl, or the legacy pickles) from byte ranges JS supplies on demand:
// read() answers {need: {offset, length}} until it has what it asks for, then
// the tensors. (The zip directory is at the file's end, so this cannot be a
// front-to-back stream.)
class PthInspectBinding {
 public:
  explicit PthInspectBinding(double file_size) : reader_(static_cast<uint64_t>(file_size)) {}
  uintptr_t staging(size_t n) {
    if (staging_.size() < n) staging_.resize(n);
    return reinterpret_cast<uintptr_t>(staging_.data());
  }
  // The n staged bytes are the file's bytes from `offset` on.
  void add(double offset, size_t n) {
    reader_.add(static_cast<uint64_t>(offset), std::vector<uint8_t>(staging_.begin(), staging_.begin() + n));
  }
  val read() {
    val out = val::object();
    val err = guarded([&] {
      if (std::optional<PthCheckpoint> c = reader_.read()) out = describe_pth(*c);
      else out.set("need", need_range(reader_.need()));
    });
    return err.isNull() ? out : err;
  }

 private:
  PthRangeReader reader_;
  std::vector<uint8_t> staging_;
};

// Loads a model by streaming the whole file through the parser into a
// WeightStore (one allocation per tensor), then evaluates tokens.
class ModelBinding : public ParserFeed {
 public:
  explicit ModelBinding(double file_size) : ParserFeed(file_size) {
    parser_.set_sink(&store_);
    // The decoders' matrices into row quads where this engine has kernels
    // for their type (the relaxed dot-add as one instruction).
    store_.repack_on_load([this](const TensorInfo& info) {
      const ModelFile& first = parser_.file();
      return repack_on_load_picks(first.metadata.get_string("general.architecture").value_or(""), first.format, info);
    });
  }

  double weight_bytes() const { return static_cast<double>(store_.bytes_allocated()); }
  // The model's KV cache in bytes, once built.
  double kv_cache_bytes() const { return context_ ? static_cast<double>(context_->state_bytes()) : 0; }
  // Before the bytes stream in: quantize float matrices to `type` as they
  // arrive (quantize_on_load_picks: rwkv.cpp's choice for RWKV, every matrix
  // for the transformers; the file's first shard names the architecture).
  // Errors come back as an object.
  val quantize_on_load(const std::string& type) {
    return guarded([&] {
      const auto t = ggml_type_from_name(type);
      if (!t) fail(ErrorCode::Unsupported, kNoOffset, "unknown tensor type '" + type + "'");
      store_.quantize_on_load(*t, [this](const TensorInfo& info) {
        const ModelFile& first = parser_.file();
        return quantize_on_load_picks(first.metadata.get_string("general.architecture").value_or(""), first.format, info);
      });
    });
  }
  // What quantize-on-load did: [{name, from, to}] in the order the tensors arrived.
  val quantized_on_load() const {
    val out = val::array();
    for (const WeightStore::Quantized& q : store_.quantized()) {
      val row = val::object();
      row.set("name", q.name);
      row.set("from", std::string(ggml_type_info(q.from).name));
      row.set("to", std::string(ggml_type_info(q.to).name));
      out.call<void>("push", row);
    }
    return out;
  }
  // How many matrices were repacked into row quads on load.
  double tensors_in_quads() const { return static_cast<double>(store_.tensors_in_quads()); }
  std::string architecture() const { return context_ ? context_->architecture() : std::string(); }
  uint32_t n_ctx() const { return context_ ? context_->n_ctx() : 0; }

  // A split GGUF: once a shard has been read, the next one (of file_size
  // bytes) goes through its own parser into the same weight store.
  val begin_shard(double file_size) {
    return guarded([&] {
      if (!current().done()) fail(ErrorCode::Internal, kNoOffset, "beginShard before the previous shard was read");
      shard_files_.push_back(current().take_file());
      shard_sinks_.push_back(std::make_unique<ShardSink>(store_, shard_files_.size() << 24));
      shard_parsers_.push_back(std::make_unique<IncrementalParser>(static_cast<uint64_t>(file_size)));
      shard_parsers_.back()->set_sink(shard_sinks_.back().get());
    });
  }

  // A Meta checkpoint (params.json + consolidated.NN.pth) instead of a model
  // file. Per shard: beginCheckpointShard(size), then readCheckpointShard()
  // answers {need: {offset, length}} until checkpointRange() has given it
  // what its directory needs. planCheckpoint() then lists the byte ranges
  // (shard, offset, length) whose bytes pushCheckpoint() takes in order.
  void begin_checkpoint_shard(double file_size) {
    checkpoint_ranges_ = std::make_unique<PthRangeReader>(static_cast<uint64_t>(file_size));
  }
  void checkpoint_range(double offset, size_t n) {
    if (checkpoint_ranges_)
      checkpoint_ranges_->add(static_cast<uint64_t>(offset), std::vector<uint8_t>(staging_.begin(), staging_.begin() + n));
  }
  val read_checkpoint_shard() {
    val out = val::object();
    val err = guarded([&] {
      if (!checkpoint_ranges_) fail(ErrorCode::Internal, kNoOffset, "readCheckpointShard before beginCheckpointShard");
      std::optional<PthCheckpoint> c = checkpoint_ranges_->read();
      if (!c) {
        out.set("need", need_range(checkpoint_ranges_->need()));
        return;
      }
      checkpoint_parts_.push_back(std::move(*c));
      checkpoint_sizes_.push_back(checkpoint_ranges_->file_size());
      checkpoint_ranges_.reset();
    });
    return err.isNull() ? out : err;
  }
  // quantize: "" or a type name: the matrices are quantized to it as they arrive.
  val plan_checkpoint(const std::string& params_json, const std::string& quantize) {
    val out = val::object();
    val err = guarded([&] {
      if (!quantize.empty()) {
        const auto t = ggml_type_from_name(quantize);
        if (!t) fail(ErrorCode::Unsupported, kNoOffset, "unknown tensor type '" + quantize + "'");
        store_.quantize_on_load(*t, meta_checkpoint_quantizes);
      }
      checkpoint_ = std::make_unique<MetaCheckpointPlan>(plan_meta_checkpoint(params_json, checkpoint_parts_, checkpoint_sizes_));
      std::vector<PthCheckpoint>().swap(checkpoint_parts_);
      check_model_directory(checkpoint_->file);
      checkpoint_feed_ = std::make_unique<MetaCheckpointFeed>(*checkpoint_, store_);
      val reads = val::array();
      for (const MetaRead& r : checkpoint_->reads) {
        val v = val::object();
        v.set("shard", r.shard);
        v.set("offset", static_cast<double>(r.offset));
        v.set("length", static_cast<double>(r.length));
        reads.call<void>("push", v);
      }
      out.set("reads", reads);
    });
    return err.isNull() ? out : err;
  }
  val push_checkpoint(size_t n) {
    return guarded([&] {
      if (!checkpoint_feed_ || n > staging_.size()) fail(ErrorCode::Internal, kNoOffset, "pushCheckpoint without a plan");
      checkpoint_feed_->push(staging_.data(), n);
    });
  }

  // After the whole file (every shard) is in: builds the model and a context of n_ctx tokens.
  val build(uint32_t n_ctx, int n_threads, int kv_type) {  // kv_type: KvCacheType (0 F32, 1 F16, 2 Q8_0)
    return guarded([&] {
      std::vector<uint8_t>().swap(staging_);
      if (checkpoint_) {
        if (!checkpoint_feed_->done()) fail(ErrorCode::Truncated, kNoOffset, "the checkpoint's tensors have not all arrived");
        checkpoint_feed_.reset();
        file_ = std::move(checkpoint_->file);
        checkpoint_.reset();
        taken_ = true;
        return open_context(n_ctx, n_threads, kv_type);
      }
      ModelFile last = current().take_file();
      const auto split = gguf_split_info(shard_files_.empty() ? last : shard_files_.front());
      if (!shard_files_.empty() || (split && split->count > 1)) {
        shard_files_.push_back(std::move(last));
        file_ = merge_split_files(std::move(shard_files_));
      } else {
        file_ = std::move(last);
      }
      shard_parsers_.clear();
      taken_ = true;
      open_context(n_ctx, n_threads, kv_type);
    });
  }
  // The model's tokenizer: the one use_tokenizer() gave, else the file's.
  TokenizerBinding* tokenizer() const {
    if (tokenizer_) return TokenizerBinding::made_by([&] { return *tokenizer_; });
    return new TokenizerBinding(file_);
  }
  // A tokenizer read from a separate file (rwkv.cpp files carry none): a
  // copy is kept. Errors come back as an object.
  val use_tokenizer(const TokenizerBinding* t) {
    return guarded([&] {
      if (!t || !t->get()) fail(ErrorCode::Internal, kNoOffset, "useTokenizer: no tokenizer");
      if (context_ && t->get()->n_vocab() > context_->n_vocab())
        fail(ErrorCode::BadFormat, kNoOffset,
             "the tokenizer has " + std::to_string(t->get()->n_vocab()) + " tokens, the model only " +
                 std::to_string(context_->n_vocab()));
      tokenizer_ = std::make_unique<Tokenizer>(*t->get());
    });
  }
  uint32_t n_vocab() const { return context_ ? context_->n_vocab() : 0; }
  int threads() const { return pool_ ? pool_->size() : 0; }
  uint32_t n_past() const { return context_ ? context_->n_past() : 0; }
  void reset() {
    if (context_) context_->reset();
  }
  // Evaluates n token ids written at the staging address (int32); the
  // logits after the last one are then readable with logits().
  uintptr_t token_buffer(size_t n) {
    tokens_.resize(n);
    return reinterpret_cast<uintptr_t>(tokens_.data());
  }
  val eval(size_t n) {
    return guarded([&] {
      if (!context_) fail(ErrorCode::Internal, kNoOffset, "eval before build");
      if (n > tokens_.size()) fail(ErrorCode::Internal, kNoOffset, "eval past the token buffer");
      logits_ = context_->eval(tokens_.data(), static_cast<int>(n));
    });
  }
  // Picks the next token from the current logits; accept() records it for
  // the penalties. Errors come back as an object.
  val sample(const val& options) {
    val out = val::null();
    val err = guarded([&] {
      if (!logits_) fail(ErrorCode::Internal, kNoOffset, "sample before eval");
      if (!sampler_) sampler_ = std::make_unique<Sampler>(static_cast<int32_t>(n_vocab()), sampling_params(options));
      out = val(sampler_->sample(logits_));
    });
    return err.isNull() ? out : err;
  }
  void accept(int32_t token) {
    if (sampler_) sampler_->accept(token);
  }
  // New sampling options (or a new seed) take effect from the next sample().
  void reset_sampler() { sampler_.reset(); }

  // The text of a generation: begin_text() with {stop: [strings], maxTokens,
  // ignoreEos, after: the prompt's last ids}, then push_text(id) per generated id -> {text, reason}
  // (reason: null, or why it ended), flush_text() if it ended otherwise.
  val begin_text(const val& options) {
    return guarded([&] {
      if (!tokenizer_) tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::from_model_file(file_));
      StopParams params;
      const val stop = options["stop"];
      if (stop.isString()) params.stop_strings.push_back(stop.as<std::string>());
      else if (!stop.isUndefined() && !stop.isNull())
        for (size_t i = 0, n = stop["length"].as<size_t>(); i < n; ++i) params.stop_strings.push_back(stop[i].as<std::string>());
      if (options["maxTokens"].isNumber()) params.max_tokens = options["maxTokens"].as<int32_t>();
      if (!options["ignoreEos"].as<bool>()) params.stop_tokens = tokenizer_->end_of_generation();
      std::vector<int32_t> after;
      const val prompt = options["after"];
      if (!prompt.isUndefined() && !prompt.isNull()) {
        const size_t n = prompt["length"].as<size_t>();
        for (size_t i = 0; i < n; ++i) {
          const int32_t id = prompt[i].as<int32_t>();
          if (id < 0 || static_cast<size_t>(id) >= tokenizer_->n_vocab())
            fail(ErrorCode::Internal, kNoOffset, "begin_text: token id " + std::to_string(id) + " is outside the vocabulary");
          after.push_back(id);
        }
      }
      text_ = std::make_unique<GenerationText>(*tokenizer_, std::move(params), after);
    });
  }
  val push_text(int32_t id) {
    val out = val::object();
    if (!text_) return out;
    StopChecker::Step step = text_->push(id);
    out.set("text", step.text);
    out.set("reason", step.reason == StopReason::None ? val::null() : val(std::string(stop_reason_name(step.reason))));
    return out;
  }
  std::string flush_text() { return text_ ? text_->flush() : std::string(); }

  // Forgets positions from n on (prefix reuse); false if the model cannot
  // go back (RWKV), which then needs reset() and the tokens again.
  bool truncate(uint32_t n) { return context_ && context_->truncate(n); }
  // The context as bytes (Uint8Array, in a state envelope naming this model
  // and the n token ids written at the token buffer), or an error object.
  val save_state(size_t n) const {
    val out = val::null();
    val err = guarded([&] {
      if (!context_) fail(ErrorCode::Internal, kNoOffset, "saveState before build");
      if (n > tokens_.size() || n != context_->n_past())
        fail(ErrorCode::Internal, kNoOffset, "saveState: the token list does not match the context");
      const std::vector<int32_t> tokens(tokens_.begin(), tokens_.begin() + n);
      const std::vector<uint8_t> bytes = wrap_state(context_->save_state(), fingerprint_, tokens);
      out = typed_copy("Uint8Array", bytes.data(), bytes.size(), 1);
    });
    return err.isNull() ? out : err;
  }
  // Restores a state pushed through the staging buffer (n bytes) whose
  // token ids (n_tokens) are at the token buffer. Checked whole before the
  // context changes.
  val load_state(size_t n, size_t n_tokens) {
    return guarded([&] {
      if (!context_) fail(ErrorCode::Internal, kNoOffset, "loadState before build");
      if (n > staging_.size() || n_tokens > tokens_.size())
        fail(ErrorCode::Internal, kNoOffset, "loadState larger than the staging buffer");
      const std::vector<int32_t> tokens(tokens_.begin(), tokens_.begin() + n_tokens);
      const StatePayload payload = unwrap_state(staging_.data(), n, fingerprint_, tokens);
      context_->load_state(payload.data, payload.size);
      std::vector<uint8_t>().swap(staging_);
      logits_ = context_->logits();
    });
  }
  val logits() const {
    if (!logits_) return val::null();
    return typed_copy("Float32Array", logits_, n_vocab() * 4, 4);
  }

 private:
  WeightStore store_;
  ModelFile file_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<SequenceModel> context_;
  uint64_t fingerprint_ = 0;  // of the weights, for saved states
  std::vector<int32_t> tokens_;
  const float* logits_ = nullptr;
  std::unique_ptr<Sampler> sampler_;
  void open_context(uint32_t n_ctx, int n_threads, int kv_type) {
    // describe() lists the weights as stored: quantized on load, they have another type and size.
    for (TensorInfo& t : file_.tensors)
      if (const WeightStore::Tensor* stored = store_.find(t.name)) {
        t.type = stored->info.type;
        t.nbytes = stored->info.nbytes;
      }
    pool_ = std::make_unique<ThreadPool>(n_threads);
    SequenceOptions options;
    options.n_ctx = n_ctx;
    if (kv_type < 0 || kv_type > 2) fail(ErrorCode::BadFormat, kNoOffset, "unknown KV cache type " + std::to_string(kv_type));
    options.kv_type = static_cast<KvCacheType>(kv_type);
    context_ = open_sequence_model(file_, store_, *pool_, options);
    fingerprint_ = model_fingerprint(file_, store_, context_->n_vocab());
  }
  // A file whose directory is complete (and that is not one shard of
  // several) is refused now if the model cannot run, before its weights are
  // allocated; JS checks the memory the model needs only after this.
  void pushed() override {
    if (directory_checked_ || !shard_files_.empty() || !current().directory_complete()) return;
    directory_checked_ = true;
    const auto split = gguf_split_info(current().file());
    if (!split || split->count <= 1) check_model_directory(current().file());
  }
  bool directory_checked_ = false;
  // build() takes the directory from the parser (or the checkpoint's plan).
  const ModelFile& file() const override {
    if (checkpoint_) return checkpoint_->file;
    return taken_ ? file_ : current().file();
  }
  std::unique_ptr<PthRangeReader> checkpoint_ranges_;  // the shard whose directory is being read
  std::vector<PthCheckpoint> checkpoint_parts_;
  std::vector<uint64_t> checkpoint_sizes_;
  std::unique_ptr<MetaCheckpointPlan> checkpoint_;
  std::unique_ptr<MetaCheckpointFeed> checkpoint_feed_;
  IncrementalParser& current() override { return shard_parsers_.empty() ? parser_ : *shard_parsers_.back(); }
  const IncrementalParser& current() const override {
    return shard_parsers_.empty() ? parser_ : *shard_parsers_.back();
  }
  // Tensor i of shard k reaches the store as tensor k << 24 + i.
  class ShardSink final : public TensorSink {
   public:
    ShardSink(TensorSink& inner, size_t base) : inner_(inner), base_(base) {}
    void tensor_bytes(size_t index, const TensorInfo& info, uint64_t offset, const uint8_t* data, size_t n) override {
      inner_.tensor_bytes(base_ + index, info, offset, data, n);
    }

   private:
    TensorSink& inner_;
    size_t base_;
  };
  std::vector<ModelFile> shard_files_;  // the shards read before the current one
  std::vector<std::unique_ptr<ShardSink>> shard_sinks_;
  std::vector<std::unique_ptr<IncrementalParser>> shard_parsers_;
  bool taken_ = false;
  std::unique_ptr<Tokenizer> tokenizer_;  // for generated text
  std::unique_ptr<GenerationText> text_;

  static SamplingParams sampling_params(const val& o) {
    SamplingParams p;
    auto number = [&](const char* key, double fallback) {
      val v = o[key];
      return v.isUndefined() || v.isNull() ? fallback : v.as<double>();
    };
    p.temperature = static_cast<float>(number("temperature", p.temperature));
    p.top_k = static_cast<int32_t>(number("topK", p.top_k));
    p.top_p = static_cast<float>(number("topP", p.top_p));
    p.min_p = static_cast<float>(number("minP", p.min_p));
    p.repeat_penalty = static_cast<float>(number("repeatPenalty", p.repeat_penalty));
    p.presence_penalty = static_cast<float>(number("presencePenalty", p.presence_penalty));
    p.frequency_penalty = static_cast<float>(number("frequencyPenalty", p.frequency_penalty));
    p.penalty_last_n = static_cast<int32_t>(number("penaltyLastN", p.penalty_last_n));
    // The package checked the options; a seed comes as decimal digits (up to 2^64 - 1).
    const val seed = o["seed"];
    if (seed.isString()) p.seed = std::strtoull(seed.as<std::string>().c_str(), nullptr, 10);
    else if (seed.isNumber()) p.seed = static_cast<uint64_t>(seed.as<double>());
    // logitBias: [[token, bias], ...]; a bias of -Infinity bans the token.
    const val bias = o["logitBias"];
    if (!bias.isUndefined() && !bias.isNull())
      for (size_t i = 0, n = bias["length"].as<size_t>(); i < n; ++i)
        p.logit_bias.push_back({bias[i][0].as<int32_t>(), static_cast<float>(bias[i][1].as<double>())});
    return p;
  }
};

val type_table() {
  val out = val::array();
  for (uint32_t id = 0; id < 64; ++id) {
    const GgmlTypeInfo* t = ggml_type_info(id);
    if (!t) continue;
    val row = val::object();
    row.set("id", id);
    row.set("name", std::string(t->name));
    row.set("blockSize", t->block_size);
    row.set("typeSize", t->type_size);
    row.set("quantized", t->quantized);
    out.call<void>("push", row);
  }
  return out;
}

bool threaded_build() {
#ifdef WASMLM_THREADS
  return true;
#else
  return false;
#endif
}

// Free heap: the allocator's free bytes (holes and its top chunk), its top
// chunk alone, and the memory above the break that it has not taken yet.
// reserveHeap() grows the heap by only what these cannot give.
emscripten::val heap_free() {
  const struct mallinfo info = mallinfo();
  const auto brk = reinterpret_cast<uintptr_t>(sbrk(0));
  emscripten::val out = emscripten::val::object();
  out.set("free", static_cast<double>(info.fordblks));
  out.set("top", static_cast<double>(info.keepcost));
  out.set("unclaimed", static_cast<double>(emscripten_get_heap_size() - brk));
  return out;
}

// Runs `n` threads that each sum a slice of a series; returns how many
// distinct threads did work (n when pthreads work, 1 in the single-threaded build).
int thread_self_test(int n) {
#ifdef WASMLM_THREADS
  if (n < 1) n = 1;
  std::atomic<int> ran{0};
  std::vector<std::thread> threads;
  std::vector<double> sums(n, 0.0);
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      for (int k = i; k < 1000000; k += n) sums[i] += std::sqrt(static_cast<double>(k));
      ran.fetch_add(1);
    });
  for (auto& t : threads) t.join();
  return ran.load();
#else
  return 1;
#endif
}

}  // namespace

EMSCRIPTEN_BINDINGS(wasmlm) {
  emscripten::class_<ParserFeed>("ParserFeed")
      .function("need", &ParserFeed::need)
      .function("staging", &ParserFeed::staging)
      .function("push", &ParserFeed::push)
      .function("finish", &ParserFeed::finish)
      .function("done", &ParserFeed::done)
      .function("directoryComplete", &ParserFeed::directory_complete)
      .function("describe", &ParserFeed::describe);
  emscripten::class_<Parser, emscripten::base<ParserFeed>>("Parser")
      .constructor<double>()
      .function("skipData", &Parser::skip_data)
      .function("releaseStaging", &Parser::release_staging)
      .function("tokenizer", &Parser::tokenizer, emscripten::allow_raw_pointers());
  emscripten::class_<TokenizerBinding>("Tokenizer")
      .function("error", &TokenizerBinding::error)
      .function("encode", &TokenizerBinding::encode)
      .function("decode", &TokenizerBinding::decode)
      .function("nVocab", &TokenizerBinding::n_vocab)
      .function("bos", &TokenizerBinding::bos)
      .function("eos", &TokenizerBinding::eos)
      .function("addBosDefault", &TokenizerBinding::add_bos_default);
  emscripten::class_<TensorStatsBinding>("TensorStats")
      .constructor<uint32_t, double>()
      .function("error", &TensorStatsBinding::error)
      .function("staging", &TensorStatsBinding::staging)
      .function("push", &TensorStatsBinding::push)
      .function("result", &TensorStatsBinding::result);
  emscripten::class_<ModelBinding, emscripten::base<ParserFeed>>("Model")
      .constructor<double>()
      .function("weightBytes", &ModelBinding::weight_bytes)
      .function("kvCacheBytes", &ModelBinding::kv_cache_bytes)
      .function("quantizeOnLoad", &ModelBinding::quantize_on_load)
      .function("tensorsInQuads", &ModelBinding::tensors_in_quads)
      .function("beginShard", &ModelBinding::begin_shard)
      .function("beginCheckpointShard", &ModelBinding::begin_checkpoint_shard)
      .function("checkpointRange", &ModelBinding::checkpoint_range)
      .function("readCheckpointShard", &ModelBinding::read_checkpoint_shard)
      .function("planCheckpoint", &ModelBinding::plan_checkpoint)
      .function("pushCheckpoint", &ModelBinding::push_checkpoint)
      .function("architecture", &ModelBinding::architecture)
      .function("nCtx", &ModelBinding::n_ctx)
      .function("build", &ModelBinding::build)
      .function("nVocab", &ModelBinding::n_vocab)
      .function("threads", &ModelBinding::threads)
      .function("nPast", &ModelBinding::n_past)
      .function("reset", &ModelBinding::reset)
      .function("tokenBuffer", &ModelBinding::token_buffer)
      .function("eval", &ModelBinding::eval)
      .function("beginText", &ModelBinding::begin_text)
      .function("quantizedOnLoad", &ModelBinding::quantized_on_load)
      .function("pushText", &ModelBinding::push_text)
      .function("flushText", &ModelBinding::flush_text)
      .function("truncate", &ModelBinding::truncate)
      .function("saveState", &ModelBinding::save_state)
      .function("loadState", &ModelBinding::load_state)
      .function("logits", &ModelBinding::logits)
      .function("sample", &ModelBinding::sample)
      .function("accept", &ModelBinding::accept)
      .function("resetSampler", &ModelBinding::reset_sampler)
      .function("tokenizer", &ModelBinding::tokenizer, emscripten::allow_raw_pointers())
      .function("useTokenizer", &ModelBinding::use_tokenizer, emscripten::allow_raw_pointers());
  emscripten::class_<DequantizeBinding>("Dequantize")
      .constructor<uint32_t>()
      .function("staging", &DequantizeBinding::staging)
      .function("dequantize", &DequantizeBinding::dequantize);
  emscripten::class_<PthInspectBinding>("PthInspect")
      .constructor<double>()
      .function("staging", &PthInspectBinding::staging)
      .function("add", &PthInspectBinding::add)
      .function("read", &PthInspectBinding::read);
  emscripten::function("tokenizerFromFile", &tokenizer_from_file_bytes, emscripten::allow_raw_pointers());
  emscripten::function("tokenizerFileFormat", &tokenizer_file_format);
  emscripten::function("typeTable", &type_table);
  emscripten::function("threadedBuild", &threaded_build);
  emscripten::function("threadSelfTest", &thread_self_test);
  emscripten::function("relaxedSimd", &relaxed_simd_active);
  emscripten::function("heapFree", &heap_free);
}
