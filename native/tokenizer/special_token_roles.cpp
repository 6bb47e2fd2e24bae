#include "tokenizer/special_token_roles.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>
#include <string>

#include "tokenizer/tokenizer.h"

namespace wasmlm {

namespace {

using Names = std::initializer_list<const char*>;

// llama-vocab.cpp's lists. "<｜end▁of▁sentence｜>" is DeepSeek's (fullwidth bars, U+2581).
#define DEEPSEEK_END_OF_SENTENCE "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"

const Names kEndOfTurn = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                          "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", DEEPSEEK_END_OF_SENTENCE,
                          "<end_of_utterance>"};
const Names kEndOfMessage = {"<|eom_id|>"};
const Names kFimPrefix = {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "begin\xEF\xBD\x9C>",
                          "<PRE>", "\xE2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>"};
const Names kFimSuffix = {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "hole\xEF\xBD\x9C>",
                          "<SUF>", "\xE2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>"};
const Names kFimMiddle = {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "end\xEF\xBD\x9C>",
                          "<MID>", "\xE2\x96\x81<MID>", "<|code_middle|>", "<|middle|>"};
const Names kFimPad = {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"};
const Names kFimRepo = {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"};
const Names kFimSep = {"<|file_sep|>"};
// Tokens that end a generation wherever they are (llama.cpp's EOG list).
const Names kEndOfGeneration = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>",
                                "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>",
                                "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>",
                                "<turn|>", "<|tool_response>", DEEPSEEK_END_OF_SENTENCE, "[e~["};

struct Role {
  const char* key;  // the metadata key naming it, which wins over the text
  Names names;
};

}  // namespace

std::vector<int32_t> assign_special_token_roles(const SpecialTokenRolesInput& in) {
  std::vector<TokenType>& types = *in.types;
  const int32_t n = static_cast<int32_t>(types.size());
  // Whether `id` takes the role: made a control token, or already one.
  auto make_control = [&](int32_t id) {
    if (in.keep_types) return types[id] == TokenType::Control;
    types[id] = TokenType::Control;
    return true;
  };
  // The role's id: the file's key, else the first of its names the vocabulary
  // has. Every name found becomes a control token.
  auto role_id = [&](const Role& role) {
    int32_t chosen = kNoToken;
    if (role.key) {
      if (const MetaValue* v = in.metadata->find(role.key)) {
        const auto id = v->as_int();
        if (id && *id >= 0 && *id < n) chosen = static_cast<int32_t>(*id);
      }
    }
    if (chosen != kNoToken) return chosen;
    for (const char* name : role.names) {
      const int32_t id = in.find_token(name);
      if (id == kNoToken || !make_control(id)) continue;
      if (chosen == kNoToken) chosen = id;
    }
    return chosen;
  };
  const int32_t eot = role_id({"tokenizer.ggml.eot_token_id", kEndOfTurn});
  const int32_t eom = role_id({"tokenizer.ggml.eom_token_id", kEndOfMessage});
  role_id({"tokenizer.ggml.fim_pre_token_id", kFimPrefix});
  role_id({"tokenizer.ggml.fim_suf_token_id", kFimSuffix});
  role_id({"tokenizer.ggml.fim_mid_token_id", kFimMiddle});
  const int32_t fim_pad = role_id({"tokenizer.ggml.fim_pad_token_id", kFimPad});
  const int32_t fim_rep = role_id({"tokenizer.ggml.fim_rep_token_id", kFimRepo});
  const int32_t fim_sep = role_id({"tokenizer.ggml.fim_sep_token_id", kFimSep});

  std::set<int32_t> eog;
  for (int32_t id : {fim_pad, fim_rep, fim_sep, in.eos, eot, eom})
    if (id != kNoToken) eog.insert(id);
  for (const char* name : kEndOfGeneration) {
    const int32_t id = in.find_token(name);
    if (id != kNoToken && make_control(id)) eog.insert(id);
  }

  auto has = [&](const char* name) {
    const int32_t id = in.find_token(name);
    return id != kNoToken && eog.count(id) != 0;
  };
  // gpt-oss (harmony) and Solar Open end a turn with <|end|> but go on after it.
  if (has("<|end|>") && ((has("<|return|>") && has("<|call|>")) || (has("<|calls|>") && has("<|flush|>")))) {
    const int32_t end = in.find_token("<|end|>");
    eog.erase(end);
    if (!in.keep_types) types[end] = TokenType::UserDefined;
  }
  // Gemma 4 writes </s> as text.
  if (has("<|tool_response>") && has("</s>")) {
    const int32_t s = in.find_token("</s>");
    eog.erase(s);
    if (!in.keep_types) types[s] = TokenType::Normal;
  }

  std::vector<int32_t> out;
  if (in.eos != kNoToken && eog.count(in.eos)) out.push_back(in.eos);
  for (int32_t id : eog)
    if (id != in.eos) out.push_back(id);
  return out;
}

SpecialTokenStrip special_token_strip(const Metadata& metadata, const std::function<int32_t(std::string_view)>& find_token,
                                      const std::vector<int32_t>& special_tokens) {
  auto lower = [&](const char* key) {
    std::string s = metadata.get_string(key).value_or("");
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  auto contains_any = [](const std::string& s, Names parts) {
    return std::any_of(parts.begin(), parts.end(), [&](const char* p) { return s.find(p) != std::string::npos; });
  };
  // Only the name is lower-cased, as llama.cpp does.
  const std::string name = lower("general.name");
  const std::string pre = metadata.get_string("tokenizer.ggml.pre").value_or("");
  const std::string arch = metadata.get_string("general.architecture").value_or("");
  SpecialTokenStrip strip;
  auto add = [&](std::vector<int32_t>* ids, const char* text) {
    const int32_t id = find_token(text);
    if (id != kNoToken) ids->push_back(id);
  };
  if (contains_any(pre, {"jina-v2-de", "jina-v2-es", "jina-v2-code"}) ||
      contains_any(arch, {"nomic-bert-moe", "jina-bert-v3"})) {
    add(&strip.lstrip, "<mask>");
  } else if (contains_any(name, {"phi-3", "phi3"})) {
    std::set<int32_t> rstrip(special_tokens.begin(), special_tokens.end());
    if (const int32_t id = find_token("</s>"); id != kNoToken) rstrip.insert(id);
    for (const char* keep : {"<unk>", "<s>", "<|endoftext|>"}) rstrip.erase(find_token(keep));
    strip.rstrip.assign(rstrip.begin(), rstrip.end());
  } else if (contains_any(name, {"modern-bert"})) {
    add(&strip.lstrip, "[MASK]");
  }
  return strip;
}

}  // namespace wasmlm
