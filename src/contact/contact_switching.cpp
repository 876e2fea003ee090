#include "contact_switching.h"

#include <fmt/format.h>

namespace ictus::internal {

namespace {
// Time scale [s] turning the gap rate into a gap in the open side's
// switching function (value()).
constexpr double kRateTime = 1.0;
// A gap below -kInside [m or rad] is inside the contact, not round-off or a
// hold row's drift (also the start's test).
constexpr double kInside = 1e-9;
// Relative to the closed sides' total normal force: the round-off a side's
// normal force may have below zero while it rests (settle_closed).
constexpr double kPullTolerance = 1e-12;
// A gap rate this small after the impact is rest (round-off of the LCP).
bool at_rest(double rate_after, double rate_before) {
  return rate_after <= 1e-12 * std::max(1.0, std::abs(rate_before));
}
}  // namespace

ContactSwitching::ContactSwitching(System& system, Log log)
    : SwitchingSet(system, std::move(log), static_cast<std::size_t>(system.contact_side_count())) {
  const std::size_t count = g_last_.size();
  offset_.assign(count, 0.0);
  pull_tolerance_.assign(count, 0.0);
  just_switched_.assign(count, 0);
  now_.assign(count, 0.0);
}

std::vector<double> ContactSwitching::saved() const {
  std::vector<double> out = g_last_;
  out.insert(out.end(), offset_.begin(), offset_.end());
  out.insert(out.end(), pull_tolerance_.begin(), pull_tolerance_.end());
  return out;
}

void ContactSwitching::restore(const std::vector<double>& saved, int impacts) {
  const std::size_t n = g_last_.size();
  std::copy(saved.begin(), saved.begin() + static_cast<std::ptrdiff_t>(n), g_last_.begin());
  std::copy(saved.begin() + static_cast<std::ptrdiff_t>(n),
            saved.begin() + static_cast<std::ptrdiff_t>(2 * n), offset_.begin());
  std::copy(saved.begin() + static_cast<std::ptrdiff_t>(2 * n), saved.end(),
            pull_tolerance_.begin());
  impacts_ = impacts;
}

double ContactSwitching::value(int k, double t, const VecX& y) {
  if (system_.contact_closed(k)) {
    system_.evaluate(t, y, Stage::kDynamics);
    return system_.contact_normal_force(k) + pull_tolerance_[static_cast<std::size_t>(k)];
  }
  system_.evaluate(t, y, Stage::kKinematics);
  // while the gap opens, its rate keeps the function positive: the gap
  // itself is round-off there right after a rebound (an angle's 1e-16 rad
  // beside a flight of microradians); once it closes the gap decides. A gap
  // below zero beyond its round-off is a crossing whatever its rate: a step
  // may carry a sphere past another's centre, where the distance of the
  // centres turns back and the gap opens again
  const double gap = system_.contact_gap(k) - offset_[static_cast<std::size_t>(k)];
  if (gap < -kInside) return gap;
  return std::max(gap, kRateTime * system_.contact_gap_rate(k));
}

// Closed, N = 0 still holds (the contact opens when it would pull); open,
// the gap must go below where the last impact left it (a body touching at
// rest with no force, g = 0, is no impact).
bool ContactSwitching::crossed(int k, double g) const {
  (void)k;
  return g < 0.0;
}

double ContactSwitching::lift_off_offset(int k, double t, const VecX& y) {
  // the gap of a closed side whose row was dropped as dependent (a redundant
  // set) is not held by the integrator and may have drifted below zero: its
  // flight starts from there, as after an impact located slightly inside
  system_.evaluate(t, y, Stage::kKinematics);
  return std::min(system_.contact_gap(k), 0.0);
}

double ContactSwitching::free_gap_acceleration(int k, double t, const VecX& y) {
  // a forward difference of the gap rate along the motion; the gap rate is
  // smooth while the side is open
  const double delta = 1e-7 * std::max(1.0, std::abs(t));
  rate_.resize(y.size());
  system_.derivative(t, y, rate_);
  ahead_ = y + delta * rate_;
  system_.evaluate(t + delta, ahead_, Stage::kKinematics);
  const double ahead = system_.contact_gap_rate(k);
  system_.evaluate(t, y, Stage::kKinematics);
  return (ahead - system_.contact_gap_rate(k)) / delta;
}

int ContactSwitching::settle_closed(double t, const VecX& y, const char* why) {
  std::vector<int> closed;
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k)
    if (system_.contact_closed(k)) closed.push_back(k);
  if (closed.empty()) return 0;
  std::vector<double> gap_acceleration;
  const std::vector<double> normal = system_.contact_forces(t, y, closed, &gap_acceleration);
  // a side opens when its gap accelerates away (N = 0 < g''); in a redundant
  // set (a box flat on four corners) the forces are not unique and a side
  // may take N = 0 with g'' = 0: it stays closed, resting without load
  double total = 0.0, largest_rate = 0.0;
  for (std::size_t i = 0; i < closed.size(); ++i) {
    total += std::abs(normal[i]);
    largest_rate = std::max(largest_rate, std::abs(gap_acceleration[i]));
  }
  int opened = 0;
  for (std::size_t i = 0; i < closed.size(); ++i) {
    // while closed, the side opens when its force goes below -this: a
    // redundant set's least-norm forces (docs/theory/contact.md, "Dependent
    // contact rows") may leave a side at zero force plus round-off
    pull_tolerance_[static_cast<std::size_t>(closed[i])] = kPullTolerance * total;
    if (normal[i] > 0.0 || !(gap_acceleration[i] > 1e-9 * std::max(1.0, largest_rate))) continue;
    const int k = closed[i];
    system_.set_contact_closed(k, false);
    offset_[static_cast<std::size_t>(k)] = lift_off_offset(k, t, y);
    g_last_[static_cast<std::size_t>(k)] = 1e-300;
    just_switched_[static_cast<std::size_t>(k)] = 1;
    log_({t, "contact", system_.contact_side_name(k),
          fmt::format("opened {}: the normal force would pull", why)});
    ++opened;
  }
  return opened;
}

int ContactSwitching::open_pulling(double t, const VecX& y) {
  const auto count = static_cast<int>(g_last_.size());
  int opened = 0;
  for (int round = 0; round < count; ++round) {
    for (int k = 0; k < count; ++k)
      if (system_.contact_closed(k)) now_[static_cast<std::size_t>(k)] = value(k, t, y);
    step_ahead(t, y);
    const double delta = look_ahead_time(t);
    // the side whose function is furthest below zero just after t
    int pulling = -1;
    double least = 0.0;
    for (int k = 0; k < count; ++k) {
      if (!system_.contact_closed(k)) continue;
      const double g = side_after(now_[static_cast<std::size_t>(k)], value(k, t + delta, ahead_));
      if (crossed(k, g) && g < least) {
        least = g;
        pulling = k;
      }
    }
    if (pulling < 0) break;
    const auto ki = static_cast<std::size_t>(pulling);
    system_.set_contact_closed(pulling, false);
    offset_[ki] = lift_off_offset(pulling, t, y);
    g_last_[ki] = 1e-300;
    just_switched_[ki] = 1;
    log_({t, "contact", system_.contact_side_name(pulling),
          fmt::format("opened with the others: its normal force would pull a moment later "
                      "({:.6g} N)",
                      least - pull_tolerance_[ki])});
    ++opened;
    opened += settle_closed(t, y, "with the others");
  }
  return opened;
}

int ContactSwitching::impact(double t, VecX& y, const std::vector<int>& closing) {
  // one problem over the sides that close, every closed side, and every
  // other open side that touches while approaching (simultaneous impacts)
  std::vector<int> sides;
  std::vector<char> was_closed;
  system_.evaluate(t, y, Stage::kKinematics);
  for (int k = 0; k < static_cast<int>(g_last_.size()); ++k) {
    const bool listed = std::find(closing.begin(), closing.end(), k) != closing.end();
    // touching (closing or at rest) within what the root finder leaves:
    // simultaneous impacts of symmetric contacts, a box's corners, differ
    // by round-off
    const double rate = system_.contact_gap_rate(k);
    const bool touching =
        rate <= 0.0 && system_.contact_gap(k) - offset_[static_cast<std::size_t>(k)] <=
                           std::max(1e-10 * -rate, system_.contact_gap_resolution(k));
    if (listed || touching || system_.contact_closed(k)) {
      sides.push_back(k);
      was_closed.push_back(system_.contact_closed(k) ? 1 : 0);
    }
  }
  const std::size_t n = sides.size();
  // Newton's law per side. A side closed before the impact approaches only
  // at its hold row's drift (g'- = 0 but for round-off): its law gives it no
  // rebound, e = 0 (else e times the drift reopens it for a flight of 1e-11 s)
  std::vector<double> restitution(n);
  for (std::size_t i = 0; i < n; ++i)
    restitution[i] = was_closed[i] != 0 ? 0.0 : system_.contact_restitution(sides[i]);
  const VecX before = y;  // an accumulation redoes the impact from here
  System::ContactImpact r = system_.contact_impact(t, y, sides, restitution);
  ++impacts_;
  // Zeno, on the set of sides of the impact: under a free gap acceleration
  // a < 0 a rebound v lasts 2 v/|a|, and the flights that follow, each e
  // times the one before, sum to T = 2 v / (|a| (1 - e)); a side lifted by
  // the others' impulses (P = 0, its own law idle) falls back within 2 v/|a|.
  // A side whose T is below its accumulation time (or whose next apex is
  // below what the gap resolves) is held closed through the impact: the
  // impacts that remain, among several sides plastic impacts alternating
  // from one side to another, converge to the velocity that keeps them all
  // closed (alternating projections onto the sides' tangent spaces, von
  // Neumann), with their impulses >= 0 summed. a is taken with every
  // rebounding side open together, the other sides as the impact left them.
  // When every gap rate of the impact, before and after, is below what the
  // free gap accelerations give in the accumulation time (|a| tau), the
  // whole set accumulates: every rebounding side is held, even one that
  // would take a small pulling impulse, which is what the other forces
  // deliver between the remaining impacts (their flights are as short as
  // those of the impulses' own velocities).
  std::vector<char> held(n, 0), released(n, 0);
  std::vector<double> remaining_time(n, -1.0);
  double impact_speed = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    impact_speed = std::max({impact_speed, std::abs(r.rate_before[i]), std::abs(r.rate_after[i])});
  bool set_accumulates = false;
  for (std::size_t pass = 0; pass < 2 * n + 2; ++pass) {
    std::vector<std::size_t> rebounding;
    for (std::size_t i = 0; i < n; ++i)
      if (held[i] == 0 && !at_rest(r.rate_after[i], r.rate_before[i])) rebounding.push_back(i);
    for (const std::size_t i : rebounding) system_.set_contact_closed(sides[i], false);
    bool more = false;
    if (pass == 0 && !rebounding.empty()) set_accumulates = true;
    for (const std::size_t i : rebounding) {
      const int k = sides[i];
      const double e = r.impulse[i] > 0.0 ? restitution[i] : 0.0;
      if (e >= 1.0 || released[i] != 0) continue;
      const double a = free_gap_acceleration(k, t, y);
      if (pass == 0 && !(-a * system_.contact_accumulation_time(k) > impact_speed))
        set_accumulates = false;
      if (!(a < 0.0)) continue;
      const double v = r.rate_after[i];
      const double remaining = 2.0 * v / (-a * (1.0 - e));
      // ... or when the next apex, v^2 / (2 |a|), is below what the gap resolves
      system_.evaluate(t, y, Stage::kKinematics);
      const double apex = v * v / (-2.0 * a);
      if (remaining < system_.contact_accumulation_time(k) ||
          apex < system_.contact_gap_resolution(k)) {
        remaining_time[i] = remaining;
        held[i] = 1;
        more = true;
      }
    }
    // a held side that would need a pulling impulse does separate: release it
    double largest = 0.0;
    for (const double p : r.impulse) largest = std::max(largest, std::abs(p));
    for (std::size_t i = 0; i < n; ++i)
      if (held[i] != 0 && r.impulse[i] < -1e-9 * largest && pass > 0 && !set_accumulates) {
        held[i] = 0;
        released[i] = 1;
        remaining_time[i] = -1.0;
        more = true;
      }
    if (!more) break;
    y = before;
    r = system_.contact_impact(t, y, sides, restitution, held);
  }
  // frictional joints the final impact set slipping or turned round
  // (ElementSwitching::wake logs the slip or the reversal); their friction
  // impulses go into the line of the first side logged (their own line if none is)
  for (const auto& [element, mode] : r.let_go) system_.set_stick_slip_mode(element, mode);
  std::string joint_friction;
  for (const auto& [name, F] : r.joint_friction)
    joint_friction += fmt::format("{}{}={:.9g}", joint_friction.empty() ? "" : ", ", name, F);
  if (!r.non_unique.empty()) {
    std::string joints;
    for (const std::string& j : r.non_unique) joints += (joints.empty() ? "" : ", ") + j;
    joint_friction += (joint_friction.empty() ? "" : "; ") +
                      std::string("the motion is unique, the friction impulses of ") + joints +
                      " are not";
  }
  int changes = 0;
  for (std::size_t i = 0; i < sides.size(); ++i) {
    const int k = sides[i];
    const auto ki = static_cast<std::size_t>(k);
    const double v_in = r.rate_before[i];
    const double v_out = r.rate_after[i];
    if (r.impulse[i] > 0.0 || v_in < 0.0) {
      log_({t, "impact", system_.contact_side_name(k),
            fmt::format(
                "gap rate {:.12g} -> {:.12g}; normal impulse {:.12g}; kinetic energy "
                "{:.12g} -> {:.12g} J (lost {:.6g} J){}",
                v_in, v_out, r.impulse[i], r.kinetic_before, r.kinetic_after,
                r.kinetic_before - r.kinetic_after,
                joint_friction.empty() ? "" : "; joint friction impulses: " + joint_friction)});
      joint_friction.clear();
      ++changes;
    }
    if (remaining_time[i] >= 0.0) {
      log_({t, "accumulation", system_.contact_side_name(k),
            fmt::format("impacts accumulate (Zeno) at t_inf = {:.15g} s: with e = {} the "
                        "rebounds left would last {:.3g} s in all (below the accumulation time, "
                        "or flights lower than the gap resolves); taken as one plastic impact, "
                        "ending in persistent contact",
                        t + remaining_time[i], system_.contact_restitution(k), remaining_time[i])});
      ++changes;
    }
    if (at_rest(v_out, v_in)) {
      offset_[ki] = 0.0;
      continue;  // stays closed: decided at acceleration level below
    }
    // the side rebounds: open, its next flight starting from the gap here
    if (was_closed[i] != 0) {
      log_({t, "contact", system_.contact_side_name(k),
            fmt::format("opened by the impact: gap rate {:.12g} -> {:.12g}", v_in, v_out)});
      ++changes;
    }
    system_.set_contact_closed(k, false);
    system_.evaluate(t, y, Stage::kKinematics);
    offset_[ki] = std::min(system_.contact_gap(k), 0.0);
    g_last_[ki] = 1e-300;
    just_switched_[ki] = 1;
  }
  // no side logged (none pushed or approached): the joints' impulses alone
  if (!joint_friction.empty()) {
    log_({t, "impact", "", "joint friction impulses: " + joint_friction});
  }
  changes += settle_closed(t, y, "after the impact");
  return changes;
}

int ContactSwitching::apply(double t, VecX& y, bool start) {
  std::fill(just_switched_.begin(), just_switched_.end(), char{0});
  const auto count = static_cast<int>(g_last_.size());
  std::vector<char> closed_before(g_last_.size(), 0);
  for (int k = 0; k < count; ++k)
    closed_before[static_cast<std::size_t>(k)] = system_.contact_closed(k);
  int changes = 0;
  if (start) {
    // at t0: a side touching while approaching is an impact, one touching
    // at rest a candidate for persistent contact
    system_.evaluate(t, y, Stage::kKinematics);
    std::vector<int> hitting, resting;
    for (int k = 0; k < count; ++k) {
      const double gap = system_.contact_gap(k);
      const double rate = system_.contact_gap_rate(k);
      if (gap < -kInside)
        throw SimulationError(
            t, fmt::format("contact '{}' starts inside its stop (gap {:.6g}); place the bodies "
                           "with a gap >= 0",
                           system_.contact_side_name(k), gap));
      if (gap > kInside) continue;
      (rate < -1e-12 ? hitting : resting).push_back(k);
    }
    if (!hitting.empty()) {
      hitting.insert(hitting.end(), resting.begin(), resting.end());
      changes += impact(t, y, hitting);
    } else if (!resting.empty()) {
      for (const int k : resting) system_.set_contact_closed(k, true);
      changes += settle_closed(t, y, "at the start");
    }
  } else {
    std::vector<int> hitting;
    bool opening = false;
    for (int k = 0; k < count; ++k) {
      const auto ki = static_cast<std::size_t>(k);
      if (!(g_last_[ki] > 0.0) || !crossed(k, value(k, t, y))) continue;
      if (system_.contact_closed(k)) {
        // the normal force would pull: open it; the others are decided together
        system_.set_contact_closed(k, false);
        offset_[ki] = lift_off_offset(k, t, y);
        g_last_[ki] = 1e-300;
        just_switched_[ki] = 1;
        log_({t, "contact", system_.contact_side_name(k),
              "opened: the normal force reached zero (lift-off)"});
        ++changes;
        opening = true;
      } else if (system_.contact_gap_rate(k) < 0.0) {
        hitting.push_back(k);
      } else {
        g_last_[ki] = 1e-300;  // grazing: it touches without approaching
        just_switched_[ki] = 1;
      }
    }
    if (!hitting.empty()) {
      changes += impact(t, y, hitting);
    } else if (opening) {
      changes += settle_closed(t, y, "with the others");
    }
  }
  system_.evaluate(t, y, Stage::kDynamics);
  for (int k = 0; k < count; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    if (!system_.contact_closed(k) || closed_before[ki] != 0) continue;
    offset_[ki] = 0.0;
    just_switched_[ki] = 1;
    log_({t, "contact", system_.contact_side_name(k),
          fmt::format("closed (persistent contact); normal force {:.12g}",
                      system_.contact_normal_force(k))});
    ++changes;
  }
  return changes;
}

void ContactSwitching::settle(double t, const VecX& y) {
  settle_sides(t, y, [this, t, &y](int k, double now, double next) {
    const double g = side_after(now, next);
    // a side just decided at this instant starts on the side it was set to
    if (just_switched_[static_cast<std::size_t>(k)] != 0 && !(g > 0.0)) return 1e-300;
    // an open side touching at this instant and approaching (a moment later
    // inside) stays armed: its crossing is located in the next step and is
    // an impact. Left on the far side, no crossing of it would ever be
    // located: a box settling on two diagonal corners after an accumulation
    // of impacts at the other two turned about that diagonal, one corner
    // sinking through the floor (0.048 m in 1.8 s, unchecked)
    if (!(g > 0.0) && !system_.contact_closed(k)) {
      system_.evaluate(t, y, Stage::kKinematics);
      if (system_.contact_gap(k) - offset_[static_cast<std::size_t>(k)] >= -kInside) return 1e-300;
    }
    return g;
  });
  std::fill(just_switched_.begin(), just_switched_.end(), char{0});
}

}  // namespace ictus::internal
