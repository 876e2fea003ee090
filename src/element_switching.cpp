#include "element_switching.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ictus/error.h"

namespace ictus::internal {

ElementSwitching::ElementSwitching(System& system, Log log)
    : SwitchingSet(system, std::move(log), static_cast<std::size_t>(system.stick_slip_count())) {
  const std::size_t count = g_last_.size();
  lambda_ahead_.assign(count, 0.0);
  ahead_negative_.assign(count, 0);
  switched_.assign(count, 0);
  enabled_before_.assign(count, 0);
  waking_.assign(count, 0);
  noted_mode_.assign(count, 0);
  noted_rate_.assign(count, 0.0);
  together_.reserve(count);
  together_modes_.assign(count, 0);
  together_before_.assign(count, 0);
  let_go_.assign(count, 0);
  stuck_together_.assign(count, 0);
  rate_now_.assign(count, 0.0);
  together_must_slip_.assign(count, 0);
  releasing_.assign(count, 0);
  release_mode_.assign(count, 0);
  margin_now_.assign(count, 0.0);
  slips_as_it_moved_.assign(count, 0);
  // the groups are fixed: every joint and row counts, enabled or not
  element_group_.assign(count, 0);
  int groups = 0;
  for (std::size_t k = 0; k < count; ++k) {
    element_group_[k] = system.stick_slip_group(static_cast<int>(k));
    groups = std::max(groups, element_group_[k] + 1);
  }
  group_tried_.assign(static_cast<std::size_t>(groups), 0);
}

double ElementSwitching::value(int k, double t, const VecX& y) {
  const int mode = system_.stick_slip_element(k).mode();
  if (mode != kStick) {
    system_.evaluate(t, y, Stage::kKinematics);
    return mode * system_.stick_slip_rate(k);
  }
  system_.evaluate(t, y, Stage::kDynamics);
  return system_.stuck_margin(k);
}

// Stuck, |lambda| = F_max still holds (the set includes its boundary);
// slipping, u' = 0 ends the slip.
bool ElementSwitching::crossed(int k, double g) const {
  return system_.stick_slip_element(k).mode() == kStick ? g < 0.0 : g <= 0.0;
}

void ElementSwitching::log_switch(int k, double t, int before, const char* kind) {
  const int mode = system_.stick_slip_element(k).mode();
  log_({t, kind, system_.stick_slip_element(k).name(),
        fmt::format("mode {:+d} -> {:+d}; u = {:.12g}, u' = {:.3g}, friction force {:.12g}, "
                    "F_max {:.12g}",
                    before, mode, system_.stick_slip_coordinate(k), system_.stick_slip_rate(k),
                    system_.friction_force(k), system_.stick_slip_limit(k))});
}

// The mode a decision at t is logged from: at t0 stuck (a run starts at
// rest); woken, the mode noted before the instant's switches (stuck if the
// element was off); otherwise its mode.
int ElementSwitching::mode_before(int k, bool start) const {
  const auto ki = static_cast<std::size_t>(k);
  if (!start) return system_.stick_slip_element(k).mode();
  return run_start_ || enabled_before_[ki] == 0 ? kStick : noted_mode_[ki];
}

void ElementSwitching::decide_at_zero_rate(int k, double t, VecX& y, bool start) {
  const int before = mode_before(k, start);
  if (system_.stick_slip_needs_reactions(k)) {
    // joint friction: its limit mu_s |N| depends on the reaction, so the
    // System decides from the solve at this instant (friction.md); the hold
    // row is switched on only to stick (the decision solves the dynamics
    // itself, where a provisional slip need not be solvable)
    system_.evaluate(t, y, Stage::kKinematics);
    const int mode = system_.decide_joint_friction(k);
    if (mode == kStick) {
      if (system_.set_stick_slip_mode(k, kStick)) system_.apply_impact(t, y);
      system_.evaluate(t, y, Stage::kDynamics);
      log_switch(k, t, before, "stick");
      return;
    }
    set_decided_modes(std::span<const int>(&k, 1), std::span<const int>(&mode, 1), t, y);
    log_switch(k, t, before, mode == -before ? "reversal" : "slip");
    return;
  }
  // hold the coordinate where it is; the plastic impact of the hold row takes
  // out the rate left by the root finding (its tiny loss is booked)
  system_.evaluate(t, y, Stage::kKinematics);
  if (system_.set_stick_slip_mode(k, kStick)) system_.apply_impact(t, y);
  system_.evaluate(t, y, Stage::kDynamics);
  double lambda = system_.friction_force(k);
  const double limit = system_.stick_slip_limit(k);
  if (std::abs(lambda) <= limit) {
    // held at the boundary |lambda| = F_max (structural damping at u = 0, or
    // a load that starts at zero): the look-ahead decides, as the reference
    // does with the load a moment later
    const double now = limit - std::abs(lambda);
    const double next = look_ahead(k, t, y);
    if (!(std::abs(now) <= 1e3 * std::abs(next - now) && next < 0.0)) {
      system_.evaluate(t, y, Stage::kDynamics);  // log the state at t, not ahead
      log_switch(k, t, before, "stick");
      return;
    }
    lambda = lambda_ahead_[static_cast<std::size_t>(k)];
    system_.evaluate(t, y, Stage::kDynamics);
  }
  // the load overcomes F_max: slip the way it pushes (against lambda)
  const int mode = lambda > 0.0 ? kSlipNegative : kSlipPositive;
  system_.set_stick_slip_mode(k, mode);
  system_.evaluate(t, y, Stage::kKinematics);
  log_switch(k, t, before, mode == -before ? "reversal" : "slip");
}

void ElementSwitching::set_decided_modes(std::span<const int> elements, std::span<const int> modes,
                                         double t, VecX& y) {
  // A ball that starts to slip from (near) rest is held for the impact: its
  // relative angular velocity is then zero, not the round-off (of any
  // direction) the location of the zero left, and grows along the slip axis
  // decided (docs/theory/friction.md, "A ball").
  bool held = false, structure = false;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const bool hold = modes[i] != kStick && system_.ball_rest_left(elements[i]);
    held = held || hold;
    structure = system_.set_stick_slip_mode(elements[i], hold ? kStick : modes[i]) || structure;
  }
  // the plastic impact of the new hold rows takes out the rates left by the
  // root finding (as for one element)
  if (structure) system_.apply_impact(t, y);
  if (held)
    for (std::size_t i = 0; i < elements.size(); ++i)
      system_.set_stick_slip_mode(elements[i], modes[i]);
  system_.evaluate(t, y, Stage::kDynamics);
}

int ElementSwitching::decide_together(double t, VecX& y, bool start) {
  together_.clear();
  const auto count = static_cast<int>(g_last_.size());
  // structural damping alone needs the look-ahead at u = 0: it is decided alone
  auto candidate = [&](int k) { return system_.stick_slip_decided_together(k); };
  if (start) {
    // at t0: the moving elements slip the way they move, those at rest are decided
    system_.evaluate(t, y, Stage::kKinematics);
    for (int k = 0; k < count; ++k) {
      if (waking_[static_cast<std::size_t>(k)] == 0 || !system_.stick_slip_enabled(k)) continue;
      system_.follow_slip_direction(k);  // a moving ball slips the way it turns
      const double rate = system_.stick_slip_rate(k);
      if (!at_rest(k, rate))
        system_.set_stick_slip_mode(k, rate > 0.0 ? kSlipPositive : kSlipNegative);
    }
    system_.evaluate(t, y, Stage::kKinematics);
    for (int k = 0; k < count; ++k)
      if (waking_[static_cast<std::size_t>(k)] != 0 && candidate(k) &&
          at_rest(k, system_.stick_slip_rate(k)))
        together_.push_back(k);
  } else {
    for (int k = 0; k < count; ++k) {
      const auto ki = static_cast<std::size_t>(k);
      if (!candidate(k) || system_.stick_slip_element(k).mode() == kStick) continue;
      if (ahead_negative_[ki] != 0 || (g_last_[ki] > 0.0 && crossed(k, value(k, t, y))))
        together_.push_back(k);
    }
    if (together_.empty()) return 0;
    // the others that reach zero slip within the round-off of this instant
    // (the root finder locates one crossing; a coupled one is a rounding away)
    step_ahead(t, y);
    const double delta = look_ahead_time(t);
    for (int k = 0; k < count; ++k) {
      if (!candidate(k) || system_.stick_slip_element(k).mode() == kStick ||
          std::find(together_.begin(), together_.end(), k) != together_.end())
        continue;
      const double now = value(k, t, y);
      const double next = value(k, t + delta, ahead_);
      if (crossed(k, next) && std::abs(now) <= 1e3 * std::abs(next - now)) together_.push_back(k);
    }
  }
  if (together_.size() < 2) return 0;
  system_.evaluate(t, y, Stage::kKinematics);  // the decision solves the dynamics
  const std::span<int> modes(together_modes_.data(), together_.size());
  // Those let go at this instant must slip: their holds were beyond their
  // limits a moment later. At the limit itself every stuck combination
  // holds to round-off, and taken again it gave way again: elements whose
  // margins reach zero together (a box's four corners at mu_s m g, a
  // ladder's two ends) were let go and stuck in turn until the rounds ran
  // out, and left stuck beyond their cones. Where no one combination is
  // consistent with that, they slip on as they were let go.
  bool must = false;
  for (std::size_t i = 0; i < together_.size(); ++i) {
    const auto ki = static_cast<std::size_t>(together_[i]);
    modes[i] = system_.stick_slip_element(together_[i]).mode();
    together_must_slip_[i] = let_go_[ki];
    must = must || let_go_[ki] != 0;
  }
  system_.decide_friction_together(
      together_, modes,
      must ? std::span<const char>(together_must_slip_.data(), together_.size())
           : std::span<const char>());
  for (std::size_t i = 0; i < together_.size(); ++i)
    together_before_[i] = mode_before(together_[i], start);
  set_decided_modes(together_, modes, t, y);
  for (std::size_t i = 0; i < together_.size(); ++i) {
    const int k = together_[i];
    const int before = together_before_[i];
    if (modes[i] == kStick) stuck_together_[static_cast<std::size_t>(k)] = 1;
    const char* kind = modes[i] == kStick ? "stick" : modes[i] == -before ? "reversal" : "slip";
    log_switch(k, t, before, kind);
    g_last_[static_cast<std::size_t>(k)] = 1.0;
    switched_[static_cast<std::size_t>(k)] = 1;
  }
  return static_cast<int>(together_.size());
}

int ElementSwitching::apply(double t, VecX& y, bool start) {
  std::fill(waking_.begin(), waking_.end(), static_cast<char>(start ? 1 : 0));
  return decide(t, y, start);
}

void ElementSwitching::note_enabled(double t, const VecX& y) {
  system_.evaluate(t, y, Stage::kKinematics);
  noted_speed_ = 0.0;
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
    const auto ki = static_cast<std::size_t>(k);
    enabled_before_[ki] = system_.stick_slip_enabled(k) ? 1 : 0;
    noted_mode_[ki] = system_.stick_slip_element(k).mode();
    noted_rate_[ki] = system_.stick_slip_rate(k);
    noted_speed_ = std::max(noted_speed_, std::abs(noted_rate_[ki]));
  }
}

// After an impulse a rate at the round-off of its solve, relative to the
// rate before it, is rest.
bool ElementSwitching::stopped(int k, double rate) const {
  return std::abs(rate) <= 1e-9 * std::abs(noted_rate_[static_cast<std::size_t>(k)]);
}

// At t0 only a rate of exactly zero is rest (docs/theory/stick-slip.md).
// After an impulse, so is the round-off of its solve: relative to the
// element's rate before it, or, for one at rest before it (a contact's
// tangent across the plane of the motion, switched on as the contact
// closes), to the fastest element's.
bool ElementSwitching::at_rest(int k, double rate) const {
  const double at_rest_before = 1e-9 * noted_speed_;
  return rate == 0.0 ||
         (!run_start_ && (stopped(k, rate) ||
                          (std::abs(noted_rate_[static_cast<std::size_t>(k)]) <= at_rest_before &&
                           std::abs(rate) <= at_rest_before)));
}

int ElementSwitching::wake(double t, VecX& y) {
  const auto count = static_cast<int>(g_last_.size());
  system_.evaluate(t, y, Stage::kKinematics);
  bool any = false;
  for (int k = 0; k < count; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    waking_[ki] = 0;
    if (!system_.stick_slip_enabled(k)) continue;
    const int mode = system_.stick_slip_element(k).mode();
    // switched on; or stuck and let go undecided (its contact opened for a
    // moment within the impact); or slipping and turned round or stopped by
    // an impulse (the rate on the decided side before, on the other side or
    // at the impulse's round-off now: not the round-off of a slip just
    // decided at zero rate)
    const bool switched_on = enabled_before_[ki] == 0;
    const bool let_go = noted_mode_[ki] == kStick && mode != kStick;
    const double rate = system_.stick_slip_rate(k);
    const bool turned =
        mode != kStick && mode * noted_rate_[ki] > 0.0 && (mode * rate < 0.0 || stopped(k, rate));
    // or turned round by the impact itself (System::apply_impact set its new side)
    const bool reversed = noted_mode_[ki] != kStick && mode == -noted_mode_[ki];
    waking_[ki] = switched_on || let_go || turned || reversed ? 1 : 0;
    any = any || waking_[ki] != 0;
  }
  // Still stuck, but beyond its limit: the switches (a load switched on or
  // off, a contact closed or opened) changed the force its hold takes. Its margin
  // starts the next step below zero, so no crossing of it would ever be
  // located, and it would stay stuck beyond its cone. It fires now instead.
  any = any_beyond_limit(t, y) || any;
  return any ? decide_woken(t, y) : 0;
}

bool ElementSwitching::beyond_limit(double t, const VecX& y) {
  std::fill(waking_.begin(), waking_.end(), char{0});
  return any_beyond_limit(t, y);
}

int ElementSwitching::let_go_overloaded(double t, VecX& y) {
  return beyond_limit(t, y) ? decide_woken(t, y) : 0;
}

bool ElementSwitching::slipping_against(double t, const VecX& y) {
  system_.evaluate(t, y, Stage::kKinematics);
  // beyond atol and the round-off of the fastest element's rate (a dry
  // friction mount let go under IDA moves at its hold's 7e-11 m/s either
  // way, and was turned round step after step)
  double fastest = 0.0;
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k)
    if (system_.stick_slip_enabled(k))
      fastest = std::max(fastest, std::abs(system_.stick_slip_rate(k)));
  const double tolerance = std::max(system_.model().settings().integrator.atol, 1e-9 * fastest);
  bool any = false;
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
    const auto ki = static_cast<std::size_t>(k);
    waking_[ki] = 0;
    // one whose function was left positive is located as it crosses
    if (!system_.stick_slip_enabled(k) || g_last_[ki] > 0.0) continue;
    const int mode = system_.stick_slip_element(k).mode();
    if (mode == kStick || !(mode * system_.stick_slip_rate(k) < -tolerance)) continue;
    waking_[ki] = 1;
    any = true;
  }
  if (!any) return false;
  // ... and moving further against it a moment later: one let go at a
  // hold's round-off (7e-11 m/s the wrong way) that its load takes the
  // right way is left to go through zero
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k)
    if (waking_[static_cast<std::size_t>(k)] != 0)
      margin_now_[static_cast<std::size_t>(k)] =
          system_.stick_slip_element(k).mode() * system_.stick_slip_rate(k);
  step_ahead(t, y);
  system_.evaluate(t + look_ahead_time(t), ahead_, Stage::kKinematics);
  any = false;
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
    const auto ki = static_cast<std::size_t>(k);
    if (waking_[ki] == 0) continue;
    const double next = system_.stick_slip_element(k).mode() * system_.stick_slip_rate(k);
    waking_[ki] = next < margin_now_[ki] ? 1 : 0;
    any = any || waking_[ki] != 0;
  }
  system_.evaluate(t, y, Stage::kKinematics);
  return any;
}

int ElementSwitching::turn_against_slips(double t, VecX& y) {
  // the rates noted are the rates themselves: a turned element is not at
  // rest (at_rest, stopped), and moves on the way it moves
  note_enabled(t, y);
  return slipping_against(t, y) ? decide_woken(t, y) : 0;
}

double ElementSwitching::hold_round_off(int k) {
  return 1e-9 * (system_.stick_slip_limit(k) + std::abs(system_.friction_force(k)));
}

void ElementSwitching::report_beyond_limits(double t, const VecX& y) {
  const auto count = static_cast<int>(g_last_.size());
  auto stuck = [&](int k) {
    return system_.stick_slip_enabled(k) && system_.stick_slip_element(k).mode() == kStick;
  };
  bool evaluated = false;
  double scale = 0.0;  // the instant's largest limit or stuck force
  for (int k = 0; k < count; ++k) {
    if (!stuck(k)) continue;
    if (!evaluated) system_.evaluate(t, y, Stage::kDynamics);
    evaluated = true;
    scale = std::max({scale, system_.stick_slip_limit(k), std::abs(system_.friction_force(k))});
  }
  int furthest = -1, beyond = 0;
  double excess = 1e-6 * scale;  // round-off of the split, and of a limit of zero
  for (int k = 0; k < count; ++k) {
    if (!stuck(k)) continue;
    const double over = std::abs(system_.friction_force(k)) - system_.stick_slip_limit(k);
    if (!(over > 1e-6 * scale)) continue;
    ++beyond;
    if (over > excess) {
      excess = over;
      furthest = k;
    }
  }
  if (furthest < 0) return;
  log_({t, "warning", system_.stick_slip_element(furthest).name(),
        fmt::format("stuck with a friction force beyond its limit after this instant's stick/slip "
                    "decisions (|F| = {:.6g}, F_max = {:.6g}{}): the decision held it on a split "
                    "of statically indeterminate forces within the cones that the dynamics does "
                    "not reproduce; the forces reported are not admissible until the next "
                    "decision (docs/theory/friction.md, \"A box in a corner\")",
                    std::abs(system_.friction_force(furthest)), system_.stick_slip_limit(furthest),
                    beyond > 1 ? fmt::format("; {} more stuck beyond theirs", beyond - 1) : "")});
}

bool ElementSwitching::any_beyond_limit(double t, const VecX& y) {
  bool evaluated = false;
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
    if (waking_[static_cast<std::size_t>(k)] != 0 || !system_.stick_slip_enabled(k) ||
        system_.stick_slip_element(k).mode() != kStick)
      continue;
    if (!evaluated) system_.evaluate(t, y, Stage::kDynamics);
    evaluated = true;
    if (system_.stuck_margin(k) < -hold_round_off(k)) return true;
  }
  return false;
}

int ElementSwitching::decide_woken(double t, VecX& y) {
  // decide's rounds after the first let a stuck one beyond its limit go, as
  // a hold that gives way, with those it gives way together with
  run_start_ = false;
  const int switches = decide(t, y, true);
  run_start_ = true;
  return switches;
}

// Stuck elements whose margins reach zero together (a box's four corners at
// mu_s m g, by symmetry) were let go one at a time: each release, with the
// kinetic force below the static one, loaded the next beyond its limit, and
// the split of the stuck holds (system_dependent_holds.cpp) spread that
// overload to elements the load never reached (a plank's y tangents, let
// go to slip at zero rate). They are let go together instead, each decided
// from the state before any of them is, and then those that another's
// release relieves are stuck again. Those that a release pushes beyond
// their limits fire afterwards (in decide's loop that follows, or at the
// next round by the look-ahead), not at their limits: they are decided
// again as before.
int ElementSwitching::let_go_together(double t, VecX& y) {
  const auto count = static_cast<int>(g_last_.size());
  // A ball is left to the loop that follows, one at a time: let go with
  // others, its slip may swing off the axis it was given rather than run
  // back along it, which the pass below does not see (three balls on one
  // point, their limits reached together, crawled at 1e-11 s steps)
  auto stuck = [&](int k) {
    return system_.stick_slip_enabled(k) && switched_[static_cast<std::size_t>(k)] == 0 &&
           system_.stick_slip_element(k).mode() == kStick && !system_.stick_slip_has_direction(k);
  };
  system_.evaluate(t, y, Stage::kDynamics);
  bool any = false;
  for (int k = 0; k < count; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    releasing_[ki] = 0;
    if (!stuck(k)) continue;
    margin_now_[ki] = system_.stuck_margin(k);
    if (ahead_negative_[ki] != 0 || (g_last_[ki] > 0.0 && crossed(k, margin_now_[ki]))) {
      releasing_[ki] = 1;
      any = true;
    }
  }
  if (!any) return 0;
  // those whose margins reach zero within the round-off of this instant (the
  // root finder locates one crossing)
  step_ahead(t, y);
  system_.evaluate(t + look_ahead_time(t), ahead_, Stage::kDynamics);
  for (int k = 0; k < count; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    if (!stuck(k) || releasing_[ki] != 0 || !(g_last_[ki] > 0.0)) continue;
    const double now = margin_now_[ki], next = system_.stuck_margin(k);
    if (crossed(k, next) && std::abs(now) <= 1e3 * std::abs(next - now)) releasing_[ki] = 1;
  }
  // each one's direction from the state at t, before any is let go
  system_.evaluate(t, y, Stage::kDynamics);
  for (int k = 0; k < count; ++k)
    if (releasing_[static_cast<std::size_t>(k)] != 0)
      release_mode_[static_cast<std::size_t>(k)] = release_from_hold(k, t, y);
  int released = 0;
  for (int k = 0; k < count; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    if (releasing_[ki] == 0) continue;
    decision_undone_ = decision_undone_ || stuck_together_[ki] != 0;
    system_.set_stick_slip_mode(k, release_mode_[ki]);
    g_last_[ki] = 1.0;
    switched_[ki] = 1;
    ++released;
  }
  // A release can relieve another of the set: two stacked blocks in rough
  // guides reaching their limits together, the upper one's kinetic force
  // (below its static one) leaves the lower guide within its cone. Left
  // slipping, such an element would at once run back against its own
  // kinetic friction (its slip rate crossing zero within the look-ahead,
  // not at its round-off): the one that does so furthest is stuck again,
  // and the rest looked at once more, until none does.
  for (int pass = released; pass > 0; --pass) {
    system_.evaluate(t, y, Stage::kKinematics);
    for (int k = 0; k < count; ++k)
      if (releasing_[static_cast<std::size_t>(k)] != 0)
        margin_now_[static_cast<std::size_t>(k)] =
            system_.stick_slip_element(k).mode() * system_.stick_slip_rate(k);
    step_ahead(t, y);
    system_.evaluate(t + look_ahead_time(t), ahead_, Stage::kKinematics);
    int relieved = -1;
    double furthest = 0.0;
    for (int k = 0; k < count; ++k) {
      const auto ki = static_cast<std::size_t>(k);
      if (releasing_[ki] == 0) continue;
      const double now = margin_now_[ki];
      const double next = system_.stick_slip_element(k).mode() * system_.stick_slip_rate(k);
      if (next < furthest && std::abs(now) <= 1e3 * std::abs(next - now)) {
        furthest = next;
        relieved = k;
      }
    }
    if (relieved < 0) break;
    const auto ri = static_cast<std::size_t>(relieved);
    releasing_[ri] = 0;
    let_go_[ri] = 0;
    switched_[ri] = 0;
    --released;
    // held where it is: the plastic impact of its hold row takes out the
    // rate the release left (as a decision at zero rate that sticks)
    if (system_.set_stick_slip_mode(relieved, kStick)) system_.apply_impact(t, y);
    // well within its limit now, with the others let go: its side a moment
    // ahead from an earlier round (beyond its limit before they were) no
    // longer fires it in the loop that follows (two stacked guides under a
    // step push, both beyond their limits: the upper one, relieved, was let
    // go again and slipped against its motion)
    system_.evaluate(t, y, Stage::kDynamics);
    if (system_.stuck_margin(relieved) > hold_round_off(relieved)) ahead_negative_[ri] = 0;
  }
  system_.evaluate(t, y, Stage::kKinematics);
  for (int k = 0; k < count; ++k)
    if (releasing_[static_cast<std::size_t>(k)] != 0) log_switch(k, t, kStick, "slip");
  return released;
}

// The enumeration over the holds' indeterminate splits (a flat box's eight
// tangents: C(8, s) 4^(8 - s) combinations at each level s stuck) would take
// 1-2 s for one instant; the complementarity problem decides the group in one
// solve, its combination put to the same exact test. A group is the stuck
// elements of one set of coupled bodies: those of two boxes on one floor
// cannot take each other's loads, and a group whose combination does not
// hold leaves the others decided.
int ElementSwitching::decide_overloaded_together(double t, VecX& y) {
  const auto count = static_cast<int>(g_last_.size());
  auto stuck_together = [&](int k) {
    return system_.stick_slip_enabled(k) && system_.stick_slip_element(k).mode() == kStick &&
           system_.stick_slip_decided_together(k) && !system_.stick_slip_has_direction(k);
  };
  std::fill(group_tried_.begin(), group_tried_.end(), char{0});
  int slipping = 0;
  for (int first = 0; first < count; ++first) {
    const int group = element_group_[static_cast<std::size_t>(first)];
    if (group < 0 || group_tried_[static_cast<std::size_t>(group)] != 0) continue;
    system_.evaluate(t, y, Stage::kDynamics);
    if (!stuck_together(first)) continue;
    group_tried_[static_cast<std::size_t>(group)] = 1;
    together_.clear();
    bool beyond = false, woke = false;
    for (int k = first; k < count; ++k) {
      if (element_group_[static_cast<std::size_t>(k)] != group) continue;
      // an element of the group woke: decided with the group at zero rate
      woke = woke || waking_[static_cast<std::size_t>(k)] != 0;
      if (!stuck_together(k)) continue;
      together_.push_back(k);
      beyond = beyond || system_.stuck_margin(k) < -hold_round_off(k);
    }
    if (beyond && !woke && together_.size() >= 2) slipping += decide_overloaded_group(t, y);
  }
  return slipping;
}

int ElementSwitching::decide_overloaded_group(double t, VecX& y) {
  // each provisionally slipping the way its hold force pushes it, as the
  // decision at zero rate wants its members
  const std::span<int> modes(together_modes_.data(), together_.size());
  for (std::size_t i = 0; i < together_.size(); ++i)
    modes[i] = system_.slip_mode_from_hold(together_[i], system_.friction_force(together_[i]));
  for (std::size_t i = 0; i < together_.size(); ++i)
    system_.set_stick_slip_mode(together_[i], modes[i]);
  system_.evaluate(t, y, Stage::kKinematics);
  if (!system_.decide_friction_together(together_, modes, {}, true)) {
    for (const int k : together_) system_.set_stick_slip_mode(k, kStick);
    system_.evaluate(t, y, Stage::kDynamics);
    return 0;
  }
  set_decided_modes(together_, modes, t, y);
  int slipping = 0;
  for (std::size_t i = 0; i < together_.size(); ++i) {
    const auto ki = static_cast<std::size_t>(together_[i]);
    switched_[ki] = 1;
    if (modes[i] == kStick) continue;
    g_last_[ki] = 1.0;
    log_switch(together_[i], t, kStick, "slip");
    ++slipping;
  }
  return slipping;
}

int ElementSwitching::release_from_hold(int k, double t, const VecX& y) {
  const auto ki = static_cast<std::size_t>(k);
  double lambda = system_.friction_force(k);
  // at its limit now (not pushed beyond it by a change of this instant,
  // which the decision together may undo): it must slip
  let_go_[ki] = system_.stuck_margin(k) >= -hold_round_off(k) ? 1 : 0;
  if (ahead_negative_[ki] == 0) return system_.slip_mode_from_hold(k, lambda);
  lambda = lambda_ahead_[ki];
  if (!system_.stick_slip_locked(k)) return system_.slip_mode_from_hold(k, lambda);
  // moved by the others from rest (rate and acceleration zero at t, a
  // driver's A t^3 with no normal force): the way they move it a moment later
  step_ahead(t, y);
  system_.evaluate(t + look_ahead_time(t), ahead_, Stage::kDynamics);
  const int slip = system_.slip_mode_from_hold(k, lambda);
  system_.evaluate(t, y, Stage::kDynamics);
  return slip;
}

int ElementSwitching::decide(double t, VecX& y, bool start) {
  std::fill(ahead_negative_.begin(), ahead_negative_.end(), char{0});
  std::fill(let_go_.begin(), let_go_.end(), char{0});
  std::fill(stuck_together_.begin(), stuck_together_.end(), char{0});
  decision_undone_ = false;
  // the instant as it stood, for a second pass (decide_again_with_contact_
  // splits below) while the run has not asked for the contact-modes search;
  // the first pass's events held back until it is known which pass stands
  // (contacts, and elements decided together whose splits they may share)
  bool second_pass = system_.contact_side_count() > 0 && !system_.contact_splits_searched();
  if (second_pass) {
    second_pass = false;
    for (int k = 0; k < static_cast<int>(g_last_.size()) && !second_pass; ++k)
      second_pass = system_.stick_slip_decided_together(k);
  }
  Log log;
  if (second_pass) {
    before_.save(*this, y);
    held_events_.clear();
    log = std::move(log_);
    log_ = [this](EventRecord e) { held_events_.push_back(std::move(e)); };
  }
  auto release_events = [&]() {
    if (!second_pass) return;
    log_ = std::move(log);
    for (EventRecord& e : held_events_) log_(std::move(e));
    held_events_.clear();
  };
  int switches = 0;
  try {
    try {
      switches = decide_rounds(t, y, start);
    } catch (const SimulationError&) {
      // No consistent combination once a stick decision of the instant was
      // undone. A box sliding along a rough wall with no push into it (the
      // flatter inertia of ContactFriction.ABoxSlidingAlongAWallStops...),
      // stopping against a push along the wall that the floor holds: the
      // first pass stuck the floor's and the wall's tangents, the dynamics
      // let seven of them go, and the wall's four points, their normal
      // forces +-1/3 N in the dynamics' split (two pulling), had none. The
      // instant is decided again as below and taken where its rounds settle
      // with no stuck element beyond its limit; else the failure stands
      if (!second_pass || !decision_undone_ ||
          !second_pass_kept(t, y, start, std::numeric_limits<double>::infinity(), switches))
        throw;
      release_events();
      return switches;
    }
    // Rounds that did not settle: a stick decision holds a set on a split
    // of its statically indeterminate forces within the cones, the
    // dynamics' split leaves some beyond, they are let go, stop at once and
    // are stuck again (a box pushed along a rough wall, three wall
    // tangents). The dynamics then searches the splits along the modes
    // among contact rows too, and the rounds go on from where they stood.
    if (!settled_ && system_.search_contact_splits())
      switches += decide_rounds(t, y, false);
    else if (second_pass && decision_undone_)
      switches = decide_again_with_contact_splits(t, y, start, switches);
  } catch (...) {
    release_events();  // a run that stops here logs what was decided before
    throw;
  }
  release_events();
  return switches;
}

void ElementSwitching::PassState::save(const ElementSwitching& s, const VecX& state) {
  mode = s.system_.save_mode();
  y = state;
  g_last = s.g_last_;
  lambda_ahead = s.lambda_ahead_;
  settled = s.settled_;
}

void ElementSwitching::PassState::restore(ElementSwitching& s, double t, VecX& state) const {
  state = y;
  s.system_.restore_mode(*mode, t, state);
  s.g_last_ = g_last;
  s.lambda_ahead_ = lambda_ahead;
  s.settled_ = settled;
}

double ElementSwitching::fastest_start(double t, const VecX& y) {
  const auto count = static_cast<int>(g_last_.size());
  system_.evaluate(t, y, Stage::kDynamics);
  for (int k = 0; k < count; ++k) {
    if (!system_.stick_slip_enabled(k)) continue;
    if (system_.stick_slip_element(k).mode() == kStick &&
        system_.stuck_margin(k) < -hold_round_off(k))
      return std::numeric_limits<double>::infinity();
  }
  system_.evaluate(t, y, Stage::kKinematics);
  for (int k = 0; k < count; ++k)
    rate_now_[static_cast<std::size_t>(k)] =
        system_.stick_slip_enabled(k) ? system_.stick_slip_rate(k) : 0.0;
  step_ahead(t, y);
  system_.evaluate(t + look_ahead_time(t), ahead_, Stage::kKinematics);
  double fastest = 0.0;
  for (int k = 0; k < count; ++k) {
    if (!system_.stick_slip_enabled(k) || system_.stick_slip_element(k).mode() == kStick) continue;
    // at rest: its rate at the round-off of its change over the look-ahead
    const double now = rate_now_[static_cast<std::size_t>(k)];
    const double change = system_.stick_slip_rate(k) - now;
    if (std::abs(now) <= 1e3 * std::abs(change))
      fastest = std::max(fastest, std::abs(change) / look_ahead_time(t));
  }
  system_.evaluate(t, y, Stage::kDynamics);
  return fastest;
}

// A stick decision undone by the dynamics at its instant: the decision held
// the set on a split of its statically indeterminate forces within the
// cones, the dynamics' split (along the modes that join stuck holds) left
// some beyond, they were let go and the rounds settled with them slipping.
// A box at rest against a rough wall, pushed (3, 6) N, slid though the wall
// and floor hold it with the wall's resultant normal force at the 3 N push
// into it. The instant is decided again from where it stood before its
// first decision, the dynamics also searching the splits along the modes
// among contact rows (each surface's resultant kept). The second pass is
// taken where its rounds settle with no stuck element beyond its limit and
// it holds at rest what the first pass set moving: every element at rest
// starts to slip with less than 1e-9 of the fastest slip acceleration the
// first pass left (a slip at zero rate and zero acceleration, whose label
// is provisional, does not count). Otherwise, or where the second pass
// stops as Painleve, the instant stays as the first pass left it, the
// search left off for the run and the second pass's events dropped.
// Allocates (decisions only).
int ElementSwitching::decide_again_with_contact_splits(double t, VecX& y, bool start,
                                                       int first_switches) {
  const double first_start = fastest_start(t, y);
  if (!(first_start > 0.0)) return first_switches;  // the first pass holds all at rest
  int switches = 0;
  return second_pass_kept(t, y, start, 1e-9 * first_start, switches) ? switches : first_switches;
}

bool ElementSwitching::second_pass_kept(double t, VecX& y, bool start, double most_start,
                                        int& switches) {
  first_pass_.save(*this, y);
  std::vector<EventRecord> first_events = std::move(held_events_);
  held_events_.clear();
  before_.restore(*this, t, y);
  system_.search_contact_splits();
  std::fill(ahead_negative_.begin(), ahead_negative_.end(), char{0});
  std::fill(let_go_.begin(), let_go_.end(), char{0});
  std::fill(stuck_together_.begin(), stuck_together_.end(), char{0});
  decision_undone_ = false;
  // a second pass that finds no consistent combination (Painleve) is dropped
  // as one that does not hold
  bool decided = true;
  int second_switches = 0;
  try {
    second_switches = decide_rounds(t, y, start);
  } catch (const SimulationError&) {
    decided = false;
  }
  if (decided) {
    if (const double second_start = fastest_start(t, y);
        settled_ && std::isfinite(second_start) && second_start <= most_start) {
      switches = second_switches;
      return true;
    }
  }
  first_pass_.restore(*this, t, y);
  held_events_ = std::move(first_events);
  return false;
}

int ElementSwitching::decide_rounds(double t, VecX& y, bool start) {
  int switches = 0;
  settled_ = false;
  for (int round = 0; round < 10; ++round) {
    std::fill(switched_.begin(), switched_.end(), char{0});
    std::fill(slips_as_it_moved_.begin(), slips_as_it_moved_.end(), char{0});
    if (start && round == 0 && !run_start_) switches += decide_overloaded_together(t, y);
    switches += decide_together(t, y, start && round == 0);
    if (!(start && round == 0)) switches += let_go_together(t, y);
    for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
      const auto ki = static_cast<std::size_t>(k);
      if (!system_.stick_slip_enabled(k) || switched_[ki] != 0) continue;
      const int mode = system_.stick_slip_element(k).mode();
      if (start && round == 0) {
        // at t0 a moving element slips the way it moves; one at rest is
        // decided like a slip that has just stopped (woken: the same, the
        // others are left as they were decided)
        if (waking_[ki] == 0) continue;
        system_.evaluate(t, y, Stage::kKinematics);
        system_.follow_slip_direction(k);  // a moving ball slips the way it turns
        const double rate = system_.stick_slip_rate(k);
        if (!at_rest(k, rate)) {
          const int slip = rate > 0.0 ? kSlipPositive : kSlipNegative;
          system_.set_stick_slip_mode(k, slip);
          slips_as_it_moved_[ki] = 1;
          // woken (not at t0): logged, from the mode it had before the instant
          const int before = mode_before(k, true);
          if (!run_start_) log_switch(k, t, before, before == -slip ? "reversal" : "slip");
        } else {
          decide_at_zero_rate(k, t, y, true);
        }
        ++switches;
        switched_[static_cast<std::size_t>(k)] = 1;
        continue;
      }
      const bool fires =
          ahead_negative_[ki] != 0 || (g_last_[ki] > 0.0 && crossed(k, value(k, t, y)));
      if (!fires) continue;
      // let go at this instant: it starts to slip from zero rate, the way
      // its hold force gave it (decided alone at the limit, it stuck again)
      if (mode != kStick && let_go_[ki] != 0) continue;
      if (mode != kStick) {
        decide_at_zero_rate(k, t, y, false);
      } else {
        // the hold gives way; at |lambda| = F_max exactly (an element that
        // sticks at the boundary) the look-ahead tells the direction
        system_.evaluate(t, y, Stage::kDynamics);
        decision_undone_ = decision_undone_ || stuck_together_[ki] != 0;
        system_.set_stick_slip_mode(k, release_from_hold(k, t, y));
        system_.direct_slip_from_hold(k);  // a ball: along its acceleration
        system_.evaluate(t, y, Stage::kKinematics);
        log_switch(k, t, kStick, "slip");
      }
      g_last_[ki] = 1.0;
      ++switches;
      switched_[ki] = 1;
    }
    settle(t, y);
    bool pending = false;
    for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
      const auto ki = static_cast<std::size_t>(k);
      // an element just set slipping was given its direction by the force
      // (at rest with no acceleration yet, its rate is still zero ahead);
      // one set slipping the way it moved, whose rate its friction turns
      // round within the look-ahead, moved at a drift's rate and is decided
      // at zero rate in the next round (a box lying on its side after a
      // cascade of bounces on its corners, at rest to 1e-17 J: six tangents
      // left slipping at 1.5e-9 m/s ran against their slips to 6.8 mm/s)
      if (switched_[ki] != 0 && slips_as_it_moved_[ki] == 0 &&
          system_.stick_slip_element(k).mode() != kStick && g_last_[ki] <= 0.0)
        g_last_[ki] = 1e-300;
      ahead_negative_[ki] = system_.stick_slip_enabled(k) && crossed(k, g_last_[ki]) ? 1 : 0;
      pending = pending || ahead_negative_[ki] != 0;
    }
    if (!pending) {
      settled_ = true;
      break;
    }
  }
  return switches;
}

void ElementSwitching::remember(double t, const VecX& y) {
  // a slipping ball's slip axis follows its angular velocity from step to
  // step: its switching function w . e then starts every step at |w| > 0 and
  // crosses zero only where w passes through zero within a step
  system_.evaluate(t, y, Stage::kKinematics);
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) system_.follow_slip_direction(k);
  SwitchingSet::remember(t, y);
}

double ElementSwitching::look_ahead(int k, double t, const VecX& y) {
  step_ahead(t, y);
  const double next = value(k, t + look_ahead_time(t), ahead_);
  if (system_.stick_slip_element(k).mode() == kStick)
    lambda_ahead_[static_cast<std::size_t>(k)] = system_.friction_force(k);
  return next;
}

void ElementSwitching::settle(double t, const VecX& y) {
  settle_sides(t, y, [this](int k, double now, double next) {
    // stuck: the hold force a moment after t (evaluated last, at next)
    if (system_.stick_slip_element(k).mode() == kStick)
      lambda_ahead_[static_cast<std::size_t>(k)] = system_.friction_force(k);
    return side_after(now, next);
  });
}

}  // namespace ictus::internal
