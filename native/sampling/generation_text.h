// Generated ids -> the text to show, as it streams: the streaming
// detokenizer (whole UTF-8 characters only) feeding the stop checker (stop
// tokens, stop strings held back until settled, max tokens).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sampling/stop_checker.h"
#include "tokenizer/tokenizer.h"

namespace wasmlm {

class GenerationText {
 public:
  // The tokenizer must outlive this object. `prompt`: the ids the generated
  // ones follow (only the last few matter; see
  // StreamingDetokenizer::continue_after); none: the text of a sequence of its own.
  GenerationText(const Tokenizer& tokenizer, StopParams params, const std::vector<int32_t>& prompt = {});

  // One generated id; .text is safe to show now. After a stop: the reason, no text.
  StopChecker::Step push(int32_t id);
  // The generation ended another way (aborted): the text still held back.
  std::string flush();

  bool done() const { return stop_.done(); }
  StopReason reason() const { return stop_.reason(); }
  int32_t n_tokens() const { return stop_.n_tokens(); }

 private:
  StreamingDetokenizer detok_;
  StopChecker stop_;
};

}  // namespace wasmlm
