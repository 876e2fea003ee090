// Stuck holds dependent among themselves (docs/theory/friction.md, "Stuck
// holds that other rows make dependent"). A ladder at rest against a rough
// wall on a rough floor has one degree of freedom and two stuck holds: the
// structure keeps one and drops the other (constraint_rank.h), and the
// solve puts the whole load on the kept hold, beyond its cone at angles
// where another split lies within both. The classical ladder stays at rest
// up to tan(theta) = 2 mu1 / (1 - mu1 mu2) from the wall; at 0.55 rad
// (mu1 = 0.3, mu2 = 0.2, limit 0.568 rad) the foot alone would need
// 30.07 N against its 29.43 N and was let go.
//
// The split is statically indeterminate: the dropped hold's self-stress
// s (multipliers e_r - sum_k c_k e_k with D^T s = 0, system_structure.cpp)
// can be added to the multipliers without changing the motion, and it moves
// the holds' forces and the normal forces of the joints and contacts whose
// rows it involves; every stuck element it moves counts. Along it the
// amplitude with the largest least margin is taken:
//   max over a of min_i (mu_s,i |N_i(a)| - |F_i(a)|),  contacts' N >= 0,
// on one line, by sampling and a golden-section refinement (the margins
// are concave where the normal forces keep their direction, as for a ladder
// whose joints press one way). The holds then give way only where no split
// holds them all, and the least margin crosses zero for all of them at once
// (both ends of the ladder start to slip together). Modes with a model
// driver's row (its load stays the one solved), a ball's or another stick/
// slip element's hold, or a slipping element's normal force (its friction
// would change the motion) are left as solved, as are modes that no longer
// hold at this configuration (the check of press_dependent_contacts).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ictus/forces/joint_friction.h"
#include "system_impl.h"

namespace ictus {

namespace {

// One term of the least margin along a mode: a stuck element's
// mu_s |N| - |F| (N a joint's transverse reaction, or a contact's signed
// normal force), or a contact's normal force alone (it may not pull).
struct MarginTerm {
  Vec3 normal = Vec3::Zero(), normal_rate = Vec3::Zero();  // N(a) = normal + a normal_rate
  double force = 0.0, force_rate = 0.0;                    // F(a) = force + a force_rate
  double lever = 0.0;                                      // mu_s (times the pin radius)
  bool contact = false;           // N is normal.x(), pressing while positive
  bool unilateral = false;        // the term is N itself (a contact without friction here)
  const void* element = nullptr;  // the stuck element (System::Impl::FrictionJoint)

  double at(double a) const {
    const Vec3 n = normal + a * normal_rate;
    if (unilateral) return n.x();
    const double pressing = contact ? std::max(n.x(), 0.0) : n.norm();
    return lever * pressing - std::abs(force + a * force_rate);
  }
};

constexpr std::size_t kMaxTerms = 16;

}  // namespace

void System::Impl::spread_dependent_holds() {
  DependentHolds& dh = dependent_holds;
  const std::size_t m = rows.size();
  if (dh.carries.size() != m) {  // sized with the structure, not in the step loop
    dh.carries.assign(m, 0);
    dh.direction = VecX::Zero(static_cast<Eigen::Index>(m));
    dh.residual = VecX::Zero(6 * n);
  }
  std::fill(dh.carries.begin(), dh.carries.end(), char{0});
  if (self_stress.empty()) return;
  // Where the solved split holds every stuck element within its cone, that
  // split stands: the margins are the switching functions, and they cross
  // zero only where the search below finds no split along a mode that
  // holds them all (it runs once the solved split leaves one beyond: the
  // least margin over a mode is never below that at amplitude zero). Most
  // solves end here (48 stuck tangents of boxes at rest ran 4 times slower
  // with the search at every solve).
  bool beyond = false;
  for (const FrictionJoint& fj : friction_joints) {
    if (fj.ball || force_enabled[static_cast<std::size_t>(fj.force)] == 0 ||
        friction_element(fj).mode() != kStick)
      continue;
    const int hold = hold_row(fj.stick_slip);
    if (hold < 0) continue;
    const Vec3 normal = friction_normal(fj, multipliers);
    const double pressing = fj.contact_side >= 0 ? std::max(normal.x(), 0.0) : normal.norm();
    if (std::abs(multiplier(hold)) > friction_element(fj).static_lever() * pressing) {
      beyond = true;
      break;
    }
  }
  if (!beyond) return;
  // the stuck element whose hold is `row`, or nullptr
  auto stuck_at = [this](int row) -> const FrictionJoint* {
    for (const FrictionJoint& fj : friction_joints)
      if (!fj.ball && force_enabled[static_cast<std::size_t>(fj.force)] != 0 &&
          friction_element(fj).mode() == kStick && hold_row(fj.stick_slip) == row)
        return &fj;
    return nullptr;
  };
  auto contact_side_of = [this](int row) {
    for (std::size_t k = 0; k < contact_sides.size(); ++k)
      if (contact_row(static_cast<int>(k)) == row) return static_cast<int>(k);
    return -1;
  };
  std::array<MarginTerm, kMaxTerms> terms;
  for (const auto& mode : self_stress) {
    if (stuck_at(mode.front().first) == nullptr) continue;  // the dropped row a stuck hold
    // the mode's rows: stuck holds, contact normals and joints' rows only
    std::size_t count = 0, holds = 0;
    bool usable = mode.size() <= 64;
    for (const auto& [row, coefficient] : mode) {
      if (!usable) break;
      const Instance& inst =
          instances[static_cast<std::size_t>(row_info[static_cast<std::size_t>(row)].instance)];
      if (const FrictionJoint* fj = stuck_at(row); fj != nullptr) {
        if (count == kMaxTerms) {
          usable = false;
          break;
        }
        MarginTerm& term = terms[count++];
        term = MarginTerm{};
        term.force = multiplier(row);  // a dropped hold's is zero
        term.force_rate = coefficient;
        term.element = fj;
        term.lever = friction_element(*fj).static_lever();
        term.contact = fj->contact_side >= 0;
        ++holds;
      } else if (const int side = contact_side_of(row); side >= 0) {
        if (count == kMaxTerms) {
          usable = false;
          break;
        }
        const double sign = contact_sides[static_cast<std::size_t>(side)].sign;
        MarginTerm& term = terms[count++];
        term = MarginTerm{};
        term.unilateral = true;
        term.normal.x() = sign * multiplier(row);
        term.normal_rate.x() = sign * coefficient;
      } else if (inst.driver >= 0) {
        usable = false;  // a model driver's load, or another element's hold
      }
    }
    if (!usable || holds < 2) continue;
    // still a self-stress at this configuration
    dh.residual.setZero();
    double size = 0.0;
    for (const auto& [row, coefficient] : mode) {
      const ConstraintRow& r = rows[static_cast<std::size_t>(row)];
      D.add_transpose(row, coefficient, [&](BodyIndex b) { return dh.residual.segment<6>(6 * b); });
      size += std::abs(coefficient) * (r.J_base.norm() + r.J_follower.norm());
    }
    if (dh.residual.norm() > 1e-8 * size) continue;
    for (const auto& [row, coefficient] : mode) dh.direction(row) = coefficient;
    // the normal forces of the stuck elements along the mode, those whose
    // hold is not in it too (a pin whose joint rows are); a slipping
    // element's may not change
    bool moved = false;
    for (const FrictionJoint& fj : friction_joints) {
      if (force_enabled[static_cast<std::size_t>(fj.force)] == 0) continue;
      const Vec3 rate = friction_normal(fj, dh.direction);
      const bool changes = rate.norm() > 1e-12 * size;
      if (friction_element(fj).mode() != kStick || fj.ball) {
        moved = moved || changes;
        continue;
      }
      bool listed = false;
      for (std::size_t i = 0; i < count; ++i)
        if (terms[i].element == &fj) {
          terms[i].normal = friction_normal(fj, multipliers);
          terms[i].normal_rate = rate;
          listed = true;
        }
      if (listed || !changes) continue;
      if (count == kMaxTerms) {
        moved = true;
        break;
      }
      MarginTerm& term = terms[count++];
      term = MarginTerm{};
      const int hold = hold_row(fj.stick_slip);
      term.force = hold < 0 ? 0.0 : multiplier(hold);
      term.lever = friction_element(fj).static_lever();
      term.contact = fj.contact_side >= 0;
      term.element = &fj;
      term.normal = friction_normal(fj, multipliers);
      term.normal_rate = rate;
    }
    for (const auto& [row, coefficient] : mode) dh.direction(row) = 0.0;
    if (moved) continue;

    // the least margin along the line, largest where
    auto least = [&](double a) {
      double h = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < count; ++i) h = std::min(h, terms[i].at(a));
      return h;
    };
    double reach = 0.0, steepest = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
      reach += std::abs(terms[i].force) + std::max(terms[i].lever, 1.0) * terms[i].normal.norm();
      steepest = std::max(steepest, std::abs(terms[i].force_rate));
    }
    if (!(reach > 0.0) || !(steepest > 0.0)) continue;
    const double span = 4.0 * reach / steepest;
    constexpr int kSamples = 64;
    double best = 0.0, best_value = least(0.0);
    const double at_zero = best_value;
    for (int k = 0; k <= kSamples; ++k) {
      const double a = -span + 2.0 * span * k / kSamples;
      if (const double v = least(a); v > best_value) {
        best = a;
        best_value = v;
      }
    }
    // golden section about the best sample
    const double step = 2.0 * span / kSamples;
    double lo = best - step, hi = best + step;
    const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
    double x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
    double f1 = least(x1), f2 = least(x2);
    for (int k = 0; k < 80; ++k) {
      if (f1 < f2) {
        lo = x1;
        x1 = x2;
        f1 = f2;
        x2 = lo + ratio * (hi - lo);
        f2 = least(x2);
      } else {
        hi = x2;
        x2 = x1;
        f2 = f1;
        x1 = hi - ratio * (hi - lo);
        f1 = least(x1);
      }
    }
    const double refined = 0.5 * (lo + hi);
    if (least(refined) > best_value) best = refined;
    if (!(least(best) > at_zero)) continue;
    for (const auto& [row, coefficient] : mode)
      multipliers(row) = multiplier(row) + best * coefficient;
    dh.carries[static_cast<std::size_t>(mode.front().first)] = 1;
  }
}

bool System::Impl::held_with_other_holds(int row) const {
  for (const auto& mode : self_stress) {
    if (mode.front().first != row) continue;
    for (std::size_t i = 1; i < mode.size(); ++i)
      for (std::size_t k = 0; k < hold_driver.size(); ++k)
        if (hold_row(static_cast<int>(k)) == mode[i].first) return true;
  }
  return false;
}

}  // namespace ictus
