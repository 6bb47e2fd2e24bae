#include "sampling/stop_checker.h"

#include <algorithm>
#include <utility>

namespace wasmlm {

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::None: return "none";
    case StopReason::StopToken: return "stop_token";
    case StopReason::StopString: return "stop_string";
    case StopReason::MaxTokens: return "max_tokens";
  }
  return "?";
}

StopChecker::StopChecker(StopParams params) : params_(std::move(params)) {
  if (params_.max_tokens == 0) reason_ = StopReason::MaxTokens;
}

bool StopChecker::is_stop_token(int32_t token) const {
  return std::find(params_.stop_tokens.begin(), params_.stop_tokens.end(), token) != params_.stop_tokens.end();
}

void StopChecker::reset() {
  pending_.clear();
  n_tokens_ = 0;
  matched_ = -1;
  reason_ = params_.max_tokens == 0 ? StopReason::MaxTokens : StopReason::None;
}

StopChecker::Step StopChecker::finish(StopReason reason, size_t emit_len) {
  reason_ = reason;
  Step step{reason, pending_.substr(0, emit_len)};
  pending_.clear();
  return step;
}

StopChecker::Step StopChecker::push(int32_t token, std::string_view piece) {
  if (done()) return Step{reason_, {}};
  ++n_tokens_;
  // A stop token ends the text: what was held back was not a stop string.
  if (is_stop_token(token)) return finish(StopReason::StopToken, pending_.size());

  pending_.append(piece.data(), piece.size());

  // The earliest complete stop string (the longest one if several start there).
  size_t best_pos = std::string::npos;
  for (size_t i = 0; i < params_.stop_strings.size(); ++i) {
    const std::string& stop = params_.stop_strings[i];
    if (stop.empty()) continue;
    const size_t pos = pending_.find(stop);
    if (pos == std::string::npos) continue;
    if (pos < best_pos || (pos == best_pos && stop.size() > params_.stop_strings[matched_].size())) {
      best_pos = pos;
      matched_ = static_cast<int32_t>(i);
    }
  }
  if (best_pos != std::string::npos) return finish(StopReason::StopString, best_pos);

  if (params_.max_tokens > 0 && n_tokens_ >= params_.max_tokens)
    return finish(StopReason::MaxTokens, pending_.size());

  // Hold back the longest tail of the text that is a proper prefix of a stop
  // string. Stop strings start with a character's first byte, so the cut
  // falls on a character boundary.
  size_t hold = 0;
  for (const std::string& stop : params_.stop_strings) {
    for (size_t len = std::min(stop.size() - (stop.empty() ? 0 : 1), pending_.size()); len > hold; --len) {
      if (pending_.compare(pending_.size() - len, len, stop, 0, len) == 0) {
        hold = len;
        break;
      }
    }
  }
  Step step;
  const size_t emit = pending_.size() - hold;
  step.text = pending_.substr(0, emit);
  pending_.erase(0, emit);
  return step;
}

std::string StopChecker::flush() {
  std::string rest;
  rest.swap(pending_);
  return rest;
}

}  // namespace wasmlm
