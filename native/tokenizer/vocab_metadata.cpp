#include "tokenizer/vocab_metadata.h"

#include <cstring>

#include "tokenizer/tokenizer.h"

namespace wasmlm {

namespace {

template <typename T>
MetaValue packed_array(MetaType type, const std::vector<T>& v) {
  MetaArray a;
  a.elem_type = type;
  a.count = v.size();
  a.packed.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(a.packed.data(), v.data(), a.packed.size());
  return MetaValue::of_array(std::move(a));
}

MetaValue string_array(const std::vector<std::string>& v) {
  MetaArray a;
  a.elem_type = MetaType::String;
  a.count = v.size();
  a.strings = v;
  return MetaValue::of_array(std::move(a));
}

MetaValue bool_value(bool b) {
  MetaValue v;
  v.type = MetaType::Bool;
  v.bits = b ? 1 : 0;
  return v;
}

}  // namespace

void VocabMetadata::set_token(size_t id, std::string text, int32_t type) {
  while (tokens.size() <= id) {
    tokens.push_back("[PAD" + std::to_string(tokens.size()) + "]");
    types.push_back(static_cast<int32_t>(TokenType::Unused));
    if (!scores.empty()) scores.push_back(0.0f);
  }
  tokens[id] = std::move(text);
  types[id] = type;
}

Metadata VocabMetadata::to_metadata() const {
  Metadata md;
  md.add("tokenizer.ggml.model", MetaValue::of_string(model));
  if (!pre.empty()) md.add("tokenizer.ggml.pre", MetaValue::of_string(pre));
  md.add("tokenizer.ggml.tokens", string_array(tokens));
  if (!scores.empty()) md.add("tokenizer.ggml.scores", packed_array(MetaType::F32, scores));
  md.add("tokenizer.ggml.token_type", packed_array(MetaType::I32, types));
  if (!merges.empty() || model == "gpt2") md.add("tokenizer.ggml.merges", string_array(merges));
  const std::pair<const char*, int32_t> ids[] = {{"tokenizer.ggml.bos_token_id", bos},
                                                 {"tokenizer.ggml.eos_token_id", eos},
                                                 {"tokenizer.ggml.unknown_token_id", unk},
                                                 {"tokenizer.ggml.padding_token_id", pad}};
  for (const auto& [key, id] : ids)
    if (id >= 0) md.add(key, MetaValue::of_u32(static_cast<uint32_t>(id)));
  const std::pair<const char*, std::optional<bool>> flags[] = {
      {"tokenizer.ggml.add_bos_token", add_bos},
      {"tokenizer.ggml.add_eos_token", add_eos},
      {"tokenizer.ggml.add_space_prefix", add_space_prefix},
      {"tokenizer.ggml.remove_extra_whitespaces", remove_extra_whitespaces}};
  for (const auto& [key, value] : flags)
    if (value) md.add(key, bool_value(*value));
  if (!precompiled_charsmap.empty())
    md.add("tokenizer.ggml.precompiled_charsmap", packed_array(MetaType::U8, precompiled_charsmap));
  return md;
}

}  // namespace wasmlm
