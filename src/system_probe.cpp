// Probes: evaluations on the dense output between the stepper's states
// (output samples, the extrema of the run's summary, event functions while
// an event is located). The stepper's own evaluations decide which rows are
// dependent (a singular configuration, docs/theory/equations.md); a probe
// that meets a singular configuration the stages do not meet decides there
// too, for its own values, and that decision is undone when the probe ends.
// Before, it stayed: the next stages ran with a row dropped that they would
// have kept, and a run recording reactions took a different path through a
// singular configuration than the same run recording positions only.
#include "system_impl.h"

namespace ictus {

void System::begin_probe() {
  Impl& s = *impl_;
  if (s.probing) return;
  s.probing = true;
  Impl::RankDecision& b = s.before_probe;
  // buffers sized with the structure (copies reuse them): no allocation
  b.dropped = s.dropped;
  b.rank_change = s.rank_change;
  b.rank_changes = s.rank_changes;
  b.geometric_check_below = s.geometric_check_below;
  b.rank_lowered = s.rank_lowered;
  b.dropped_row_violated = s.dropped_row_violated;
  b.inertia_ill_conditioned = s.inertia_ill_conditioned;
  b.self_stress_saved = false;
}

void System::Impl::keep_self_stress_for_probe() {
  if (!probing || before_probe.self_stress_saved) return;
  // a rank change: allocating is allowed
  before_probe.self_stress = self_stress;
  before_probe.self_stress_saved = true;
}

void System::end_probe() {
  Impl& s = *impl_;
  if (!s.probing) return;
  s.probing = false;
  Impl::RankDecision& b = s.before_probe;
  const bool rank_decided = b.self_stress_saved || b.dropped != s.dropped;
  if (!rank_decided && b.geometric_check_below == s.geometric_check_below &&
      b.rank_lowered == s.rank_lowered && b.dropped_row_violated == s.dropped_row_violated &&
      b.inertia_ill_conditioned == s.inertia_ill_conditioned)
    return;
  s.dropped = b.dropped;
  if (b.self_stress_saved) s.self_stress = std::move(b.self_stress);
  s.rank_change = b.rank_change;
  s.rank_changes = b.rank_changes;
  s.geometric_check_below = b.geometric_check_below;
  s.rank_lowered = b.rank_lowered;
  s.dropped_row_violated = b.dropped_row_violated;
  s.inertia_ill_conditioned = b.inertia_ill_conditioned;
  // the last evaluation was the probe's, with its rows: not the state's
  s.state_current = false;
  s.dynamics_valid = false;
}

}  // namespace ictus
