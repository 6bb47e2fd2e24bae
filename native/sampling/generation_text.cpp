#include "sampling/generation_text.h"

#include <algorithm>
#include <utility>

namespace wasmlm {

std::vector<int32_t> end_of_generation_tokens(const Tokenizer& tokenizer) {
  std::vector<int32_t> ids;
  if (tokenizer.eos() != kNoToken) ids.push_back(tokenizer.eos());
  for (const char* text : {"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                           "<EOT>", "<|end_of_text|>"}) {
    const int32_t id = tokenizer.find_token(text);
    if (id == kNoToken || tokenizer.token_type(id) != TokenType::Control) continue;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

GenerationText::GenerationText(const Tokenizer& tokenizer, StopParams params)
    : detok_(tokenizer), stop_(std::move(params)) {}

StopChecker::Step GenerationText::push(int32_t id) {
  if (stop_.done() || stop_.is_stop_token(id)) return stop_.push(id, "");
  return stop_.push(id, detok_.push(id));
}

std::string GenerationText::flush() {
  if (stop_.done()) return "";
  std::string text = stop_.flush();  // held back as a possible stop string's start
  return text + detok_.flush();      // then an unfinished character, as U+FFFD
}

}  // namespace wasmlm
