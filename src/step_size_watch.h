// Watches the accepted step sizes of a run and says once when they stay so
// small that the run cannot finish in a reasonable number of steps (issue 9:
// DOPRI on a force written with sign(v) accepts steps of about 1e-9 s, so a
// 1 s run would take 10^9 steps and hours of wall time).
#pragma once

#include <string>

namespace ictus::internal {

class StepSizeWatch {
 public:
  /// Steps averaged before each judgement.
  static constexpr long kBlock = 10000;
  /// A run projected to need more steps than this (and more than 100 times
  /// the count its settings imply) draws the warning.
  static constexpr double kTooManySteps = 1e8;

  /// `implied_steps`: the count the settings fix in advance (implied_steps()
  /// in model.h; 0 for an adaptive stepper without max_step).
  StepSizeWatch(double t0, double t_end, double implied_steps);

  /// After an accepted step that ended at t1; true once, when the mean step
  /// of the last kBlock steps projects an unreasonable count (then message()
  /// says so). Does not allocate.
  bool accept(double t1);
  /// The warning: the mean step, the count it implies, the likely cause.
  std::string message() const;

 private:
  double span_;
  double threshold_;
  double block_start_;
  long count_ = 0;
  bool warned_ = false;
  double mean_step_ = 0.0;
  double projected_ = 0.0;
};

}  // namespace ictus::internal
