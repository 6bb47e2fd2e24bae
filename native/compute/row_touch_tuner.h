// Whether the matrix products load the next rows' cache lines ahead of the
// kernels (the row touch in matmul.cpp), decided by timing decoding.
//
// Which is faster depends on the machine, not on the weights: on a VM whose
// hardware prefetcher fell behind (2026-11-25) the touch made one-token
// products 1.1-1.7x faster; on one whose prefetcher kept up (2026-11-27) it
// made decoding 8-13% slower, the touch's loads and the kernels' work adding
// up (on 2026-11-29's, 40% slower). So a context times its decoding steps in
// both modes, in the order on, off, off, on, on, off, off, on (a steady drift
// in speed cancels), keeps the mode with the lower median, and tries again
// every kCycleSteps steps. Each cycle starts with kWarmSteps untimed steps
// in the chosen mode (at first no touch): a context's first steps run while
// the engine still optimizes the one-token kernels (in Chromium the first 8
// steps of the bench's S model took 1.5-15x a steady one), which decided the
// trial by chance, one run in four the wrong way, at half the speed.
// The mode never changes a result: the touch only loads.
#pragma once

#include <array>

namespace wasmlm {

class RowTouchTuner {
 public:
  using Clock = double (*)();  // seconds, monotonic
  static constexpr int kWarmSteps = 16;
  static constexpr int kTrialSteps = 8;
  static constexpr int kCycleSteps = 256;  // a warm-up, a trial, then the chosen mode

  explicit RowTouchTuner(Clock clock = steady_seconds) : clock_(clock) {}

  bool touch() const { return pinned_ ? pinned_touch_ : in_trial() ? kTrialOrder[step_ - kWarmSteps] : chosen_; }
  // One mode from now on, no timing (benchmarks comparing the two).
  void pin(bool touch) { pinned_ = true, pinned_touch_ = touch; }

  // Runs a batch of n_tokens under touch(). A one-token batch is a decoding
  // step: the trial's steps are timed, the rest only counted.
  template <typename Step>
  void run(int n_tokens, Step&& step) {
    if (pinned_ || n_tokens != 1) {
      step();
    } else if (!in_trial()) {
      step();
      advance();
    } else {
      const double t0 = clock_();
      step();
      record(clock_() - t0);
    }
  }

  static double steady_seconds();

 private:
  // Steps 2k and 2k + 1 of this order are one on and one off step, so step
  // i is trial i / 2 of its mode.
  static constexpr std::array<bool, kTrialSteps> kTrialOrder = {true, false, false, true, true, false, false, true};
  bool in_trial() const { return step_ >= kWarmSteps && step_ < kWarmSteps + kTrialSteps; }
  void record(double seconds);
  void advance() {
    if (++step_ == kCycleSteps) step_ = 0;
  }

  Clock clock_;
  int step_ = 0;  // within the cycle
  std::array<double, kTrialSteps / 2> on_{}, off_{};  // the trial's step times by mode
  bool chosen_ = false;
  bool pinned_ = false, pinned_touch_ = true;
};

}  // namespace wasmlm
