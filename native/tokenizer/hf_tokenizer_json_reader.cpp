#include "tokenizer/hf_tokenizer_json_reader.h"

#include <string_view>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/tokenizer.h"

namespace wasmlm {

namespace {

using Json = nlohmann::json;

// Split regexes of HF pre-tokenizers and the llama.cpp pre-tokenizer each
// corresponds to (as convert_hf_to_gguf.py identifies them).
struct KnownRegex {
  const char* regex;
  const char* pre;
};
const KnownRegex kKnownRegexes[] = {
    {"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
     "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
     "llama-bpe"},
    {"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
     "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
     "qwen2"},
    {"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", "gpt-2"},
};

[[noreturn]] void unsupported(const std::string& what) { fail(ErrorCode::Unsupported, kNoOffset, "tokenizer.json: " + what); }

std::string type_of(const Json& j) {
  if (!j.is_object()) return "";
  auto it = j.find("type");
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The two halves of a merge, written "a b" or [a, b].
std::pair<std::string, std::string> split_merge(const Json& m) {
  if (m.is_string()) {
    const std::string s = m.get<std::string>();
    const size_t sp = s.find(' ', 1);
    if (sp != std::string::npos) return {s.substr(0, sp), s.substr(sp + 1)};
  } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
    return {m[0].get<std::string>(), m[1].get<std::string>()};
  }
  fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.json: a merge is neither \"a b\" nor [a, b]");
}

// ByteLevel as a pre-tokenizer: the GPT-2 regex unless use_regex is false.
bool byte_level_uses_regex(const Json& p) {
  if (p.value("add_prefix_space", false)) unsupported("ByteLevel add_prefix_space is not supported");
  return p.value("use_regex", true);
}

std::string pre_from_regex(const std::string& regex) {
  for (const KnownRegex& k : kKnownRegexes)
    if (regex == k.regex) return k.pre;
  unsupported("pre-tokenizer regex " + regex + " is not one llama.cpp knows");
}

// The llama.cpp pre-tokenizer name for the pre_tokenizer field.
std::string choose_pre(const Json& pre) {
  std::vector<const Json*> steps;
  if (type_of(pre) == "Sequence") {
    for (const Json& p : pre.at("pretokenizers")) steps.push_back(&p);
  } else if (!pre.is_null()) {
    steps.push_back(&pre);
  }
  std::string chosen;
  bool byte_level = false;
  for (const Json* p : steps) {
    const std::string type = type_of(*p);
    std::string regex_pre;
    if (type == "ByteLevel") {
      byte_level = true;
      if (byte_level_uses_regex(*p)) regex_pre = "gpt-2";
    } else if (type == "Split") {
      const Json& pattern = p->at("pattern");
      if (!pattern.contains("Regex")) unsupported("Split by a plain string is not supported");
      if (p->value("behavior", "") != "Isolated" || p->value("invert", false))
        unsupported("Split behavior other than Isolated is not supported");
      regex_pre = pre_from_regex(pattern.at("Regex").get<std::string>());
    } else {
      unsupported("pre-tokenizer " + (type.empty() ? std::string("(none)") : type) + " is not supported");
    }
    if (!regex_pre.empty()) {
      if (!chosen.empty()) unsupported("more than one split regex is not supported");
      chosen = regex_pre;
    }
  }
  if (!byte_level) unsupported("only byte-level BPE is supported (no ByteLevel pre-tokenizer)");
  if (chosen.empty()) unsupported("a byte-level pre-tokenizer without a split regex is not supported");
  return chosen;
}

void check_normalizer(const Json& n) {
  if (n.is_null()) return;
  const std::string type = type_of(n);
  // NFC: llama.cpp's converter drops it too (text is normally NFC already).
  if (type == "NFC") return;
  if (type == "Sequence" && n.at("normalizers").empty()) return;
  unsupported("normalizer " + (type.empty() ? std::string("(unknown)") : type) + " is not supported");
}

// ------------------------------------------------ SentencePiece-style BPE ----
// Gemma's tokenizer.json: a BPE over SentencePiece pieces (U+2581 for a
// space, no byte-level mapping, <0xNN> tokens for bytes no piece covers).
// The normalizer writes spaces as U+2581 without adding one in front, and
// the pre-tokenizer splits on " ", of which none is left.

bool is_replace_space_by_spm_space(const Json& n) {
  return type_of(n) == "Replace" && n.at("pattern").value("String", "") == " " &&
         n.value("content", "") == "\xE2\x96\x81";
}

void check_sentencepiece_bpe_pipeline(const Json& j) {
  const Json normalizer = j.value("normalizer", Json());
  if (!is_replace_space_by_spm_space(normalizer))
    unsupported("SentencePiece-style BPE: only a normalizer that writes spaces as U+2581 is supported");
  const Json pre = j.value("pre_tokenizer", Json());
  const bool split_on_space = type_of(pre) == "Split" && pre.at("pattern").value("String", "") == " " &&
                              pre.value("behavior", "") == "MergedWithPrevious" && !pre.value("invert", false);
  if (!pre.is_null() && !split_on_space)
    unsupported("SentencePiece-style BPE: pre-tokenizer " + type_of(pre) + " is not supported");
}

// SentencePiece merges by the score of the merged piece; tokenizer.json
// ranks the merges, and Hugging Face's converter lists the merges making one
// piece next to each other. So -(rank of the first merge making a piece) is
// a score under which merging by score makes the same tokens as merging by
// rank. Pieces no merge makes never come from merging: the lowest score.
std::vector<float> scores_from_merges(const Json& merges, const VocabMetadata& v) {
  std::unordered_map<std::string, int32_t> ids;
  ids.reserve(v.tokens.size() * 2);
  for (size_t i = 0; i < v.tokens.size(); ++i) ids.emplace(v.tokens[i], static_cast<int32_t>(i));
  const float none = -static_cast<float>(merges.size()) - 1.0f;
  std::vector<float> scores(v.tokens.size(), none);
  std::vector<bool> seen(v.tokens.size(), false);
  float rank = 0.0f;
  for (const Json& m : merges) {
    const auto [left, right] = split_merge(m);
    auto it = ids.find(left + right);
    if (it != ids.end() && !seen[it->second]) {
      seen[it->second] = true;
      scores[it->second] = -rank;
    }
    rank += 1.0f;
  }
  return scores;
}

// llama.cpp's does_token_look_special: <|...|> tokens are control tokens even
// when the file does not mark them special.
bool looks_special(const std::string& t) {
  return t.size() >= 4 && t.compare(0, 2, "<|") == 0 && t.compare(t.size() - 2, 2, "|>") == 0;
}

// The id of the first of `names` the vocabulary has (a control token, if
// control_only: Gemma's "</s>" is HTML), or -1.
int32_t find_token(const VocabMetadata& v, std::initializer_list<std::string_view> names, bool control_only = false) {
  for (std::string_view name : names)
    for (size_t i = 0; i < v.tokens.size(); ++i)
      if (v.tokens[i] == name && (!control_only || v.types[i] == static_cast<int32_t>(TokenType::Control)))
        return static_cast<int32_t>(i);
  return -1;
}

// The id of the first special token of a TemplateProcessing's "single"
// template (directly or in a Sequence), if it starts with one: BOS is added.
std::optional<int32_t> template_bos(const Json& post, const VocabMetadata& v) {
  std::vector<const Json*> processors;
  if (type_of(post) == "Sequence") {
    for (const Json& p : post.at("processors")) processors.push_back(&p);
  } else {
    processors.push_back(&post);
  }
  for (const Json* p : processors) {
    if (type_of(*p) != "TemplateProcessing") continue;
    const Json& single = p->at("single");
    if (!single.is_array() || single.empty() || !single[0].contains("SpecialToken")) continue;
    const int32_t id = find_token(v, {single[0]["SpecialToken"].at("id").get<std::string>()});
    if (id >= 0) return id;
  }
  return std::nullopt;
}


// The vocabulary and the added tokens (special -> control, others
// user-defined), ids checked.
void read_tokens(const Json& j, const Json& model, VocabMetadata* v) {
  const Json& vocab = model.at("vocab");
  const Json added = j.value("added_tokens", Json::array());
  if (!vocab.is_object() || !added.is_array()) fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.json: bad vocab");
  // Ids may leave holes (filled with [PAD] tokens) but not unboundedly many.
  const size_t max_id = 2 * (vocab.size() + added.size()) + 1024;
  auto checked_id = [&](const Json& id) {
    if (!id.is_number_integer()) fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.json: a token id is not an integer");
    const int64_t i = id.get<int64_t>();
    if (i < 0 || static_cast<uint64_t>(i) > max_id)
      fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.json: token id " + std::to_string(i) + " is out of range");
    return static_cast<size_t>(i);
  };
  v->tokens.reserve(vocab.size() + added.size());
  for (const auto& [text, id] : vocab.items()) v->set_token(checked_id(id), text, static_cast<int32_t>(TokenType::Normal));
  for (const Json& t : added) {
    const std::string content = t.at("content").get<std::string>();
    const bool special = t.value("special", false) || looks_special(content);
    v->set_token(checked_id(t.at("id")), content,
                 static_cast<int32_t>(special ? TokenType::Control : TokenType::UserDefined));
  }
}

void convert_byte_level_bpe(const Json& j, const Json& model, VocabMetadata* v) {
  check_normalizer(j.value("normalizer", Json()));
  v->model = "gpt2";
  v->pre = choose_pre(j.value("pre_tokenizer", Json()));
  read_tokens(j, model, v);
  const Json& merges = model.at("merges");
  v->merges.reserve(merges.size());
  for (const Json& m : merges) {
    const auto [left, right] = split_merge(m);
    v->merges.push_back(left + " " + right);
  }
}

void convert_sentencepiece_bpe(const Json& j, const Json& model, VocabMetadata* v) {
  check_sentencepiece_bpe_pipeline(j);
  v->model = "llama";
  v->add_space_prefix = false;
  read_tokens(j, model, v);
  v->scores = scores_from_merges(model.at("merges"), *v);
  for (size_t i = 0; i < v->tokens.size(); ++i) {
    const std::string& t = v->tokens[i];
    if (v->types[i] == static_cast<int32_t>(TokenType::Normal) && t.size() == 6 && t.compare(0, 3, "<0x") == 0 &&
        t[5] == '>')
      v->types[i] = static_cast<int32_t>(TokenType::Byte);
  }
  const Json unk = model.value("unk_token", Json());
  if (unk.is_string()) v->unk = find_token(*v, {unk.get<std::string>()});
}

VocabMetadata convert(const Json& j) {
  if (!j.is_object()) fail(ErrorCode::BadFormat, 0, "tokenizer.json: not a JSON object");
  const Json& model = j.at("model");
  if (!model.is_object()) fail(ErrorCode::BadFormat, kNoOffset, "tokenizer.json: \"model\" is not an object");
  const std::string type = type_of(model);
  if (type != "BPE" && !(type.empty() && model.contains("merges")))
    unsupported("model type " + (type.empty() ? std::string("(none)") : type) + " is not supported (only BPE)");

  VocabMetadata v;
  if (model.value("byte_fallback", false)) convert_sentencepiece_bpe(j, model, &v);
  else convert_byte_level_bpe(j, model, &v);

  const std::optional<int32_t> bos = template_bos(j.value("post_processor", Json()), v);
  v.add_bos = bos.has_value();
  v.bos = bos ? *bos : find_token(v, {"<|begin_of_text|>", "<bos>", "<s>", "<|endoftext|>"}, true);
  v.eos = find_token(v, {"<|end_of_text|>", "<eos>", "</s>", "<|endoftext|>"}, true);
  return v;
}

}  // namespace

VocabMetadata read_hf_tokenizer_json(std::string_view text) {
  Json j;
  try {
    j = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    fail(ErrorCode::BadFormat, e.byte > 0 ? e.byte - 1 : 0, std::string("tokenizer.json is not valid JSON: ") + e.what());
  } catch (const Json::exception& e) {  // e.g. a number too large for a double
    fail(ErrorCode::BadFormat, kNoOffset, std::string("tokenizer.json is not valid JSON: ") + e.what());
  }
  try {
    return convert(j);
  } catch (const Json::exception& e) {  // a missing field or one of the wrong type
    fail(ErrorCode::BadFormat, kNoOffset, std::string("tokenizer.json: ") + e.what());
  }
}

}  // namespace wasmlm
