#include "step_size_watch.h"

#include <fmt/format.h>

#include <algorithm>

namespace ictus::internal {

StepSizeWatch::StepSizeWatch(double t0, double t_end, double implied_steps)
    : span_(t_end - t0),
      threshold_(std::max(kTooManySteps, 100.0 * implied_steps)),
      block_start_(t0) {}

bool StepSizeWatch::accept(double t1) {
  if (warned_ || ++count_ < kBlock) return false;
  const double mean = (t1 - block_start_) / static_cast<double>(count_);
  count_ = 0;
  block_start_ = t1;
  if (!(mean > 0.0) || span_ / mean <= threshold_) return false;
  warned_ = true;
  mean_step_ = mean;
  projected_ = span_ / mean;
  return true;
}

std::string StepSizeWatch::message() const {
  return fmt::format(
      "the accepted steps have averaged {:.3g} s over the last {} steps: at that size the run "
      "takes about {:.3g} steps. The likely cause is a discontinuous force (sign(), abs() or a "
      "jump in a formula) that the error control follows with tiny steps: model the switch with "
      "a switching element (dry_friction, an event) or use a stiff stepper (integrator: cvode or "
      "ida)",
      mean_step_, kBlock, projected_);
}

}  // namespace ictus::internal
