// RowTouchTuner: untimed warm-up steps, the trial order, the choice by
// medians (one slow step does not decide), a new trial every cycle, and
// pinning.
#include <gtest/gtest.h>

#include <vector>

#include "compute/row_touch_tuner.h"

using namespace wasmlm;

namespace {

double fake_now = 0;
double fake_clock() { return fake_now; }

// Runs `n` steps; a step under the touch takes `with` seconds, else `without`
// (the first step of the run `first` if given). Returns the modes used.
std::vector<bool> run(RowTouchTuner& tuner, int n, double with, double without, double first = 0) {
  std::vector<bool> modes;
  for (int i = 0; i < n; ++i) {
    const bool touch = tuner.touch();
    modes.push_back(touch);
    tuner.run(1, [&] { fake_now += i == 0 && first > 0 ? first : touch ? with : without; });
  }
  return modes;
}

}  // namespace

// The warm-up: kWarmSteps steps without the touch, untimed, whatever they take.
void warm_up(RowTouchTuner& tuner, double seconds = 1.0) {
  EXPECT_EQ(run(tuner, RowTouchTuner::kWarmSteps, seconds, seconds), std::vector<bool>(RowTouchTuner::kWarmSteps, false));
}

TEST(RowTouchTuner, WarmsUpWithoutTheTouchThenTriesBothModesInABBAOrderThenKeepsTheFaster) {
  RowTouchTuner tuner(fake_clock);
  warm_up(tuner);
  const std::vector<bool> trial = run(tuner, RowTouchTuner::kTrialSteps, 1.0, 1.3);
  EXPECT_EQ(trial, (std::vector<bool>{true, false, false, true, true, false, false, true}));
  const std::vector<bool> rest =
      run(tuner, RowTouchTuner::kCycleSteps - RowTouchTuner::kWarmSteps - RowTouchTuner::kTrialSteps, 1.0, 1.3);
  EXPECT_EQ(rest, std::vector<bool>(rest.size(), true));
}

// A context's first steps are slow while the engine optimizes its code
// (here more so under the touch, which a trial of them would have rejected):
// in the warm-up they decide nothing.
TEST(RowTouchTuner, SlowFirstStepsDoNotDecide) {
  RowTouchTuner tuner(fake_clock);
  for (int i = 0; i < RowTouchTuner::kWarmSteps + RowTouchTuner::kTrialSteps; ++i) {
    const bool touch = tuner.touch();
    tuner.run(1, [&] { fake_now += i < 8 ? (touch ? 30.0 : 3.0) : touch ? 1.0 : 1.4; });
  }
  EXPECT_TRUE(tuner.touch());
}

TEST(RowTouchTuner, ChoosesNoTouchWhenThatIsFaster) {
  RowTouchTuner tuner(fake_clock);
  warm_up(tuner);
  run(tuner, RowTouchTuner::kTrialSteps, 1.1, 1.0, /*first=*/0.01);  // one fast step does not decide either
  EXPECT_FALSE(tuner.touch());
}

TEST(RowTouchTuner, OneSlowStepDoesNotDecide) {
  RowTouchTuner tuner(fake_clock);
  warm_up(tuner);
  // The trial's first step (with the touch) is slow for another reason (a cold cache
  // after a prompt, a collection): by medians the touch is still faster.
  run(tuner, RowTouchTuner::kTrialSteps, 1.0, 1.1, /*first=*/50.0);
  EXPECT_TRUE(tuner.touch());
}

TEST(RowTouchTuner, TriesAgainEveryCycle) {
  RowTouchTuner tuner(fake_clock);
  run(tuner, RowTouchTuner::kCycleSteps, 1.0, 2.0);  // a warm-up, a trial, then the touch
  // The next warm-up keeps the touch, untimed.
  EXPECT_EQ(run(tuner, RowTouchTuner::kWarmSteps, 2.0, 1.0), std::vector<bool>(RowTouchTuner::kWarmSteps, true));
  const std::vector<bool> trial = run(tuner, RowTouchTuner::kTrialSteps, 2.0, 1.0);
  EXPECT_EQ(trial, (std::vector<bool>{true, false, false, true, true, false, false, true}));
  EXPECT_FALSE(tuner.touch());  // the machine changed: no touch until the next trial
  const std::vector<bool> rest =
      run(tuner, RowTouchTuner::kCycleSteps - RowTouchTuner::kWarmSteps - RowTouchTuner::kTrialSteps, 2.0, 1.0);
  EXPECT_EQ(rest, std::vector<bool>(rest.size(), false));
}

TEST(RowTouchTuner, PinnedModeNeverChangesOrReadsTheClock) {
  RowTouchTuner tuner([]() -> double { ADD_FAILURE() << "the clock was read"; return 0; });
  tuner.pin(false);
  int steps = 0;
  for (int i = 0; i < 2 * RowTouchTuner::kCycleSteps; ++i) {
    EXPECT_FALSE(tuner.touch());
    tuner.run(1, [&] { ++steps; });
  }
  EXPECT_EQ(steps, 2 * RowTouchTuner::kCycleSteps);
}

TEST(RowTouchTuner, PromptBatchesAreNeitherTimedNorCounted) {
  RowTouchTuner tuner([]() -> double { ADD_FAILURE() << "a prompt batch read the clock"; return 0; });
  for (int i = 0; i < 2 * RowTouchTuner::kCycleSteps; ++i) {
    EXPECT_FALSE(tuner.touch());  // still the warm-up's first step
    tuner.run(2 + i % 30, [] {});
  }
}

TEST(RowTouchTuner, OnlyTheTrialStepsReadTheClock) {
  static int reads = 0;
  RowTouchTuner tuner([]() -> double { return ++reads; });
  for (int i = 0; i < 2 * RowTouchTuner::kCycleSteps; ++i) tuner.run(1, [] {});
  EXPECT_EQ(reads, 2 * 2 * RowTouchTuner::kTrialSteps);  // two reads per timed step, two trials
}
