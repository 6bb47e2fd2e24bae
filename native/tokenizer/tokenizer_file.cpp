#include "tokenizer/tokenizer_file.h"

#include <string_view>

#include "core/error.h"
#include "format/incremental_parser.h"
#include "tokenizer/hf_tokenizer_json_reader.h"
#include "tokenizer/rwkv_vocab_reader.h"
#include "tokenizer/sentencepiece_model_reader.h"

namespace wasmlm {

namespace {

bool is_base64_char(uint8_t c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
         c == '=';
}

// "base64 digits\n" at the start.
bool looks_like_tiktoken(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_base64_char(static_cast<uint8_t>(s[i]))) ++i;
  if (i == 0 || i >= s.size() || s[i] != ' ') return false;
  const size_t digits = ++i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i > digits && (i == s.size() || s[i] == '\n' || s[i] == '\r');
}

}  // namespace

const char* tokenizer_file_format_name(TokenizerFileFormat format) {
  switch (format) {
    case TokenizerFileFormat::Gguf: return "gguf";
    case TokenizerFileFormat::SentencePiece: return "sentencepiece";
    case TokenizerFileFormat::HfJson: return "tokenizer.json";
    case TokenizerFileFormat::Tiktoken: return "tiktoken";
    case TokenizerFileFormat::RwkvVocab: return "rwkv-vocab";
    case TokenizerFileFormat::Unknown: break;
  }
  return "unknown";
}

TokenizerFileFormat detect_tokenizer_file(const uint8_t* data, size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  if (s.substr(0, 4) == "GGUF") return TokenizerFileFormat::Gguf;
  // A SentencePiece ModelProto starts with its first piece: field 1, length-delimited.
  if (!s.empty() && data[0] == 0x0A) return TokenizerFileFormat::SentencePiece;
  size_t i = s.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  if (i < s.size() && s[i] == '{') return TokenizerFileFormat::HfJson;
  if (looks_like_tiktoken(s)) return TokenizerFileFormat::Tiktoken;
  if (looks_like_rwkv_vocab(s)) return TokenizerFileFormat::RwkvVocab;
  return TokenizerFileFormat::Unknown;
}

Tokenizer tokenizer_from_file(const uint8_t* data, size_t size, const TokenizerFileOptions& options) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  switch (detect_tokenizer_file(data, size)) {
    case TokenizerFileFormat::Gguf:
      return Tokenizer::from_model_file(read_model_directory(data, size));
    case TokenizerFileFormat::SentencePiece:
      return Tokenizer::from_metadata(read_sentencepiece_model(s).to_metadata());
    case TokenizerFileFormat::HfJson:
      return Tokenizer::from_metadata(read_hf_tokenizer_json(s).to_metadata(), TokenizerFlavor::Transformers);
    case TokenizerFileFormat::Tiktoken:
      return Tokenizer::from_metadata(read_tiktoken(s, options.tiktoken).to_metadata());
    case TokenizerFileFormat::RwkvVocab:
      return Tokenizer::from_metadata(read_rwkv_vocab(s).to_metadata());
    case TokenizerFileFormat::Unknown:
      break;
  }
  fail(ErrorCode::BadFormat, 0,
       "not a tokenizer file (expected GGUF, a SentencePiece .model, a tokenizer.json, a tiktoken rank file or an "
       "RWKV vocabulary)");
}

}  // namespace wasmlm
