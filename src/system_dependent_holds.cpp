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
// The split is statically indeterminate: each dropped hold's self-stress
// s_k (multipliers e_r - sum_j c_j e_j with D^T s_k = 0,
// system_structure.cpp) can be added to the multipliers without changing
// the motion, and it moves the holds' forces and the normal forces of the
// joints and contacts whose rows it involves; every stuck element it moves
// counts. Over all the modes that share elements together (a box flat on a
// rough floor has five, its four corners' eight tangents tied in pairs
// across them, and no single mode raises its least margin) the amplitudes a
// with the largest least margin are taken:
//   max over a, s of s   subject to   mu_s,i N_i(a) -+ F_i(a) >= s,
//                                     contacts' N_j(a) >= s and >= 0,
// a linear program once a joint's |N| is bounded below by u . N, u the
// direction of N at the current split (exact there, and exact along a mode
// that keeps N's direction, as for a ladder whose joints press one way);
// solved again from its optimum until the least margin stops growing (at
// most three times). The holds then give way only where no split holds
// them all, and the least margin crosses zero for all of them at once (both
// ends of the ladder start to slip together; the box slips at mu_s m g).
// Modes with a model driver's row (its load stays the one solved), a
// ball's or another stick/slip element's hold, or a slipping element's
// normal force (its friction would change the motion) are left as solved,
// as are modes that no longer hold at this configuration (the check of
// press_dependent_contacts).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ictus/forces/joint_friction.h"
#include "system_impl.h"
#include "union_find.h"

namespace ictus {

namespace {

// Bounds of one program: modes and terms that share elements.
constexpr int kMaxModes = 48;
constexpr int kMaxTerms = 72;
constexpr int kMaxRounds = 3;
// Where a split holds every stuck element, the fraction of the largest
// least margin s* that each keeps in the split closest to the solved one.
constexpr double kClosestFraction = 0.25;
// A normal force at most this fraction of the terms' size is none: its
// element's margin is zero at best.
constexpr double kUnloaded = 1e-9;
// a group's largest program has kMaxModes + kMaxTerms unknowns: its basis is kept
static_assert(kMaxModes + kMaxTerms <= internal::LinearProgram::kMaxStart);

}  // namespace

void System::Impl::spread_dependent_holds() {
  DependentHolds& dh = dependent_holds;
  const std::size_t m = rows.size(), modes = self_stress.size();
  const std::size_t elements = friction_joints.size(), T = elements + contact_sides.size();
  if (dh.structure_version != structure_version || dh.row_count != m ||
      dh.mode_count != modes) {  // sized with the structure, not in the step loop
    dh.structure_version = structure_version;
    dh.beyond_bounds_warned = false;
    dh.row_count = m;
    dh.mode_count = modes;
    dh.carries.assign(m, 0);
    dh.term_of_row.assign(m, -1);
    dh.direction = VecX::Zero(static_cast<Eigen::Index>(m));
    dh.residual = VecX::Zero(6 * n);
    dh.usable.assign(modes, 0);
    dh.group.assign(modes, 0);
    dh.force_rate.assign(T * modes, 0.0);
    dh.normal_rate.assign(T * modes, Vec3::Zero());
    dh.force.assign(T, 0.0);
    dh.normal.assign(T, Vec3::Zero());
    dh.members.reserve(modes);
    dh.terms.reserve(T);
    const int most_modes = std::min(static_cast<int>(modes), kMaxModes);
    const int most_terms = std::min(static_cast<int>(T), kMaxTerms);
    dh.amplitude = VecX::Zero(most_modes);
    dh.best = VecX::Zero(most_modes);
    dh.unknowns = VecX::Zero(most_modes + most_terms);
    // the second phase's program is the larger; a start per mode and phase
    dh.starts.assign(elements > 0 ? 2 * modes : 0, {});
    if (modes > 0 && elements > 0)
      dh.program.reserve(most_modes + most_terms, 7 * most_terms + most_modes);
    for (internal::LinearProgram::Start& start : dh.starts) start.reserve(most_modes + most_terms);
    dh.probe_start.reserve(most_modes + most_terms);
  }
  std::fill(dh.carries.begin(), dh.carries.end(), char{0});
  if (modes == 0) return;
  // Where the solved split holds every stuck element within its cone, that
  // split stands: the margins are the switching functions, and they cross
  // zero only where the search below finds no split along a mode that
  // holds them all (it runs once the solved split leaves one beyond: the
  // least margin over a mode is never below that at amplitude zero). Most
  // solves end here (48 stuck tangents of boxes at rest ran 4 times slower
  // with the search at every solve).
  // a stuck element beyond its cone at the current multipliers; with
  // `pressed`, only one whose normal force is more than round-off
  auto any_beyond = [&](bool pressed) {
    for (const FrictionJoint& fj : friction_joints) {
      if (fj.ball || force_enabled[static_cast<std::size_t>(fj.force)] == 0 ||
          friction_element(fj).mode() != kStick)
        continue;
      const int hold = hold_row(fj.stick_slip);
      if (hold < 0) continue;
      const Vec3 normal = friction_normal(fj, multipliers);
      const double pressing = fj.contact_side >= 0 ? std::max(normal.x(), 0.0) : normal.norm();
      const double force = std::abs(multiplier(hold));
      if (force > friction_element(fj).static_lever() * pressing &&
          (!pressed || pressing > kUnloaded * (force + pressing)))
        return true;
    }
    return false;
  };
  if (!any_beyond(false)) return;
  spread_along_modes(false);
  // where that leaves an element with a normal force beyond its cone, and
  // the run has asked for it (System::search_contact_splits: a decision's
  // rounds that did not settle), the modes wholly among contact rows too
  // (the least norm of the tangents puts part of a box's push along a
  // rough wall on the wall's tangents, and only such modes move it to the
  // floor's)
  if (contact_split_search && any_beyond(true)) spread_along_modes(true);
}

void System::Impl::spread_along_modes(bool with_contact_modes) {
  DependentHolds& dh = dependent_holds;
  const std::size_t modes = self_stress.size();
  const std::size_t elements = friction_joints.size(), T = elements + contact_sides.size();
  auto stuck = [this](const FrictionJoint& fj) {
    return !fj.ball && force_enabled[static_cast<std::size_t>(fj.force)] != 0 &&
           friction_element(fj).mode() == kStick;
  };
  // the rows that are terms: the stuck elements' holds, the contacts' normals
  std::fill(dh.term_of_row.begin(), dh.term_of_row.end(), -1);
  for (std::size_t e = 0; e < elements; ++e) {
    if (!stuck(friction_joints[e])) continue;
    if (const int hold = hold_row(friction_joints[e].stick_slip); hold >= 0)
      dh.term_of_row[static_cast<std::size_t>(hold)] = static_cast<int>(e);
  }
  for (std::size_t k = 0; k < contact_sides.size(); ++k)
    if (const int row = contact_row(static_cast<int>(k));
        row >= 0 && dh.term_of_row[static_cast<std::size_t>(row)] < 0)
      dh.term_of_row[static_cast<std::size_t>(row)] = static_cast<int>(elements + k);
  // the stuck element whose hold is `row`, or nullptr
  auto stuck_at = [&](int row) -> const FrictionJoint* {
    const int term = dh.term_of_row[static_cast<std::size_t>(row)];
    return term >= 0 && static_cast<std::size_t>(term) < elements
               ? &friction_joints[static_cast<std::size_t>(term)]
               : nullptr;
  };
  auto contact_side_of = [&](int row) {
    const int term = dh.term_of_row[static_cast<std::size_t>(row)];
    return static_cast<std::size_t>(term) >= elements && term >= 0
               ? term - static_cast<int>(elements)
               : -1;
  };
  auto rate_of = [&](std::size_t term, std::size_t mode) -> std::pair<double&, Vec3&> {
    return {dh.force_rate[term + T * mode], dh.normal_rate[term + T * mode]};
  };

  // 1. the usable modes and the rates of the terms along them
  for (std::size_t k = 0; k < modes; ++k) {
    const auto& mode = self_stress[k];
    dh.usable[k] = 0;
    dh.group[k] = static_cast<int>(k);
    for (std::size_t ti = 0; ti < T; ++ti) {
      auto [f, nr] = rate_of(ti, k);
      f = 0.0;
      nr.setZero();
    }
    // the mode's rows: stuck holds, contact normals and joints' rows only
    bool usable = mode.size() <= 64;
    int holds = 0;
    bool contact_rows_only = true;  // contact normals and stuck contact tangents' holds
    for (const auto& [row, coefficient] : mode) {
      if (!usable) break;
      const Instance& inst =
          instances[static_cast<std::size_t>(row_info[static_cast<std::size_t>(row)].instance)];
      if (const FrictionJoint* fj = stuck_at(row); fj != nullptr) {
        rate_of(static_cast<std::size_t>(fj - friction_joints.data()), k).first = coefficient;
        ++holds;
        contact_rows_only = contact_rows_only && fj->contact_side >= 0;
      } else if (const int side = contact_side_of(row); side >= 0) {
        rate_of(elements + static_cast<std::size_t>(side), k).second.x() =
            contact_sides[static_cast<std::size_t>(side)].sign * coefficient;
        // a joint limit's side is not a point of contact between shapes
        contact_rows_only =
            contact_rows_only && contact_sides[static_cast<std::size_t>(side)].contact < 0;
      } else {
        contact_rows_only = false;
        if (inst.driver >= 0) usable = false;  // a model driver's load, or another element's hold
      }
    }
    // a mode whose dropped row is a stuck hold and that joins it to
    // another, or one wholly among contact rows (a box flush against a
    // rough wall: the wall's normals traded for the floor's, a floor
    // tangent's hold for a wall normal)
    const bool joins_holds = stuck_at(mode.front().first) != nullptr && holds >= 2;
    if (!usable || !(joins_holds || (with_contact_modes && contact_rows_only))) continue;
    // still a self-stress at this configuration
    dh.residual.setZero();
    double size = 0.0;
    for (const auto& [row, coefficient] : mode) {
      const ConstraintRow& r = rows[static_cast<std::size_t>(row)];
      D.add_transpose(row, coefficient, [&](BodyIndex b) { return dh.residual.segment<6>(6 * b); });
      size += std::abs(coefficient) * (r.J_base.norm() + r.J_follower.norm());
    }
    if (dh.residual.norm() > 1e-8 * size) continue;
    // the normal forces of the friction elements along the mode; a
    // slipping element's (or a ball's) may not change
    for (const auto& [row, coefficient] : mode) dh.direction(row) = coefficient;
    for (std::size_t e = 0; e < elements && usable; ++e) {
      const FrictionJoint& fj = friction_joints[e];
      if (force_enabled[static_cast<std::size_t>(fj.force)] == 0) continue;
      const Vec3 rate = friction_normal(fj, dh.direction);
      if (!(rate.norm() > 1e-12 * size)) continue;
      if (!stuck(fj)) usable = false;
      rate_of(e, k).second = rate;
    }
    for (const auto& [row, coefficient] : mode) dh.direction(row) = 0.0;
    dh.usable[k] = usable ? 1 : 0;
  }

  // 2. modes that share a term are searched together
  for (std::size_t ti = 0; ti < T; ++ti) {
    int first = -1;
    for (std::size_t k = 0; k < modes; ++k) {
      if (dh.usable[k] == 0) continue;
      auto [f, nr] = rate_of(ti, k);
      if (f == 0.0 && nr.isZero(0.0)) continue;
      if (first < 0)
        first = static_cast<int>(k);
      else
        internal::union_find_join(dh.group, static_cast<int>(k), first);
    }
  }

  // 3. each group's program
  internal::LinearProgram& lp = dh.program;
  for (std::size_t root = 0; root < modes; ++root) {
    if (dh.usable[root] == 0 ||
        internal::union_find_root(dh.group, static_cast<int>(root)) != static_cast<int>(root))
      continue;
    dh.members.clear();
    for (std::size_t k = 0; k < modes; ++k)
      if (dh.usable[k] != 0 &&
          internal::union_find_root(dh.group, static_cast<int>(k)) == static_cast<int>(root))
        dh.members.push_back(static_cast<int>(k));
    dh.terms.clear();
    for (std::size_t ti = 0; ti < T; ++ti)
      for (const int k : dh.members) {
        auto [f, nr] = rate_of(ti, static_cast<std::size_t>(k));
        if (f == 0.0 && nr.isZero(0.0)) continue;
        dh.terms.push_back(static_cast<int>(ti));
        break;
      }
    const int p = static_cast<int>(dh.members.size());
    if (p > kMaxModes || static_cast<int>(dh.terms.size()) > kMaxTerms) {
      if (!dh.beyond_bounds_warned) {  // once per structure: not in the step loop
        dh.beyond_bounds_warned = true;
        warn(fmt::format(
            "{} stuck friction holds and contact normal forces share {} self-stress modes, "
            "beyond the {} terms and {} modes whose split ictus searches: their forces are "
            "left as solved, and a stuck one may exceed mu_s N and be let go early",
            dh.terms.size(), p, kMaxTerms, kMaxModes));
      }
      continue;
    }
    // a joint's |N| is bounded below by a line: its program is solved again
    const bool linearised = std::any_of(dh.terms.begin(), dh.terms.end(), [&](int ti) {
      const auto e = static_cast<std::size_t>(ti);
      return e < elements && friction_joints[e].contact_side < 0;
    });
    const int element_terms =
        static_cast<int>(std::count_if(dh.terms.begin(), dh.terms.end(), [&](int ti) {
          return static_cast<std::size_t>(ti) < elements;
        }));
    // the size of the terms' forces at the current multipliers (each round's)
    double reach = 0.0;
    // With the contact modes, a term with a normal force of (nearly) zero
    // takes no part in the least margin: its element's margin is zero at
    // best. It is only kept from getting worse or, closest, taken within
    // its cone. A contact that pulls does take part.
    auto in_least = [&](std::size_t ti) {
      if (!with_contact_modes) return true;
      const Vec3& N = dh.normal[ti];
      if (ti >= elements) return std::abs(N.x()) > kUnloaded * reach;
      return (friction_joints[ti].contact_side >= 0 ? N.x() : N.norm()) > kUnloaded * reach;
    };
    // the least margin over the group's terms at amplitudes a (dh.amplitude)
    auto term_margin = [&](int term, bool displaced) {
      const auto ti = static_cast<std::size_t>(term);
      double F = dh.force[ti];
      Vec3 N = dh.normal[ti];
      if (displaced)
        for (int i = 0; i < p; ++i) {
          auto [f, nr] =
              rate_of(ti, static_cast<std::size_t>(dh.members[static_cast<std::size_t>(i)]));
          F += dh.amplitude(i) * f;
          N += dh.amplitude(i) * nr;
        }
      if (ti >= elements) return N.x();  // a contact's normal force: it may not pull
      const FrictionJoint& fj = friction_joints[ti];
      const double pressing = fj.contact_side >= 0 ? std::max(N.x(), 0.0) : N.norm();
      return friction_element(fj).static_lever() * pressing - std::abs(F);
    };
    auto least = [&](bool displaced) {
      double h = std::numeric_limits<double>::infinity();
      for (const int ti : dh.terms)
        if (in_least(static_cast<std::size_t>(ti))) h = std::min(h, term_margin(ti, displaced));
      return h;
    };
    bool spread = false;
    for (int round = 0; round < kMaxRounds; ++round) {
      // the terms at the current multipliers
      reach = 0.0;
      for (const int term : dh.terms) {
        const auto ti = static_cast<std::size_t>(term);
        if (ti < elements) {
          const FrictionJoint& fj = friction_joints[ti];
          const int hold = hold_row(fj.stick_slip);
          dh.force[ti] = hold < 0 ? 0.0 : multiplier(hold);
          dh.normal[ti] = friction_normal(fj, multipliers);
          reach += std::abs(dh.force[ti]) +
                   std::max(friction_element(fj).static_lever(), 1.0) * dh.normal[ti].norm();
        } else {
          const auto side = ti - elements;
          const int row = contact_row(static_cast<int>(side));
          dh.force[ti] = 0.0;
          dh.normal[ti] = Vec3(row < 0 ? 0.0 : contact_sides[side].sign * multiplier(row), 0, 0);
          reach += std::abs(dh.normal[ti].x());
        }
      }
      const double at_zero = least(false);
      // held by the solved split (in a later round: as good as it gets)
      if (round == 0 && at_zero >= 0.0) break;
      if (!(reach > 0.0)) break;
      // unknowns x = a + R (each amplitude within +-R_i, R_i = 4 reach over
      // the mode's steepest force rate) and each margin unknown less s_low >= 0
      const double s_low = at_zero - std::max(std::abs(at_zero), 1e-12 * reach);
      for (int i = 0; i < p; ++i) {
        double steepest = 0.0;
        for (const int ti : dh.terms)
          steepest = std::max(
              steepest,
              std::abs(rate_of(static_cast<std::size_t>(ti),
                               static_cast<std::size_t>(dh.members[static_cast<std::size_t>(i)]))
                           .first));
        dh.amplitude(i) = steepest > 0.0 ? 4.0 * reach / steepest : reach;  // R_i
      }
      // The program in two phases: the largest least margin s* first (one
      // margin unknown s for every term), then
      // - where s* > 0 (a split holds them all), the split closest to the
      //   solved one, the least sum of the terms' changes |dF|, |dN| (one
      //   unknown each), with every element's margin at least
      //   kClosestFraction s* and no contact's normal force below that
      //   unless it is already: the load moves off an element beyond its
      //   cone to those that can take it, and no more (the largest sum of
      //   the margins pre-stressed a box against a rough wall, its floor
      //   tangents pushing it into the wall to raise the wall's normal
      //   force: 4.13 N under a push of 2 N). The margins stay positive and
      //   reach zero with s*;
      // - otherwise, with every margin at least s*, the largest sum of the
      //   elements' margins (one unknown each): of the splits with the least
      //   margin s* the one furthest within the cones, so that only the
      //   elements that must give way reach zero with s* (a box pushed along
      //   x: its x tangents, not the y ones).
      MatX& A = lp.A();
      VecX& b = lp.b();
      VecX& c = lp.c();
      auto mode_of = [&](int i) {
        return static_cast<std::size_t>(dh.members[static_cast<std::size_t>(i)]);
      };
      enum Phase { kLeast, kWidest, kClosest };
      auto program = [&](Phase phase, double s_star) {
        const bool second = phase != kLeast;
        internal::LinearProgram::Start* start = &dh.starts[2 * root + (second ? 1 : 0)];
        if (probing) {  // sized alike: no allocation
          dh.probe_start = *start;
          start = &dh.probe_start;
        }
        const int term_count = static_cast<int>(dh.terms.size());
        const int variables = p + (phase == kLeast    ? 1
                                   : phase == kWidest ? element_terms
                                                      : term_count);
        int rowcount = 0;
        // g0 + sum_i a_i amplitude_i - (the unknown `margin`, or none) >= 0
        // as a row of A x <= b
        auto add_row = [&](double g0, auto&& slope, int margin) {
          A.row(rowcount).head(variables).setZero();
          double shifted = g0;
          for (int i = 0; i < p; ++i) {
            const double a = slope(i);
            A(rowcount, i) = -a;
            shifted -= a * dh.amplitude(i);
          }
          if (margin >= 0) {
            A(rowcount, margin) = 1.0;
            shifted -= s_low;
          }
          b(rowcount) = shifted;
          ++rowcount;
        };
        // the second phase's least margin
        const double floor =
            (phase == kClosest ? kClosestFraction * s_star : s_star) - 1e-12 * reach;
        int element = 0;
        for (int j = 0; j < term_count; ++j) {
          const auto ti = static_cast<std::size_t>(dh.terms[static_cast<std::size_t>(j)]);
          if (phase == kClosest) {  // |change of the term's force| <= its unknown
            for (const double side : {1.0, -1.0}) {
              A.row(rowcount).head(variables).setZero();
              double shifted = 0.0;
              for (int i = 0; i < p; ++i) {
                auto [f, nr] = rate_of(ti, mode_of(i));
                const double rate = side * (ti >= elements ? nr.x() : f);
                A(rowcount, i) = rate;
                shifted += rate * dh.amplitude(i);
              }
              A(rowcount, p + j) = -1.0;
              b(rowcount) = shifted;
              ++rowcount;
            }
          }
          if (ti >= elements) {
            const double N0 = dh.normal[ti].x();
            auto slope = [&](int i) { return rate_of(ti, mode_of(i)).second.x(); };
            if (phase == kClosest)  // N >= the floor if it pulls, else unless below it
              add_row(N0 - (N0 < 0.0 ? floor : std::min(N0, floor)), slope, -1);
            else if (in_least(ti) && second)
              add_row(N0 - floor, slope, -1);  // N >= s*
            else if (in_least(ti))
              add_row(N0, slope, p);  // N >= s
            add_row(N0, slope, -1);   // N >= 0
            continue;
          }
          const FrictionJoint& fj = friction_joints[ti];
          const double lever = friction_element(fj).static_lever();
          // |N| >= u . N, u along N at the current split (a contact's N is signed)
          Vec3 u = Vec3::UnitX();
          if (fj.contact_side < 0) {
            const double size = dh.normal[ti].norm();
            u = size > 0.0 ? Vec3(dh.normal[ti] / size) : Vec3::Zero();
          }
          // an element without a normal force takes no part in the least
          // margin (it is zero at best): it is only kept from getting worse
          // or, closest, taken within its cone
          const bool pressed = in_least(ti);
          const double least_now = lever * u.dot(dh.normal[ti]) - std::abs(dh.force[ti]);
          const int margin = phase == kClosest || (phase == kLeast && !pressed) ? -1
                             : second                                           ? p + element
                                                                                : p;
          for (const double side : {1.0, -1.0}) {
            const double g0 = lever * u.dot(dh.normal[ti]) + side * dh.force[ti];
            // the margin's bound where it has no unknown: closest, one beyond
            // its cone is taken to the floor (within it, unloaded), one
            // within it kept within (at the floor, or where it is below that)
            double bound = 0.0;
            if (phase == kClosest)
              bound = least_now >= 0.0 ? std::min(g0, floor) : pressed ? floor : 0.0;
            else if (margin < 0)
              bound = std::min(g0, 0.0);
            add_row(
                g0 - bound,
                [&](int i) {
                  auto [f, nr] = rate_of(ti, mode_of(i));
                  return lever * u.dot(nr) + side * f;
                },
                margin);
          }
          if (phase == kWidest) {  // this margin >= s* (unloaded: where it is below that)
            A.row(rowcount).head(variables).setZero();
            A(rowcount, margin) = -1.0;
            b(rowcount) = s_low - (pressed ? floor : std::min(floor, least_now));
            ++rowcount;
          }
          ++element;
        }
        // each surface's resultant normal force as solved: the split moves
        // load between the points of a surface, never a pre-stress between
        // surfaces (a floor tangent pushing a box into a wall to raise the
        // wall's friction: capacity the load never gave)
        for (int j = 0; j < term_count && with_contact_modes; ++j) {
          const auto ti = static_cast<std::size_t>(dh.terms[static_cast<std::size_t>(j)]);
          if (ti < elements) continue;
          const int surface = contact_sides[ti - elements].surface;
          bool first = surface >= 0;
          for (int e = 0; e < j && first; ++e) {
            const auto te = static_cast<std::size_t>(dh.terms[static_cast<std::size_t>(e)]);
            first = te < elements || contact_sides[te - elements].surface != surface;
          }
          if (!first) continue;
          for (const double side : {1.0, -1.0}) {
            A.row(rowcount).head(variables).setZero();
            double shifted = 1e-12 * reach;
            for (int i = 0; i < p; ++i) {
              double rate = 0.0;
              for (int e = j; e < term_count; ++e) {
                const auto te = static_cast<std::size_t>(dh.terms[static_cast<std::size_t>(e)]);
                if (te >= elements && contact_sides[te - elements].surface == surface)
                  rate += rate_of(te, mode_of(i)).second.x();
              }
              A(rowcount, i) = side * rate;
              shifted += side * rate * dh.amplitude(i);
            }
            b(rowcount) = shifted;
            ++rowcount;
          }
        }
        for (int i = 0; i < p; ++i) {  // amplitude_i <= R_i
          A.row(rowcount).head(variables).setZero();
          A(rowcount, i) = 1.0;
          b(rowcount) = 2.0 * dh.amplitude(i);
          ++rowcount;
        }
        c.head(variables).setZero();
        c.segment(p, variables - p).setConstant(phase == kClosest ? -1.0 : 1.0);
        return lp.solve(variables, rowcount, dh.unknowns, start);
      };
      if (!program(kLeast, 0.0)) break;
      const double s_star = dh.unknowns(p) + s_low;
      dh.best.head(p) = dh.unknowns.head(p);
      if (program(with_contact_modes && s_star > 0.0 ? kClosest : kWidest, s_star))
        dh.best.head(p) = dh.unknowns.head(p);
      for (int i = 0; i < p; ++i) dh.amplitude(i) = dh.best(i) - dh.amplitude(i);
      // applied where the exact least margin grows and no contact pulls
      bool pulls = false;
      for (const int ti : dh.terms)
        if (static_cast<std::size_t>(ti) >= elements)
          pulls = pulls || term_margin(ti, true) < -1e-12 * reach;
      const double gained = least(true) - at_zero;
      if (pulls || !(gained > 1e-14 * reach)) break;
      if (!spread) {  // the group's dropped holds carry their shares from now on
        for (const int k : dh.members) {
          const int front = self_stress[static_cast<std::size_t>(k)].front().first;
          if (!row_carries(front)) multipliers(front) = 0.0;
          dh.carries[static_cast<std::size_t>(front)] = 1;
        }
      }
      for (int i = 0; i < p; ++i)
        for (const auto& [row, coefficient] :
             self_stress[static_cast<std::size_t>(dh.members[static_cast<std::size_t>(i)])])
          multipliers(row) += dh.amplitude(i) * coefficient;
      spread = true;
      // a contact's N is linear in the amplitudes: one program is exact
      if (!linearised || gained <= 1e-9 * reach) break;
    }
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
