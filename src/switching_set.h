// A set of switching functions of the System, located on the integrator's
// dense output: the mechanism shared by the stick/slip elements
// (element_switching.h) and the unilateral contacts
// (contact/contact_switching.h). Each function is positive while its mode
// persists; the set remembers every function's side at the last accepted
// state, finds the earliest crossing in a step (as the event conditions,
// root_finding.h) and, after an instant's decisions, the side each function
// takes a moment later along the motion. What a crossing means and how the
// modes are decided is the derived class's (CRTP: `Derived` provides
// value(k, t, y), crossed(k, g) and locatable(k)).
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "ictus/simulation.h"
#include "ictus/system.h"
#include "root_finding.h"

namespace ictus::internal {

template <class Derived>
class SwitchingSet {
 public:
  using Log = std::function<void(EventRecord)>;

  bool empty() const { return g_last_.empty(); }

  /// Remembers the side of every function at an accepted state.
  void remember(double t, const VecX& y) {
    for (int k = 0; k < static_cast<int>(g_last_.size()); ++k)
      g_last_[static_cast<std::size_t>(k)] = self().value(k, t, y);
  }

  /// Earliest zero crossing in (t0, t1] of a function that was positive at
  /// t0, by the Illinois method on the dense output `interpolate(t, y)`;
  /// t1 + 1 if none. `work` is scratch of the state's size.
  template <class Interpolate>
  double locate(double t0, double t1, const VecX& y1, Interpolate&& interpolate, VecX& work) {
    double t_event = t1 + 1.0;
    for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
      if (!self().locatable(k) || !(g_last_[static_cast<std::size_t>(k)] > 0.0)) continue;
      const double g1 = self().value(k, t1, y1);
      if (!self().crossed(k, g1)) continue;
      // as for the event conditions (root_finding.h)
      const double tolerance = 1e-14 * std::max(1.0, std::abs(t1));
      const double b = locate_crossing(
          t0, t1, g_last_[static_cast<std::size_t>(k)], g1, tolerance,
          [&](double c) {
            interpolate(c, work);
            return self().value(k, c, work);
          },
          [&](double g) { return self().crossed(k, g); });
      t_event = std::min(t_event, b);
    }
    return t_event;
  }

 protected:
  SwitchingSet(System& system, Log log, std::size_t count) : system_(system), log_(std::move(log)) {
    g_last_.assign(count, 1.0);
    // the look-ahead's work vectors, sized once: the step loop does not allocate
    rate_ = VecX::Zero(system_.state_size());
    ahead_ = rate_;
  }

  /// The look-ahead's interval after t.
  static double look_ahead_time(double t) { return 1e-9 * std::max(1.0, std::abs(t)); }
  /// Sets ahead_ to the state a moment (look_ahead_time) after t along the motion.
  void step_ahead(double t, const VecX& y) {
    rate_.resize(y.size());
    system_.derivative(t, y, rate_);
    ahead_ = y + look_ahead_time(t) * rate_;
  }
  /// The side a function takes just after an instant: its present value,
  /// unless that is at round-off level of its change over the look-ahead.
  static double side_after(double now, double next) {
    return std::abs(now) > 1e3 * std::abs(next - now) ? now : next;
  }
  /// Sets every function's side to side(k, now, next), `now` its value at
  /// (t, y) and `next` a moment later along the motion (evaluated last, so
  /// `side` may read the System there).
  template <class Side>
  void settle_sides(double t, const VecX& y, Side&& side) {
    if (g_last_.empty()) return;
    step_ahead(t, y);
    const double delta = look_ahead_time(t);
    for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
      const double now = self().value(k, t, y);
      const double next = self().value(k, t + delta, ahead_);
      g_last_[static_cast<std::size_t>(k)] = side(k, now, next);
    }
  }

  System& system_;
  Log log_;
  std::vector<double> g_last_;  // each function's side at the last accepted state
  VecX rate_, ahead_;           // the look-ahead's work

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace ictus::internal
