#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "core/error.h"
#include "format/model_file.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/rwkv_token_text.h"
#include "tokenizer/special_token_roles.h"
#include "tokenizer/unicode.h"

namespace wasmlm {

// ---------------------------------------------------------------------------
// Loading the vocabulary from metadata

namespace {

const MetaArray* find_array(const Metadata& md, const char* key, MetaType elem) {
  const MetaValue* v = md.find(key);
  if (!v) return nullptr;
  if (v->type != MetaType::Array || !v->array || v->array->elem_type != elem)
    fail(ErrorCode::BadFormat, kNoOffset, std::string(key) + ": expected an array of " + meta_type_name(elem));
  return v->array.get();
}

int32_t token_id(const Metadata& md, const char* key, int32_t fallback, size_t n_vocab) {
  const MetaValue* v = md.find(key);
  if (!v) return fallback;
  const auto id = v->as_int();
  if (!id) fail(ErrorCode::BadFormat, kNoOffset, std::string(key) + ": expected an integer");
  // Files write 0xFFFFFFFF (as u32) or -1 for "none".
  if (*id < 0 || static_cast<uint64_t>(*id) >= n_vocab) return kNoToken;
  return static_cast<int32_t>(*id);
}

bool flag(const Metadata& md, const char* key, bool fallback) {
  const MetaValue* v = md.find(key);
  if (!v) return fallback;
  const auto b = v->as_int();
  return b ? *b != 0 : fallback;
}

// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space.
const char kSpmSpace[] = "\xE2\x96\x81";

constexpr size_t kUgmMaxPieceBytes = 1024;

// SentencePiece's U+2581 back to spaces.
std::string spm_unescape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 3, kSpmSpace) == 0) {
      out.push_back(' ');
      i += 3;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

// isspace() in the C locale, which llama.cpp strips beside special tokens.
bool is_c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// llama.cpp's llm_tokenizer_rwkv puts every token in the trie; control tokens
// are left out here so that text never becomes one unless parse_special asks
// (RWKV's own tokenizer never yields id 0, llama.cpp would for "<s>"), and
// unused [PAD] fillers likewise.
std::shared_ptr<const RwkvTrie> build_rwkv_trie(const std::vector<std::string>& tokens,
                                                const std::vector<TokenType>& types) {
  std::vector<std::pair<std::string, int32_t>> entries;
  entries.reserve(tokens.size());
  std::string bytes;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (types[i] == TokenType::Control) continue;
    if (!rwkv_unescape_token(tokens[i], &bytes))
      fail(ErrorCode::BadFormat, kNoOffset,
           "tokenizer.ggml.tokens[" + std::to_string(i) + "]: malformed escape in an RWKV token");
    if (types[i] != TokenType::Unused) entries.emplace_back(bytes, static_cast<int32_t>(i));
  }
  return std::make_shared<RwkvTrie>(std::move(entries));
}

}  // namespace

Tokenizer Tokenizer::from_model_file(const ModelFile& file) {
  const Metadata& md = file.metadata;
  if (!md.find("tokenizer.ggml.model") && md.get_string("general.architecture").value_or("") == "rwkv") {
    if (md.get_uint("rwkv.vocab_size").value_or(0) == 256) return byte_level();
    fail(ErrorCode::Unsupported, kNoOffset,
         "this rwkv.cpp file has no vocabulary: load its tokenizer separately (RWKV World: "
         "rwkv_vocab_v20230424.txt; Pile models: 20B_tokenizer.json)");
  }
  return from_metadata(md);
}

Tokenizer Tokenizer::byte_level() {
  MetaArray tokens;
  tokens.elem_type = MetaType::String;
  for (int b = 0; b < 256; ++b) tokens.strings.push_back(rwkv_escape_token(std::string(1, static_cast<char>(b))));
  tokens.count = tokens.strings.size();
  Metadata md;
  md.add("tokenizer.ggml.model", MetaValue::of_string("rwkv"));
  md.add("tokenizer.ggml.tokens", MetaValue::of_array(std::move(tokens)));
  return from_metadata(md);
}

Tokenizer Tokenizer::from_metadata(const Metadata& md, TokenizerFlavor flavor) {
  Tokenizer t;
  t.flavor_ = flavor;
  const std::string model = md.get_string("tokenizer.ggml.model").value_or("");
  if (model == "llama") {
    t.model_ = TokenizerModel::Spm;
  } else if (model == "gpt2") {
    t.model_ = TokenizerModel::Bpe;
  } else if (model == "t5") {
    t.model_ = TokenizerModel::Ugm;
  } else if (model == "rwkv") {
    t.model_ = TokenizerModel::Rwkv;
  } else if (!md.find("tokenizer.ggml.model")) {
    fail(ErrorCode::Unsupported, kNoOffset,
         "the model has no tokenizer: give one (a tokenizer.model, tokenizer.json or vocabulary file) with the "
         "tokenizer option, or among a Meta checkpoint's files");
  } else {
    fail(ErrorCode::Unsupported, kNoOffset,
         "tokenizer.ggml.model '" + model + "' is not supported (only 'llama', 'gpt2', 't5' and 'rwkv')");
  }

  const MetaArray* tokens = find_array(md, "tokenizer.ggml.tokens", MetaType::String);
  if (!tokens || tokens->strings.empty()) fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.ggml.tokens missing");
  const size_t n = tokens->strings.size();
  t.tokens_ = tokens->strings;

  t.scores_.assign(n, 0.0f);
  if (const MetaArray* scores = find_array(md, "tokenizer.ggml.scores", MetaType::F32)) {
    if (scores->count != n) fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.ggml.scores: length differs from tokens");
    for (size_t i = 0; i < n; ++i) t.scores_[i] = static_cast<float>(scores->number(i));
  }
  t.types_.assign(n, TokenType::Normal);
  if (const MetaValue* v = md.find("tokenizer.ggml.token_type")) {
    if (v->type != MetaType::Array || !v->array || v->array->count != n ||
        v->array->elem_type == MetaType::String || v->array->elem_type == MetaType::Array ||
        v->array->elem_type == MetaType::F32 || v->array->elem_type == MetaType::F64)
      fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.ggml.token_type: expected one integer per token");
    for (size_t i = 0; i < n; ++i) t.types_[i] = static_cast<TokenType>(v->array->integer(i));
  }

  t.token_ids_.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) t.token_ids_[t.tokens_[i]] = static_cast<int32_t>(i);  // later ids win

  if (t.model_ == TokenizerModel::Rwkv) {
    // llama.cpp sets no special ids for rwkv; RWKV ends a text with token 0.
    t.eos_ = t.types_[0] == TokenType::Control ? 0 : kNoToken;
  } else if (t.model_ != TokenizerModel::Bpe) {
    t.bos_ = 1 < n ? 1 : kNoToken;
    t.eos_ = 2 < n ? 2 : kNoToken;
    t.unk_ = 0;
    t.add_bos_ = true;
    t.add_space_prefix_ = true;
  } else {
    t.bos_ = 11 < n ? 11 : kNoToken;
    t.eos_ = 11 < n ? 11 : kNoToken;
    t.pre_ = md.get_string("tokenizer.ggml.pre").value_or("");
    PreTokenizerSpec spec = pre_tokenizer_spec(t.pre_);
    if (!spec.known)
      fail(ErrorCode::Unsupported, kNoOffset, "tokenizer.ggml.pre '" + t.pre_ + "' is not a known pre-tokenizer");
    auto regexes = std::make_shared<std::vector<Regex>>();
    for (const std::string& r : spec.regexes) regexes->emplace_back(r);
    t.pre_regexes_ = std::move(regexes);
    t.ignore_merges_ = spec.ignore_merges;
    t.add_bos_ = spec.ignore_merges;  // llama.cpp: the llama3 family adds BOS by default

    const MetaArray* merges = find_array(md, "tokenizer.ggml.merges", MetaType::String);
    if (!merges) fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.ggml.merges missing for a gpt2 tokenizer");
    t.merge_ranks_.reserve(merges->strings.size() * 2);
    for (size_t i = 0; i < merges->strings.size(); ++i) {
      const std::string& m = merges->strings[i];
      const size_t sp = m.find(' ', 1);
      if (sp == std::string::npos)
        fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.ggml.merges: entry without a space");
      std::string key = m.substr(0, sp);
      key.push_back('\0');
      key.append(m, sp + 1, std::string::npos);
      t.merge_ranks_.emplace(std::move(key), static_cast<int>(i));  // the first rank wins
    }
  }

  t.bos_ = token_id(md, "tokenizer.ggml.bos_token_id", t.bos_, n);
  t.eos_ = token_id(md, "tokenizer.ggml.eos_token_id", t.eos_, n);
  t.unk_ = token_id(md, "tokenizer.ggml.unknown_token_id", t.unk_, n);
  t.pad_ = token_id(md, "tokenizer.ggml.padding_token_id", t.pad_, n);
  t.add_bos_ = flag(md, "tokenizer.ggml.add_bos_token", t.add_bos_);
  t.add_eos_ = flag(md, "tokenizer.ggml.add_eos_token", t.add_eos_);
  if (t.model_ == TokenizerModel::Spm || t.model_ == TokenizerModel::Ugm)  // BPE and RWKV never add one
    t.add_space_prefix_ = flag(md, "tokenizer.ggml.add_space_prefix", t.add_space_prefix_);
  if (t.model_ == TokenizerModel::Ugm) {
    t.remove_extra_whitespaces_ = flag(md, "tokenizer.ggml.remove_extra_whitespaces", false);
    // llama.cpp: 10 below the worst normal token.
    float min_score = 0.0f;
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      if (t.types_[i] == TokenType::Normal) {
        min_score = any ? std::min(min_score, t.scores_[i]) : t.scores_[i];
        any = true;
      }
      // Matching costs O(length^2) per character: pieces longer than any
      // real one (SentencePiece's default limit is 16 characters) never match.
      if (t.tokens_[i].size() <= kUgmMaxPieceBytes)
        t.ugm_max_token_bytes_ = std::max(t.ugm_max_token_bytes_, t.tokens_[i].size());
      if (t.types_[i] == TokenType::UserDefined) t.ugm_has_user_defined_ = true;
    }
    t.ugm_unknown_score_ = static_cast<double>(min_score) - 10.0;
    if (const MetaValue* v = md.find("tokenizer.ggml.precompiled_charsmap")) {
      if (v->type != MetaType::Array || !v->array ||
          (v->array->elem_type != MetaType::U8 && v->array->elem_type != MetaType::I8))
        fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.ggml.precompiled_charsmap: expected an array of bytes");
      if (!v->array->packed.empty()) t.charsmap_ = std::make_shared<PrecompiledCharsmap>(v->array->packed);
    }
  }

  SpecialTokenRolesInput roles;
  roles.metadata = &md;
  roles.find_token = [&t](std::string_view text) { return t.find_token(text); };
  roles.types = &t.types_;
  roles.eos = t.eos_;
  roles.keep_types = flavor == TokenizerFlavor::Transformers;
  t.end_of_generation_ = assign_special_token_roles(roles);

  for (size_t i = 0; i < n; ++i) {
    const TokenType ty = t.types_[i];
    if ((ty == TokenType::Control || ty == TokenType::UserDefined || ty == TokenType::Unknown) &&
        !t.tokens_[i].empty())
      t.special_tokens_.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(t.special_tokens_.begin(), t.special_tokens_.end(), [&t](int32_t a, int32_t b) {
    return t.tokens_[a].size() > t.tokens_[b].size();
  });
  const SpecialTokenStrip strip = flavor == TokenizerFlavor::LlamaCpp
                                      ? special_token_strip(md, roles.find_token, t.special_tokens_)
                                      : SpecialTokenStrip{};
  if (!strip.lstrip.empty() || !strip.rstrip.empty()) t.strip_.assign(n, 0);
  for (int32_t id : strip.lstrip) t.strip_[id] |= kStripBefore;
  for (int32_t id : strip.rstrip) t.strip_[id] |= kStripAfter;
  if (t.model_ == TokenizerModel::Rwkv) t.rwkv_trie_ = build_rwkv_trie(t.tokens_, t.types_);
  return t;
}

int32_t Tokenizer::find_token(std::string_view text) const {
  auto it = token_ids_.find(std::string(text));
  return it == token_ids_.end() ? kNoToken : it->second;
}

// ---------------------------------------------------------------------------
// Encoding

// Splits the text at special tokens, one token text at a time, longest first
// (llama.cpp's tokenizer_st_partition).
std::vector<Tokenizer::Fragment> Tokenizer::partition(std::string_view text, bool parse_special) const {
  std::vector<Fragment> frags{{kNoToken, 0, text.size()}};
  if (text.empty()) frags.clear();
  for (int32_t id : special_tokens_) {
    const TokenType ty = types_[id];
    if (!parse_special && (ty == TokenType::Control || ty == TokenType::Unknown)) continue;
    const std::string& s = tokens_[id];
    std::vector<Fragment> next;
    next.reserve(frags.size());
    for (const Fragment& f : frags) {
      if (f.token != kNoToken) {
        next.push_back(f);
        continue;
      }
      const uint8_t strip = strip_.empty() ? 0 : strip_[id];
      size_t pos = f.begin;
      while (pos < f.end) {
        const size_t hit = text.substr(0, f.end).find(s, pos);
        if (hit == std::string_view::npos) break;
        size_t left_end = hit;
        if (strip & kStripBefore)
          while (left_end > pos && is_c_space(text[left_end - 1])) --left_end;
        if (left_end > pos) next.push_back({kNoToken, pos, left_end});
        next.push_back({id, hit, hit + s.size()});
        pos = hit + s.size();
        if (strip & kStripAfter)
          while (pos < f.end && is_c_space(text[pos])) ++pos;
      }
      if (pos < f.end) next.push_back({kNoToken, pos, f.end});
    }
    frags = std::move(next);
  }
  return frags;
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, const EncodeOptions& opt) const {
  std::vector<int32_t> out;
  if (opt.add_bos && bos_ != kNoToken) out.push_back(bos_);
  bool prev_special = true;  // SentencePiece: a space prefix goes after every special token
  for (const Fragment& f : partition(text, opt.parse_special)) {
    if (f.token != kNoToken) {
      out.push_back(f.token);
      prev_special = true;
      continue;
    }
    const std::string_view raw = text.substr(f.begin, f.end - f.begin);
    if (model_ == TokenizerModel::Spm) {
      std::string s;
      if (add_space_prefix_ && prev_special) s.push_back(' ');
      s.append(raw);
      std::string escaped;
      escaped.reserve(s.size() + s.size() / 2);
      for (char c : s) {
        if (c == ' ') escaped += kSpmSpace;
        else escaped.push_back(c);
      }
      encode_spm(escaped, &out);
    } else if (model_ == TokenizerModel::Ugm) {
      encode_ugm(raw, &out);
    } else if (model_ == TokenizerModel::Rwkv) {
      rwkv_trie_->encode(raw, unk_, &out);
    } else {
      encode_bpe(raw, &out);
    }
    prev_special = false;
  }
  if (opt.add_eos && eos_ != kNoToken) out.push_back(eos_);
  return out;
}

namespace {

// A piece of the text being merged; symbols form a linked list.
struct Symbol {
  int prev, next;
  size_t begin, n;  // bytes of the text
};

struct SpmBigram {
  int left, right;
  float score;
  size_t size;
  bool operator<(const SpmBigram& o) const {  // priority_queue: best on top
    return score < o.score || (score == o.score && left > o.left);
  }
};

struct BpeBigram {
  int left, right;
  int rank;
  std::string text;
  bool operator<(const BpeBigram& o) const {  // lowest rank, then leftmost, on top
    return rank > o.rank || (rank == o.rank && left > o.left);
  }
};

std::vector<Symbol> split_chars(const std::string& s) {
  std::vector<Symbol> syms;
  size_t off = 0;
  int index = 0;
  while (off < s.size()) {
    const size_t len = std::min(s.size() - off, utf8_len_from_lead(static_cast<uint8_t>(s[off])));
    syms.push_back({index - 1, off + len == s.size() ? -1 : index + 1, off, len});
    off += len;
    ++index;
  }
  return syms;
}

}  // namespace

int32_t Tokenizer::spm_byte_token(uint8_t byte) const {
  static const char hex[] = "0123456789ABCDEF";
  const char buf[6] = {'<', '0', 'x', hex[byte >> 4], hex[byte & 15], '>'};
  int32_t id = find_token(std::string_view(buf, 6));
  if (id == kNoToken) id = find_token(std::string_view(reinterpret_cast<const char*>(&byte), 1));
  return id == kNoToken ? unk_ : id;
}

// SentencePiece BPE: repeatedly merge the adjacent pair whose concatenation is
// the best-scoring token; what is left unmatched falls back to byte tokens.
void Tokenizer::encode_spm(std::string_view text_view, std::vector<int32_t>* out) const {
  const std::string text(text_view);
  std::vector<Symbol> syms = split_chars(text);
  std::priority_queue<SpmBigram> queue;
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const size_t size = syms[left].n + syms[right].n;
    const int32_t id = find_token(std::string_view(text).substr(syms[left].begin, size));
    if (id == kNoToken) return;
    queue.push({left, right, scores_[id], size});
  };
  for (int i = 1; i < static_cast<int>(syms.size()); ++i) try_add(i - 1, i);
  while (!queue.empty()) {
    const SpmBigram b = queue.top();
    queue.pop();
    Symbol& l = syms[b.left];
    Symbol& r = syms[b.right];
    if (l.n == 0 || r.n == 0 || l.n + r.n != b.size) continue;  // stale
    l.n += r.n;
    r.n = 0;
    l.next = r.next;
    if (r.next >= 0) syms[r.next].prev = b.left;
    try_add(l.prev, b.left);
    try_add(b.left, l.next);
  }
  for (int i = syms.empty() ? -1 : 0; i != -1; i = syms[i].next) {
    const std::string_view piece = std::string_view(text).substr(syms[i].begin, syms[i].n);
    const int32_t id = find_token(piece);
    if (id != kNoToken) {
      out->push_back(id);
    } else {
      for (char c : piece) out->push_back(spm_byte_token(static_cast<uint8_t>(c)));
    }
  }
}

// llama.cpp's llm_tokenizer_ugm_session::normalize: user-defined tokens pass
// unchanged, the rest through the charsmap; spaces become U+2581, one is
// prepended, runs of them merge when remove_extra_whitespaces.
std::string Tokenizer::ugm_normalize(std::string_view text) const {
  std::string norm;
  norm.reserve(text.size() + text.size() / 2 + 3);
  bool space_prepended = false, in_word = false;
  for (size_t at = 0; at < text.size();) {
    std::string_view piece;
    size_t consumed = 0;
    if (ugm_has_user_defined_) {
      for (size_t len = std::min(text.size() - at, ugm_max_token_bytes_); len > 0 && consumed == 0; --len) {
        const int32_t id = find_token(text.substr(at, len));
        if (id != kNoToken && types_[id] == TokenType::UserDefined) consumed = len;
      }
      piece = text.substr(at, consumed);
    }
    if (consumed == 0 && charsmap_) {
      const PrecompiledCharsmap::Match m = charsmap_->longest_prefix(text, at);
      piece = m.replacement;
      consumed = m.consumed;
    }
    if (consumed == 0) {
      size_t next = at;
      const bool replaced = utf8_next(text, &next) == kReplacementChar && text.compare(at, 3, "\xEF\xBF\xBD") != 0;
      piece = replaced ? std::string_view("\xEF\xBF\xBD") : text.substr(at, next - at);
      consumed = next - at;
    }
    for (char c : piece) {
      if (c != ' ') {
        if (!in_word) {
          in_word = true;
          if ((add_space_prefix_ && !space_prepended) || remove_extra_whitespaces_) {
            norm += kSpmSpace;
            space_prepended = true;
          }
        }
        norm.push_back(c);
      } else {
        in_word = false;
        if (!remove_extra_whitespaces_) norm += kSpmSpace;
      }
    }
    at += consumed;
  }
  return norm;
}

// SentencePiece unigram, as llama.cpp's llm_tokenizer_ugm_session: for every
// byte offset of the normalized text the best-scoring way to reach it;
// characters no token covers score as unknown, and runs of unknowns collapse
// into one <unk>.
void Tokenizer::encode_ugm(std::string_view text, std::vector<int32_t>* out) const {
  const std::string norm = ugm_normalize(text);
  if (norm.empty()) return;

  struct Best {
    int32_t token;
    size_t from;
    double score;
  };
  const size_t n = norm.size();
  std::vector<Best> best(n + 1, {unk_, 0, -std::numeric_limits<double>::infinity()});
  best[0] = {unk_, 0, 0.0};
  for (size_t at = 0; at < n;) {
    const size_t char_len = std::min(n - at, utf8_len_from_lead(static_cast<uint8_t>(norm[at])));
    if (best[at].score == -std::numeric_limits<double>::infinity()) {  // unreachable (mid-character)
      at += char_len;
      continue;
    }
    bool single_char_token = false;
    const size_t max_len = std::min(n - at, ugm_max_token_bytes_);
    for (size_t len = 1; len <= max_len; ++len) {
      const int32_t id = find_token(std::string_view(norm).substr(at, len));
      if (id == kNoToken) continue;
      const TokenType ty = types_[id];
      if (ty != TokenType::Normal && ty != TokenType::UserDefined && ty != TokenType::Unused) continue;
      if (len == char_len) single_char_token = true;
      const double score = best[at].score + (ty == TokenType::UserDefined ? 0.0 : scores_[id]);
      if (score > best[at + len].score) best[at + len] = {id, at, score};
    }
    if (!single_char_token) {
      const double score = best[at].score + ugm_unknown_score_;
      if (score > best[at + char_len].score) best[at + char_len] = {unk_, at, score};
    }
    at += char_len;
  }
  std::vector<int32_t> ids;
  for (size_t at = n; at > 0; at = best[at].from) {
    const int32_t id = best[at].token;
    if (id == kNoToken || (id == unk_ && !ids.empty() && ids.back() == unk_)) continue;
    ids.push_back(id);
  }
  out->insert(out->end(), ids.rbegin(), ids.rend());
}

int Tokenizer::bpe_rank(const std::string& left, const std::string& right) const {
  std::string key = left;
  key.push_back('\0');
  key += right;
  auto it = merge_ranks_.find(key);
  return it == merge_ranks_.end() ? -1 : it->second;
}

void Tokenizer::encode_bpe(std::string_view text, std::vector<int32_t>* out) const {
  const std::vector<uint32_t> cpts = utf8_to_cpts(text);
  const std::vector<size_t> lengths = regex_split(cpts, *pre_regexes_);
  size_t start = 0;
  for (size_t len : lengths) {
    // The word's UTF-8 bytes, each written as its GPT-2 codepoint.
    const std::string utf8 = cpts_to_utf8(cpts, start, start + len);
    std::string word;
    for (char c : utf8) append_utf8(gpt2_byte_to_cpt(static_cast<uint8_t>(c)), &word);
    bpe_word(word, out);
    start += len;
  }
}

void Tokenizer::bpe_word(const std::string& word, std::vector<int32_t>* out) const {
  if (ignore_merges_) {
    const int32_t id = find_token(word);
    if (id != kNoToken) {
      out->push_back(id);
      return;
    }
  }
  std::vector<Symbol> syms = split_chars(word);
  std::priority_queue<BpeBigram> queue;
  auto sym_text = [&](int i) { return word.substr(syms[i].begin, syms[i].n); };
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const std::string l = sym_text(left), r = sym_text(right);
    const int rank = bpe_rank(l, r);
    if (rank < 0) return;
    queue.push({left, right, rank, l + r});
  };
  for (int i = 1; i < static_cast<int>(syms.size()); ++i) try_add(i - 1, i);
  while (!queue.empty()) {
    const BpeBigram b = queue.top();
    queue.pop();
    Symbol& l = syms[b.left];
    Symbol& r = syms[b.right];
    if (l.n == 0 || r.n == 0) continue;
    if (word.compare(l.begin, l.n + r.n, b.text) != 0 || l.n + r.n != b.text.size()) continue;  // stale
    l.n += r.n;
    r.n = 0;
    l.next = r.next;
    if (r.next >= 0) syms[r.next].prev = b.left;
    try_add(l.prev, b.left);
    try_add(b.left, l.next);
  }
  for (int i = syms.empty() ? -1 : 0; i != -1; i = syms[i].next) {
    const std::string piece = sym_text(i);
    const int32_t id = find_token(piece);
    if (id != kNoToken) {
      out->push_back(id);
      continue;
    }
    for (char c : piece) {  // llama.cpp: look each byte up alone, drop it if absent
      const int32_t b = find_token(std::string(1, c));
      if (b != kNoToken) out->push_back(b);
    }
  }
}

// ---------------------------------------------------------------------------
// Decoding

std::string Tokenizer::token_bytes(int32_t id, bool render_special) const {
  if (id < 0 || static_cast<size_t>(id) >= tokens_.size()) return {};
  const std::string& text = tokens_[id];
  if (model_ == TokenizerModel::Rwkv) {
    if (types_[id] == TokenType::Control) return render_special ? text : std::string();
    std::string bytes;
    return rwkv_unescape_token(text, &bytes) ? bytes : text;
  }
  switch (types_[id]) {
    case TokenType::Control:
      return render_special ? text : std::string();
    case TokenType::UserDefined:
      // transformers' decoder writes U+2581 as a space in added tokens too;
      // llama.cpp's converter wrote the spaces into them already.
      if (flavor_ == TokenizerFlavor::Transformers && model_ == TokenizerModel::Spm) return spm_unescape(text);
      return text;
    case TokenType::Unknown:
      return model_ != TokenizerModel::Bpe ? std::string("\xE2\x96\x85") : text;  // U+2585, as llama.cpp
    case TokenType::Byte:
      if (model_ != TokenizerModel::Bpe && text.size() == 6 && text.compare(0, 3, "<0x") == 0 && text[5] == '>') {
        const int hi = hex_digit(text[3]), lo = hex_digit(text[4]);
        if (hi >= 0 && lo >= 0) return std::string(1, static_cast<char>(hi << 4 | lo));
      }
      break;  // not <0xNN>: its text, as for a normal token
    default:
      break;
  }
  std::string out;
  if (model_ != TokenizerModel::Bpe) {
    out = spm_unescape(text);
  } else {
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t at = pos;
      const uint32_t c = utf8_next(text, &pos);
      const int b = gpt2_cpt_to_byte(c);
      if (b >= 0) out.push_back(static_cast<char>(b));
      else out.append(text, at, pos - at);  // not a byte-level character: keep as is
    }
  }
  return out;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids, const DecodeOptions& opt) const {
  StreamingDetokenizer stream(*this, opt);
  std::string out;
  for (int32_t id : ids) out += stream.push(id);
  out += stream.flush();
  return out;
}

// ---------------------------------------------------------------------------
// Streaming

StreamingDetokenizer::StreamingDetokenizer(const Tokenizer& tokenizer, const DecodeOptions& options)
    : tokenizer_(&tokenizer), options_(options) {
  reset();
}

void StreamingDetokenizer::reset() {
  strip_pending_ = options_.strip_space_prefix && tokenizer_->add_space_prefix();
  pending_.clear();
}

void StreamingDetokenizer::continue_after(const std::vector<int32_t>& preceding) {
  reset();
  if (preceding.empty()) return;
  strip_pending_ = false;
  // An unfinished character is at most 3 bytes: the last tokens giving 4.
  std::string tail;
  for (size_t i = preceding.size(); i-- > 0 && tail.size() < 4;)
    tail.insert(0, tokenizer_->token_bytes(preceding[i], options_.render_special));
  pending_ = std::move(tail);
  take_valid();  // what the prompt showed goes; an unfinished character stays
}

std::string StreamingDetokenizer::push(int32_t id) {
  std::string piece = tokenizer_->token_bytes(id, options_.render_special);
  if (strip_pending_ && !piece.empty()) {
    const TokenType ty = tokenizer_->token_type(id);
    if (ty != TokenType::Control) {
      if (piece[0] == ' ') piece.erase(0, 1);
      strip_pending_ = false;
    }
  }
  pending_ += piece;
  return take_valid();
}

std::string StreamingDetokenizer::take_valid() {
  std::string out;
  for (;;) {
    size_t invalid_at;
    const size_t valid = utf8_valid_prefix(pending_, &invalid_at);
    out.append(pending_, 0, valid);
    if (invalid_at < pending_.size()) {
      out += "\xEF\xBF\xBD";  // U+FFFD for the bad byte
      pending_.erase(0, invalid_at + 1);
      continue;
    }
    pending_.erase(0, valid);
    return out;
  }
}

std::string StreamingDetokenizer::flush() {
  std::string out = pending_.empty() ? std::string() : std::string("\xEF\xBF\xBD");
  pending_.clear();
  return out;
}

}  // namespace wasmlm
