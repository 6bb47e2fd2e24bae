#include "compute/row_touch_tuner.h"

#include <algorithm>
#include <chrono>

namespace wasmlm {

double RowTouchTuner::steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {
// The median of four: one slow step (a collection, a cold first step after
// a prompt) does not decide.
double median4(std::array<double, 4> t) {
  std::sort(t.begin(), t.end());
  return (t[1] + t[2]) / 2;
}
}  // namespace

void RowTouchTuner::record(double seconds) {
  const int i = step_ - kWarmSteps;
  (kTrialOrder[i] ? on_ : off_)[i / 2] = seconds;
  if (i == kTrialSteps - 1) chosen_ = median4(on_) <= median4(off_);
  advance();
}

}  // namespace wasmlm
