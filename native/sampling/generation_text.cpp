#include "sampling/generation_text.h"

#include <utility>

namespace wasmlm {

GenerationText::GenerationText(const Tokenizer& tokenizer, StopParams params, const std::vector<int32_t>& prompt)
    : detok_(tokenizer), stop_(std::move(params)) {
  detok_.continue_after(prompt);
}

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
