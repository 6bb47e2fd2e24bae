// Text <-> token ids, from a GGUF file's tokenizer.ggml.* metadata, as
// llama.cpp's llama-vocab.cpp does it:
//
//   text --(special-token partition)--> fragments --(model)--> ids
//
// * `llama` (SentencePiece): spaces become U+2581, a leading space is added,
//   adjacent pieces merge by best score, unknown characters fall back to
//   <0xNN> byte tokens.
// * `gpt2` (byte-level BPE): the text is split into words by the
//   pre-tokenizer regexes chosen by tokenizer.ggml.pre, each word's bytes are
//   mapped to GPT-2's printable codepoints and merged by merge rank.
// * `t5` (SentencePiece unigram, llama.cpp's UGM): spaces become U+2581 as
//   for `llama`, then the segmentation with the best total score is found by
//   Viterbi, after the precompiled normalization (tokenizer.ggml.
//   precompiled_charsmap, e.g. NFKC) when the file has one.
// * `rwkv` (RWKV World): the longest token matching the text's bytes, left
//   to right, through a trie; tokens are stored escaped (rwkv_token_text.h).
//
// Control and unknown tokens (token_type 3, 2) are matched in the text only
// when parse_special is set; user-defined tokens (4) always are, as in
// llama.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/metadata.h"
#include "tokenizer/precompiled_charsmap.h"
#include "tokenizer/regex_split.h"
#include "tokenizer/rwkv_trie.h"

namespace wasmlm {

struct ModelFile;

enum class TokenizerModel { Spm, Bpe, Ugm, Rwkv };

// GGUF tokenizer.ggml.token_type values.
enum class TokenType : int32_t {
  Undefined = 0, Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6,
};

constexpr int32_t kNoToken = -1;

struct EncodeOptions {
  bool add_bos = false;        // prepend BOS (if the vocabulary has one)
  bool add_eos = false;        // append EOS (if the vocabulary has one)
  bool parse_special = false;  // match control tokens like <|begin_of_text|> in the text
};

struct DecodeOptions {
  bool render_special = false;     // control tokens as their text (else nothing)
  bool strip_space_prefix = true;  // SentencePiece: drop the space encode() added
};

// Whose behaviour to reproduce where llama.cpp and transformers differ on the
// same vocabulary. LlamaCpp (GGUF files and what llama.cpp's converter reads):
// tokens llama.cpp recognizes by their text become control tokens and
// whitespace is stripped beside some special tokens (special_token_roles.h).
// Transformers (tokenizer.json): token types as the file gives them, and
// SentencePiece-style added tokens decode with U+2581 as a space.
enum class TokenizerFlavor { LlamaCpp, Transformers };

class Tokenizer {
 public:
  // Throws Error(Unsupported) for other tokenizer.ggml.model values or an
  // unknown tokenizer.ggml.pre, Error(BadFormat) for inconsistent metadata.
  static Tokenizer from_metadata(const Metadata& metadata, TokenizerFlavor flavor = TokenizerFlavor::LlamaCpp);
  // The file's tokenizer. rwkv.cpp .bin files carry none: a 256-token one
  // is byte-level (each token one byte, as rwkv.cpp's tiny test models);
  // others throw Unsupported asking for the vocabulary file.
  static Tokenizer from_model_file(const ModelFile& file);
  // One token per byte value (ids 0..255), no special tokens.
  static Tokenizer byte_level();

  std::vector<int32_t> encode(std::string_view text, const EncodeOptions& options = {}) const;
  std::string decode(const std::vector<int32_t>& ids, const DecodeOptions& options = {}) const;
  // The bytes of one token (no space stripping). May be part of a UTF-8
  // character (byte tokens, byte-level BPE).
  std::string token_bytes(int32_t id, bool render_special = false) const;

  TokenizerModel model() const { return model_; }
  const std::string& pre() const { return pre_; }
  size_t n_vocab() const { return tokens_.size(); }
  const std::string& token_text(int32_t id) const { return tokens_.at(static_cast<size_t>(id)); }
  TokenType token_type(int32_t id) const { return types_.at(static_cast<size_t>(id)); }
  int32_t find_token(std::string_view text) const;  // kNoToken if absent

  int32_t bos() const { return bos_; }
  int32_t eos() const { return eos_; }
  int32_t unk() const { return unk_; }
  int32_t pad() const { return pad_; }
  // The model's own defaults for EncodeOptions (tokenizer.ggml.add_bos_token...).
  bool add_bos_default() const { return add_bos_; }
  bool add_eos_default() const { return add_eos_; }
  bool add_space_prefix() const { return add_space_prefix_; }
  bool ignore_merges() const { return ignore_merges_; }
  // The tokens that end a generation, as llama.cpp's llama_vocab_is_eog:
  // EOS first, then end-of-turn tokens and the like (special_token_roles.h).
  const std::vector<int32_t>& end_of_generation() const { return end_of_generation_; }

 private:
  struct Fragment {
    int32_t token = kNoToken;  // kNoToken: raw text
    size_t begin = 0, end = 0;
  };
  std::vector<Fragment> partition(std::string_view text, bool parse_special) const;
  void encode_spm(std::string_view text, std::vector<int32_t>* out) const;
  void encode_bpe(std::string_view text, std::vector<int32_t>* out) const;
  void encode_ugm(std::string_view text, std::vector<int32_t>* out) const;
  std::string ugm_normalize(std::string_view text) const;
  void bpe_word(const std::string& word, std::vector<int32_t>* out) const;
  int32_t spm_byte_token(uint8_t byte) const;
  int bpe_rank(const std::string& left, const std::string& right) const;

  TokenizerModel model_ = TokenizerModel::Spm;
  std::string pre_;
  std::vector<std::string> tokens_;
  std::vector<float> scores_;
  std::vector<TokenType> types_;
  std::unordered_map<std::string, int32_t> token_ids_;
  std::unordered_map<std::string, int> merge_ranks_;  // "left\0right" -> rank
  std::vector<int32_t> special_tokens_;  // control/user-defined/unknown, longest text first
  std::vector<int32_t> end_of_generation_;
  // Per token (empty if none): whitespace to drop beside it when it is
  // matched in the text (special_token_roles.h).
  static constexpr uint8_t kStripBefore = 1, kStripAfter = 2;
  std::vector<uint8_t> strip_;
  std::shared_ptr<const std::vector<Regex>> pre_regexes_;
  int32_t bos_ = kNoToken, eos_ = kNoToken, unk_ = kNoToken, pad_ = kNoToken;
  bool add_bos_ = false, add_eos_ = false, add_space_prefix_ = false, ignore_merges_ = false;
  TokenizerFlavor flavor_ = TokenizerFlavor::LlamaCpp;
  bool remove_extra_whitespaces_ = false;  // UGM: runs of spaces become one, none at the ends
  double ugm_unknown_score_ = 0;            // UGM: the score of a character no token covers
  size_t ugm_max_token_bytes_ = 0;
  bool ugm_has_user_defined_ = false;
  std::shared_ptr<const PrecompiledCharsmap> charsmap_;
  std::shared_ptr<const RwkvTrie> rwkv_trie_;
};

// Feeds ids one at a time and returns text that is always whole UTF-8:
// bytes of a character split across tokens are held until it completes;
// invalid bytes come out as U+FFFD.
class StreamingDetokenizer {
 public:
  explicit StreamingDetokenizer(const Tokenizer& tokenizer, const DecodeOptions& options = {});
  // Continue a sequence that began with `preceding` (a prompt), as llama.cpp
  // shows generated tokens: its detokenization of prompt + generated minus the
  // prompt's. No space is stripped (only a sequence's first token loses its
  // SentencePiece space), and the first bytes of a character that the prompt's
  // last tokens began wait for the rest.
  void continue_after(const std::vector<int32_t>& preceding);
  std::string push(int32_t id);
  // The held bytes of an unfinished character, as U+FFFD (empty if none).
  std::string flush();
  void reset();

 private:
  std::string take_valid();

  const Tokenizer* tokenizer_;
  DecodeOptions options_;
  bool strip_pending_;
  std::string pending_;
};

}  // namespace wasmlm
