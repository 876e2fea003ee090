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

namespace {

// The rank decision, named alike in System::Impl and its copy before a probe
// (buffers sized with the structure: the copies reuse them, no allocation).
template <class From, class To>
void copy_rank_decision(const From& from, To& to) {
  to.dropped = from.dropped;
  to.rank_change = from.rank_change;
  to.rank_changes = from.rank_changes;
  to.geometric_check_below = from.geometric_check_below;
  to.structure_rank = from.structure_rank;
  to.rank_lowered = from.rank_lowered;
  to.inertia_ill_conditioned = from.inertia_ill_conditioned;
}

}  // namespace

void System::begin_probe() {
  Impl& s = *impl_;
  if (s.probing) return;
  s.probing = true;
  copy_rank_decision(s, s.before_probe);
  s.before_probe.self_stress_saved = false;
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
  if (!b.self_stress_saved && b.dropped == s.dropped &&
      b.geometric_check_below == s.geometric_check_below && b.structure_rank == s.structure_rank &&
      b.rank_lowered == s.rank_lowered && b.inertia_ill_conditioned == s.inertia_ill_conditioned)
    return;
  copy_rank_decision(b, s);
  if (b.self_stress_saved) s.self_stress = std::move(b.self_stress);
  // the last evaluation was the probe's, with its rows: not the state's
  s.forget_evaluation();
  s.dynamics_valid = false;
}

}  // namespace ictus
