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
  if (step_ < kTrialSteps) trial_[step_] = seconds;
  if (++step_ == kTrialSteps) {
    std::array<double, 4> on{}, off{};
    for (int i = 0, n_on = 0, n_off = 0; i < kTrialSteps; ++i) (kTrialOrder[i] ? on[n_on++] : off[n_off++]) = trial_[i];
    chosen_ = median4(on) <= median4(off);
  }
  if (step_ == kCycleSteps) step_ = 0;
}

}  // namespace wasmlm
