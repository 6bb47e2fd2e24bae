// When generation ends, and how much of the generated text may be shown yet.
//
// Generation stops at a stop token (EOS, EOT, ...), at a stop string in the
// text, or after max_tokens tokens. A stop string can arrive split over
// several tokens ("<|im_" + "end|>"), so text that could be the start of a
// stop string is held back until the next pieces settle it; everything
// before it is safe to emit at once. The stop string itself is never emitted.
//
// The pieces must be whole UTF-8 characters (the streaming detokenizer's
// output); text is then only ever cut at character boundaries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wasmlm {

enum class StopReason {
  None,        // keep going
  StopToken,   // a stop token (EOS/EOT) was generated
  StopString,  // a stop string appeared in the text
  MaxTokens,   // max_tokens tokens were generated
};

const char* stop_reason_name(StopReason reason);

struct StopParams {
  std::vector<std::string> stop_strings;  // empty strings are ignored
  std::vector<int32_t> stop_tokens;       // EOS, EOT, ...: their text is not emitted
  int32_t max_tokens = -1;                // < 0: no limit
};

class StopChecker {
 public:
  explicit StopChecker(StopParams params);

  struct Step {
    StopReason reason = StopReason::None;  // != None: the generation is over
    std::string text;                      // safe to show now
  };

  // One generated token and its text. After a stop, returns the stop reason
  // again with no text.
  Step push(int32_t token, std::string_view piece);

  // The stream ended another way (e.g. the caller stopped): the held-back text.
  std::string flush();

  bool done() const { return reason_ != StopReason::None; }
  StopReason reason() const { return reason_; }
  int32_t n_tokens() const { return n_tokens_; }
  // Which stop string matched (index into params.stop_strings), or -1.
  int32_t matched_stop_string() const { return matched_; }
  // Text held back because it may begin a stop string.
  const std::string& held_back() const { return pending_; }
  bool is_stop_token(int32_t token) const;

  void reset();

 private:
  Step finish(StopReason reason, size_t emit_len);

  StopParams params_;
  std::string pending_;  // received but not yet emitted
  StopReason reason_ = StopReason::None;
  int32_t n_tokens_ = 0;
  int32_t matched_ = -1;
};

}  // namespace wasmlm
