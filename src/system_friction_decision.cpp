// Several frictional elements (joints, contact tangents, seed 003's dry
// friction with its limit F_max fixed at the instant) reaching a zero slip
// rate at one instant, decided together (docs/theory/friction.md, "Several at
// zero rate"; Pfeiffer & Glocker 1996, ch. 7: the stick/slip transitions of
// several contacts are one set-valued problem, not k separate ones).
//
// At the instant every element of the set slips (its hold row open), so the
// last solve holds, per element j, the response of the whole mechanism to a
// unit friction force F_j. Without the set's own forces, element i has
//   q_i'' = a0_i + sum_j C_ij F_j,   y_i = y0_i + sum_j T_ij F_j,
// y_i its normal force on its line (a joint's |N| = |y_i|; a contact's signed
// N = y_i; a joint whose reaction leaves its line has N = |f_i(F)|, solved
// by solve_off_line_slips below). A combination gives each element a mode: stuck, q_i'' = 0; or
// slipping in direction s_i, F_i = -s_i mu_i sigma_i y_i with the side
// sigma_i = sgn(y_i) enumerated: +-1 for a joint, and for a contact 1 (it
// presses, y_i >= 0) or 0 (it would pull: N = 0, no friction, as the single
// decision clamps it). Each is one linear system in F; it
// is consistent when every stuck force lies within mu_s |N|, every slipping
// coordinate accelerates the way it slips (s_i q_i'' > 0) and every side
// agrees. Exact enumeration of the 3^k combinations (k <= 12), no iteration,
// level by level from the most stuck elements down. Static friction takes
// precedence, as for one element: of the consistent combinations the one
// with the most stuck elements is taken (with mu_s > mu an element that can
// stick can often also start to slip); two different ones with that count
// are reported as Painleve, as is none.
//
// The joints and contact tangents of the set's group of bodies that slip on
// through the instant (not in the set) are members with their one slip
// direction: F_R = Lambda (y0_R + T_R. F), Lambda = diag(-s mu sigma), rows of
// every combination (their sides enumerated, their accelerations not
// tested), so their forces respond to the set's (friction.md, "The elements
// that slip on").
//
// More than kMaxFrictionEnumerated elements, or a decision that would need
// more than kTrialBudget solves (few of many elements stuck), are decided
// through a linear complementarity problem instead (coupled_friction_lcp
// below), whose combination is then put to the same exact test.
//
// A ball (spherical joint friction) is one element with three unknowns, its
// moment M about the world axes; its rows are its relative angular
// acceleration a and its whole reaction f. Stuck: a = 0, |M| <= mu_s r |f|.
// Slipping (one option, not two directions): the slip starts along a and
// the moment opposes it, a + kappa M = 0 with kappa > 0, linear for a given
// kappa, and |M| = mu r |f| fixes kappa: its roots are bracketed on a grid
// of ln kappa and refined, each put to the exact test (friction.md,
// "Several at zero rate, with a ball").
//
// Stuck elements whose hold rows are dependent (two guides of one degree of
// freedom) leave their forces statically indeterminate: the system is
// singular, and the combination is consistent when some forces within the
// cones satisfy it. It is searched at the minimum-norm point, at the least
// norm of the forces relative to their limits, where one stuck force is at
// its limit, and then by a linear program over all the solutions (the
// largest least margin; widest_stuck_split below).
#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "contact/lcp.h"
#include "contact/linear_program.h"
#include "ictus/forces/reaction_friction.h"
#include "root_finding.h"
#include "spatial_slip.h"
#include "stabilised_target.h"
#include "system_impl.h"

namespace ictus {

namespace {

// linear systems one enumeration may solve: a level far down (few of many
// elements stuck) has up to C(k, s) 4^(k - s) of them
constexpr long kTrialBudget = 200000;

// Where the exact responses admit no combination, or several, a response
// along a direction of the set's below this fraction of the largest (scaled
// by the free ones) is taken for none (decide_friction_together).
constexpr double kNearlyLocked = 1e-6;

// The stabilisation's pull along such directions that is still taken for
// the correction of a drift: beyond this fraction of what the largest
// force gives the set free (1e-3, where the flat landing's is 5e-6), the
// drift is gross and no decision is taken at it.
constexpr double kGrossDrift = 1e-3;

// The body accelerations that the active rows' Baumgarte terms give alone
// (no loads, no gamma): the share of the last solve's accelerations that
// pulls the rows' drift back (stabilised_target.h; seed 000, eq. 7).
// Allocates (decisions only).
std::vector<Vec6> stabilisation_accelerations(System::Impl& s) {
  const auto m = static_cast<Eigen::Index>(s.rows.size());
  VecX rhs = VecX::Zero(m), mult(m);
  for (Eigen::Index r = 0; r < m; ++r) {
    if (s.dropped[static_cast<std::size_t>(r)] != 0) continue;
    const ConstraintRow& row = s.rows[static_cast<std::size_t>(r)];
    rhs(r) = internal::stabilised_target(row, s.row_rate(static_cast<int>(r)), s.stabilisation) -
             row.gamma;
  }
  std::vector<Vec6> acc(static_cast<std::size_t>(s.n), Vec6::Zero());
  if (s.inertia_ill_conditioned) {
    if (!s.kkt.solve(
            s.D, [](BodyIndex) { return Vec6::Zero().eval(); }, rhs, s.dropped, acc, mult))
      throw SimulationError(s.t, System::Impl::kMassesOutOfRange);
    return acc;
  }
  // S p = rhs without loads (system_dynamics.cpp), then u' = M^-1 D^T p;
  // `solver` holds S only where the last solve did not go through the tree
  mult = rhs;
  if (!s.tree_used)
    s.solver.solve_in_place(mult);
  else if (!s.solve_schur(mult))
    throw SimulationError(s.t, System::Impl::kMassesOutOfRange);
  for (Eigen::Index r = 0; r < m; ++r)
    if (s.dropped[static_cast<std::size_t>(r)] == 0)
      s.D.add_inverse_mass_transpose(
          static_cast<int>(r), mult(r), s.inverse_mass,
          [&acc](BodyIndex b) -> Vec6& { return acc[static_cast<std::size_t>(b)]; });
  return acc;
}

// An element with a limit of its own (seed 003's dry friction, F_max fixed
// at the instant): what the slip solve keeps for a frictional joint, taken
// here from the structure of the instant (every element of the set slips,
// its hold row open): the hold row's geometry, the coordinate's acceleration
// and the response of the mechanism to a unit friction force along it.
System::Impl::FrictionJoint own_limit_member(System::Impl& s, int k) {
  System::Impl::FrictionJoint m;
  m.stick_slip = k;
  m.force = s.stick_slip_forces[static_cast<std::size_t>(k)];
  const System::Impl::DriverRuntime& hold =
      s.drivers[static_cast<std::size_t>(s.hold_driver[static_cast<std::size_t>(k)])];
  const System::Impl::Instance& inst = s.instances[static_cast<std::size_t>(hold.instance)];
  s.stick_slip_bodies(k, m.base, m.follower);
  const ConstraintContext cc{s.kinematics(m.base), s.kinematics(m.follower), s.t, MotionSample{}};
  inst.constraint->evaluate(cc, std::span<ConstraintRow>(&m.rate_row, 1));
  m.unit_acc.assign(static_cast<std::size_t>(s.n), Vec6::Zero());
  s.unit_response(m, nullptr, m.unit_acc, m.unit_mult);
  // q'' = D_q u' - gamma_q at the solution, which includes its slip force
  m.acc = -m.rate_row.gamma;
  if (m.base != kGround)
    m.acc += m.rate_row.J_base.dot(s.accelerations[static_cast<std::size_t>(m.base)]);
  if (m.follower != kGround)
    m.acc += m.rate_row.J_follower.dot(s.accelerations[static_cast<std::size_t>(m.follower)]);
  m.unit_valid = true;
  return m;
}

// The acceleration-level Coulomb law of the k elements as one linear
// complementarity problem (Pfeiffer & Glocker 1996, sec. 7.2; Glocker's
// split of the tangential acceleration into a+ - a-). With the sides of the
// normal forces fixed, each element's limit is linear in the forces,
//   L = D (y0 + T F),   D = diag(mu_i sigma_i),
// and the law reads
//   0 <= a+  _|_  L + F >= 0,   0 <= a-  _|_  L - F >= 0,   q'' = a+ - a-,
// (slipping forward, a+ > 0, puts F at -L; backward at +L; at rest
// -L <= F <= L). With z1 = L + F, P = (I + D T)^-1 (so F = P (z1 - D y0)
// and L = P D y0 + (I - P) z1) and z2 = a-:
//   [a+   ]   [C P      I] [z1]   [a0 - C P D y0]
//   [L - F] = [I - 2P   0] [z2] + [2 P D y0     ],   0 <= z _|_ w >= 0,
// the friction LCP's usual structure ([[C, I], [-I, 0]] when the forces do
// not change the normal forces, copositive-plus for C positive
// semidefinite: Lemke's method then ends in a solution when there is one,
// Cottle, Pang & Stone 1992, sec. 4.4). `limit` holds mu_i sigma_i. False
// when I + D T is singular or no solution was found.
bool coupled_friction_lcp(const MatX& C, const MatX& T, const VecX& a0, const VecX& y0,
                          const VecX& limit, VecX& F) {
  const Eigen::Index k = a0.size();
  const MatX identity = MatX::Identity(k, k);
  const Eigen::FullPivLU<MatX> lu(MatX(identity + limit.asDiagonal() * T));
  if (!lu.isInvertible()) return false;
  const MatX P = lu.inverse();
  const VecX Dy0 = limit.cwiseProduct(y0);
  MatX M = MatX::Zero(2 * k, 2 * k);
  M.topLeftCorner(k, k) = C * P;
  M.topRightCorner(k, k) = identity;
  M.bottomLeftCorner(k, k) = identity - 2.0 * P;
  VecX q(2 * k);
  const VecX PDy0 = P * Dy0;
  q.head(k) = a0 - C * PDy0;
  q.tail(k) = 2.0 * PDy0;
  const internal::LcpSolution solution = internal::solve_lcp(M, q);
  if (!solution.solved) return false;
  F = P * (solution.z.head(k) - Dy0);
  return F.allFinite();
}

}  // namespace

bool System::stick_slip_decided_together(int k) const {
  if (!stick_slip_enabled(k)) return false;
  if (stick_slip_needs_reactions(k)) return true;
  return stick_slip_element(k).slip_limit_floor() > 0.0;
}

bool System::decide_friction_by_group(std::span<const int> elements, std::span<int> modes,
                                      std::span<const char> must_slip, bool complementarity_only) {
  const Impl& s = *impl_;
  const std::vector<int> given(modes.begin(), modes.end());
  std::vector<char> decided(elements.size(), 0);
  std::vector<int> part, part_modes;
  std::vector<char> part_must_slip;
  std::vector<std::size_t> where;
  for (std::size_t first = 0; first < elements.size(); ++first) {
    if (decided[first] != 0) continue;
    const int group = s.stick_slip_group(elements[first]);
    part.clear();
    part_modes.clear();
    part_must_slip.clear();
    where.clear();
    for (std::size_t e = first; e < elements.size(); ++e) {
      if (decided[e] != 0 || s.stick_slip_group(elements[e]) != group) continue;
      decided[e] = 1;
      part.push_back(elements[e]);
      part_modes.push_back(modes[e]);
      if (!must_slip.empty()) part_must_slip.push_back(must_slip[e]);
      where.push_back(e);
    }
    // flags only where the part has one set, as the callers pass them (with
    // flags a set is neither put to the complementarity problem nor reported)
    const bool flagged =
        std::any_of(part_must_slip.begin(), part_must_slip.end(), [](char f) { return f != 0; });
    if (!decide_friction_together(
            part, part_modes,
            flagged ? std::span<const char>(part_must_slip) : std::span<const char>(),
            complementarity_only)) {
      std::copy(given.begin(), given.end(), modes.begin());
      return false;
    }
    for (std::size_t i = 0; i < where.size(); ++i) modes[where[i]] = part_modes[i];
  }
  return true;
}

bool System::decide_friction_together(std::span<const int> elements, std::span<int> modes,
                                      std::span<const char> must_slip, bool complementarity_only) {
  if (!must_slip.empty() && must_slip.size() != elements.size())
    throw std::logic_error("decide_friction_together: one must_slip flag per element");
  Impl& s = *impl_;
  if (elements.empty()) return true;
  // elements on bodies no row joins (two boxes on one floor) cannot change
  // each other's forces: each group's are decided on their own
  const int group = s.stick_slip_group(elements[0]);
  if (std::any_of(elements.begin(), elements.end(),
                  [&](int e) { return s.stick_slip_group(e) != group; }))
    return decide_friction_by_group(elements, modes, must_slip, complementarity_only);
  // the provisional slips of the set need not be solvable (system_impl.h)
  const Impl::UnsolvedSlipsAllowed provisional(s);
  s.ensure_dynamics();
  // a contact tangent whose contact is open has no friction force (N = 0)
  // and acts on nothing: it slips the way its point accelerates. The others
  // are decided together. An element with a limit of its own (dry friction)
  // is one whose normal force is its limit F_max, unchanged by the forces
  // (a row of T zero, y0 = F_max, mu = mu_s = 1, one side).
  std::vector<Impl::FrictionJoint> own;  // the own-limit elements' responses
  own.reserve(elements.size());
  std::vector<Impl::FrictionJoint*> fj;
  std::vector<std::size_t> index;  // into elements
  for (std::size_t e = 0; e < elements.size(); ++e) {
    Impl::FrictionJoint* f = s.friction_joint_of_stick_slip(elements[e]);
    if (f == nullptr) {
      const ForceElement& element = stick_slip_element(elements[e]);
      if (element.slip_limit_floor() > 0.0 && element.mode() != kStick) {
        own.push_back(own_limit_member(s, elements[e]));
        fj.push_back(&own.back());
        index.push_back(e);
        continue;
      }
    }
    if (f == nullptr || !f->unit_valid)
      throw std::logic_error(
          "decide_friction_together: an element is not a slipping frictional "
          "joint, contact or dry-friction element");
    if (f->contact_side >= 0 && s.contact_row(f->contact_side) < 0) {
      modes[e] = f->acc > 0.0 ? kSlipPositive : f->acc < 0.0 ? kSlipNegative : kStick;
      continue;
    }
    // a ball still turning (w past its slip axis, not through zero) slips on along w
    if (f->ball && s.ball_slips_on(*f)) {
      modes[e] = kSlipPositive;
      continue;
    }
    fj.push_back(f);
    index.push_back(e);
  }
  const auto deciding = static_cast<int>(fj.size());
  if (deciding == 0) return true;
  // The frictional joints and contact tangents that slip on (not in the set,
  // their rate not zero) are members too, in their slip direction: their
  // forces F = -s mu sigma y respond to the set's through their normal forces
  // (at the start of a run those of the instant come from the set's
  // provisional modes, far from any motion). A slipping ball is one of them:
  // its moment -mu r |N| keeps its direction (w's, which is not zero) and
  // its size responds to the set's forces through its whole reaction.
  for (Impl::FrictionJoint& f : s.friction_joints) {
    if (!s.slips_as_member(f, group) || std::find(fj.begin(), fj.end(), &f) != fj.end()) continue;
    fj.push_back(&f);
  }
  const auto k = static_cast<int>(fj.size());
  // one scalar element and nothing else slipping: the closed form of a
  // single joint (decide_joint_friction, which sends a joint with others
  // slipping here, by the same test)
  if (k == 1 && (fj[0]->joint >= 0 || fj[0]->contact_side >= 0) && !fj[0]->ball &&
      must_slip.empty()) {
    modes[index[0]] = decide_joint_friction(elements[index[0]]);
    return true;
  }
  auto at = [&](int i) -> Impl::FrictionJoint& { return *fj[static_cast<std::size_t>(i)]; };
  // its limit is its own F_max (not a reaction)
  auto own_limit = [&](int i) { return at(i).joint < 0 && at(i).contact_side < 0; };
  // a ball of the set (three moment components); one that slips on is a
  // scalar member, its moment's size along its fixed direction
  auto ball = [&](int i) { return at(i).ball && i < deciding; };
  // slips on in its own direction, decided with the set but not a member of it
  auto slips_on = [&](int i) { return i >= deciding; };
  const ForceContext ctx(s.kin, s.t);
  auto names = [&]() {
    std::string out, last;
    for (int i = 0; i < deciding; ++i) {
      const std::string name =
          fmt::format("{} '{}'",
                      own_limit(i)              ? "element"
                      : at(i).contact_side >= 0 ? "contact"
                                                : "joint",
                      own_limit(i) ? s.forces[static_cast<std::size_t>(at(i).force)]->name()
                                   : s.friction_element(at(i)).site());
      if (name == last) continue;  // a contact point's second tangent
      out += (out.empty() ? "" : ", ") + name;
      last = name;
    }
    return out;
  };

  // The unknowns: one force per scalar element, a ball's moment vector
  // (world) as three, from offset[i]. Columns: the responses to a unit force
  // of each (a ball's: to a unit moment about each world axis).
  std::vector<int> offset(static_cast<std::size_t>(k) + 1, 0);
  for (int i = 0; i < k; ++i)
    offset[static_cast<std::size_t>(i) + 1] =
        offset[static_cast<std::size_t>(i)] + (ball(i) ? 3 : 1);
  auto off = [&](int i) { return offset[static_cast<std::size_t>(i)]; };
  const int n = offset.back();
  std::vector<const std::vector<Vec6>*> column_acc(static_cast<std::size_t>(n));
  std::vector<const VecX*> column_mult(static_cast<std::size_t>(n));
  VecX current(n);  // the forces of the instant (the slips that end here)
  for (int j = 0; j < k; ++j) {
    Impl::FrictionJoint& f = at(j);
    const auto o = static_cast<std::size_t>(off(j));
    if (ball(j)) {
      s.ball_axis_responses(f);
      for (std::size_t c = 0; c < 3; ++c) {
        column_acc[o + c] = &f.axis_acc[c];
        column_mult[o + c] = &f.axis_mult[c];
      }
      current.segment<3>(off(j)) = s.ball_slip_moment(f);
    } else {
      column_acc[o] = &f.unit_acc;
      column_mult[o] = &f.unit_mult;
      current(off(j)) = friction_force(f.stick_slip);
    }
  }

  // the responses: C (accelerations; a ball's relative angular
  // acceleration), T (normal forces: on their lines, a ball's whole reaction)
  MatX C(n, n), T(n, n);
  VecX a0(n), y0(n), mu(k), mu_static(k);
  // a scalar element whose reaction does not stay on one line (a pin's in
  // its plane): its normal force is |y0v_i + Tv_i F|, not |y_i| on a line
  std::vector<char> off_line(static_cast<std::size_t>(k), 0);
  Eigen::Matrix<double, 3, Eigen::Dynamic> y0v =
      Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, k);
  MatX Tv = MatX::Zero(3 * k, n);
  auto spatial = [&](int i) { return off_line[static_cast<std::size_t>(i)] != 0; };
  Eigen::Matrix<double, 3, Eigen::Dynamic> R(3, n);  // normal-force vectors per column
  // element i's acceleration (a ball's relative angular one) for the body
  // accelerations acc, into its rows of `out`
  auto element_acceleration = [&](int i, const std::vector<Vec6>& acc, auto&& out) {
    const Impl::FrictionJoint& fi = at(i);
    if (ball(i)) {
      out.template segment<3>(off(i)) = s.relative_angular_acceleration(fi, acc);
      return;
    }
    double a = 0.0;
    if (fi.base != kGround) a += fi.rate_row.J_base.dot(acc[static_cast<std::size_t>(fi.base)]);
    if (fi.follower != kGround)
      a += fi.rate_row.J_follower.dot(acc[static_cast<std::size_t>(fi.follower)]);
    out(off(i)) = a;
  };
  for (int i = 0; i < k; ++i) {
    const Impl::FrictionJoint& fi = at(i);
    const int o = off(i);
    for (int c = 0; c < n; ++c)
      element_acceleration(i, *column_acc[static_cast<std::size_t>(c)], C.col(c));
    if (ball(i)) {
      a0.segment<3>(o) =
          s.relative_angular_acceleration(fi, s.accelerations) - C.middleRows(o, 3) * current;
    } else {
      a0(o) = fi.acc - C.row(o).dot(current);
    }
    if (own_limit(i)) {  // |F| <= F_max stuck, F = -s F_max slipping
      mu(i) = mu_static(i) = 1.0;
      y0(o) = s.forces[static_cast<std::size_t>(fi.force)]->slip_limit(ctx);
      T.row(o).setZero();
      continue;
    }
    mu(i) = s.friction_element(fi).kinetic_lever();
    mu_static(i) = s.friction_element(fi).static_lever();
    for (int c = 0; c < n; ++c)
      R.col(c) = s.friction_normal(fi, *column_mult[static_cast<std::size_t>(c)]);
    const Vec3 f0 = fi.transverse - R * current;
    if (ball(i)) {  // |N| of the whole reaction: no line
      T.middleRows(o, 3) = R;
      y0.segment<3>(o) = f0;
      continue;
    }
    // the line of the normal force: its largest vector; a contact's is x
    Vec3 line = f0;
    double scale = f0.norm();
    for (int c = 0; c < n; ++c) {
      if (R.col(c).norm() > line.norm()) line = R.col(c);
      scale = std::max(scale, R.col(c).norm());
    }
    if (!(line.norm() > 0.0) || fi.contact_side >= 0) line = Vec3::UnitX();
    line.normalize();
    y0(o) = line.dot(f0);
    const double tolerance = internal::kOffLineFraction * std::max(scale, 1e-300);
    bool on_line = (f0 - y0(o) * line).norm() <= tolerance;
    for (int c = 0; c < n; ++c) {
      T(o, c) = line.dot(R.col(c));
      on_line = on_line && (R.col(c) - T(o, c) * line).norm() <= tolerance;
    }
    if (!on_line) {
      off_line[static_cast<std::size_t>(i)] = 1;
      y0v.col(i) = f0;
      Tv.middleRows(3 * i, 3) = R;
      // its line for the complementarity problem's linear guess (the exact
      // test takes |f|): the reaction of the instant, as a ball's
      const Vec3 now = f0 + R * current;
      if (now.norm() > 0.0) {
        const Vec3 along = now.normalized();
        y0(o) = along.dot(f0);
        for (int c = 0; c < n; ++c) T(o, c) = along.dot(R.col(c));
      }
    }
  }

  // tolerances: round-off of the forces and accelerations of this instant
  double force_scale = 0.0, acc_scale = 0.0;
  for (int i = 0; i < k; ++i) {
    const int d = ball(i) ? 3 : 1;
    force_scale = std::max(
        {force_scale,
         std::max(y0.segment(off(i), d).norm(), y0v.col(i).norm()) * std::max(mu_static(i), 1.0),
         current.segment(off(i), d).norm()});
    // a ball's moments are of the size of the one that holds it, C_ii^-1 a0_i
    // (its reaction may be zero: no gravity, the centre of mass at the ball)
    if (ball(i)) {
      const double response = C.block<3, 3>(off(i), off(i)).trace() / 3.0;
      if (response > 0.0 && std::isfinite(response))
        force_scale = std::max(force_scale, a0.segment<3>(off(i)).norm() / response);
    }
  }
  // A mechanism that its other rows lock (a pendulum with a frictional pin
  // whose tip rests on a floor): no friction force accelerates an element,
  // and its rows of C and a0 are the solve's round-off. Judged against the
  // responses with the bodies free (Impl::kLockedFraction): an entry of C
  // below that is zero, and an element whose row is then zero (locked) has
  // a0 zero where it is the stabilisation's correction of a drift
  // (Impl::kLockedDrift). Its force is then statically indeterminate (the
  // least-norm one holds).
  VecX unconstrained(n);
  for (int i = 0; i < k; ++i)
    unconstrained.segment(off(i), ball(i) ? 3 : 1).setConstant(s.free_response(at(i)));
  const double force_tol = 1e-10 * force_scale + 1e-300;
  double acc_tol = 0.0;
  // zeroes the responses below `fraction` of the free ones and sets the
  // acceleration tolerance
  auto lock_below = [&](double fraction) {
    // an element whose own response is below that fraction is locked by
    // the holds (its force moves nothing of its own), and so are its
    // couplings: C is a Gram matrix (symmetric, positive semidefinite), and
    // with C_ii taken for zero it cannot keep C_ij, |C_ij| <= sqrt(C_ii
    // C_jj), up to 1e-5 of the free responses: rows parted by up to about
    // 1e-5 rad are taken for dependent. A box lying on its side, rocking on
    // an edge yawed by 1e-7 rad: a corner's y tangent on one row with the
    // other corner's stuck hold, C_ii = 2e-14 and C_ij = 6e-8 (the yaw's
    // first-order coupling), was held to cancel a drift of 1.4e-13 (a0 after
    // drop_dependent_directions) with 6.3 N through them, beyond its cone,
    // and no combination held
    for (int r = 0; r < n; ++r)
      if (unconstrained(r) > 0.0 && std::abs(C(r, r)) <= fraction * unconstrained(r)) {
        C.row(r).setZero();
        C.col(r).setZero();
      }
    for (int r = 0; r < n; ++r) {
      bool locked = unconstrained(r) > 0.0;
      for (int c = 0; c < n; ++c) {
        if (std::abs(C(r, c)) <= fraction * std::sqrt(unconstrained(r) * unconstrained(c)))
          C(r, c) = 0.0;
        locked = locked && C(r, c) == 0.0;
      }
      if (locked && std::abs(a0(r)) <= Impl::kLockedDrift * unconstrained(r) * force_scale)
        a0(r) = 0.0;
    }
    acc_scale = 0.0;
    for (int r = 0; r < n; ++r) {
      acc_scale = std::max(acc_scale, std::abs(a0(r)));
      for (int c = 0; c < n; ++c) acc_scale = std::max(acc_scale, std::abs(C(r, c)) * force_scale);
    }
    acc_tol = 1e-10 * acc_scale + 1e-300;
  };
  lock_below(Impl::kLockedFraction);
  // the directions of C nearly without response taken for none, a0's part
  // along them (at the level of the drift) with them; true if any was
  auto drop_dependent_directions = [&]() {
    if (!(unconstrained.minCoeff() > 0.0)) return false;
    const VecX root = unconstrained.cwiseSqrt();
    const MatX scaled = root.cwiseInverse().asDiagonal() * C * root.cwiseInverse().asDiagonal();
    const Eigen::JacobiSVD<MatX> svd(scaled, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const VecX& values = svd.singularValues();
    Eigen::Index rank = 0;
    while (rank < n && values(rank) > kNearlyLocked * values(0)) ++rank;
    if (rank == 0 || rank == n) return false;
    const MatX dropped = svd.matrixU().rightCols(n - rank);
    const VecX along = dropped.transpose() * root.cwiseInverse().cwiseProduct(a0);
    const double drift = Impl::kLockedDrift * std::sqrt(unconstrained.maxCoeff()) * force_scale;
    // beyond that level, where it is the Baumgarte terms' pull on a drift:
    // what of it they do not give is judged, their own share bounded (a box
    // landing flat after a cascade of bounces on its corners pulls its
    // drift back with 1-3e-5 m/s^2 along such directions, beyond the
    // drift's level, all of it the stabilisation's but 2e-12)
    auto explained_by_stabilisation = [&]() {
      VecX stabilising(n);
      const std::vector<Vec6> stabilised = stabilisation_accelerations(s);
      for (int i = 0; i < k; ++i) element_acceleration(i, stabilised, stabilising);
      // a locked element's a0, zeroed for its drift (lock_below), has no
      // share left to take out
      for (int r = 0; r < n; ++r)
        if (a0(r) == 0.0) stabilising(r) = 0.0;
      const VecX share = dropped.transpose() * root.cwiseInverse().cwiseProduct(stabilising);
      return share.norm() <= kGrossDrift * std::sqrt(unconstrained.maxCoeff()) * force_scale &&
             (along - share).norm() <= drift;
    };
    if (along.norm() > drift && !explained_by_stabilisation()) return false;
    C = root.asDiagonal() *
        (svd.matrixU().leftCols(rank) * values.head(rank).asDiagonal() *
         svd.matrixV().leftCols(rank).transpose()) *
        root.asDiagonal();
    a0 -= root.cwiseProduct(dropped * along);
    lock_below(0.0);  // the tolerances of the new responses
    return true;
  };

  std::vector<int> mode(static_cast<std::size_t>(k)), best(static_cast<std::size_t>(k));
  for (int i = deciding; i < k; ++i)
    mode[static_cast<std::size_t>(i)] = stick_slip_element(at(i).stick_slip).mode();
  VecX sigma(k);
  // is F (with the sides sigma of the slipping elements) a solution of combination `mode`?
  bool round_cone = false;  // the tie-break of several combinations below
  auto consistent = [&](const VecX& F) {
    if (!F.allFinite()) return false;
    const VecX y = y0 + T * F;
    const VecX acc = a0 + C * F;
    for (int i = 0; i < k; ++i) {
      const int m = mode[static_cast<std::size_t>(i)];
      const int o = off(i);
      if (ball(i)) {
        // stuck: within the round cone; slipping: the kinetic moment
        // mu r |N| against a slip that starts along the acceleration
        const Vec3 moment = F.segment<3>(o), a = acc.segment<3>(o);
        const double normal = y.segment<3>(o).norm();
        if (m == kStick) {
          if (moment.norm() > mu_static(i) * normal + force_tol) return false;
          if (a.norm() > acc_tol) return false;
          continue;
        }
        if (std::abs(moment.norm() - mu(i) * normal) > force_tol) return false;
        const Vec3 slip = moment.norm() > force_tol ? Vec3(-moment.normalized()) : a.normalized();
        const double along = a.dot(slip);
        if (!(along > acc_tol) || (a - along * slip).norm() > acc_tol + 1e-9 * along) return false;
        continue;
      }
      if (spatial(i)) {
        const double normal = (y0v.col(i) + Tv.middleRows(3 * i, 3) * F).norm();
        if (m == kStick) {
          if (std::abs(F(o)) > mu_static(i) * normal + force_tol) return false;
          if (std::abs(acc(o)) > acc_tol) return false;
        } else {
          if (std::abs(F(o) + m * mu(i) * normal) > force_tol) return false;
          if (!slips_on(i) && !(m * acc(o) > acc_tol)) return false;
        }
      } else if (m == kStick) {
        const bool contact = at(i).contact_side >= 0;
        const double normal = contact ? std::max(y(o), 0.0) : std::abs(y(o));
        if (std::abs(F(o)) > mu_static(i) * normal + force_tol) return false;
        if (std::abs(acc(o)) > acc_tol) return false;
      } else {
        if (sigma(i) == 0.0 ? y(o) > force_tol : sigma(i) * y(o) < -force_tol) return false;
        // one that slips on keeps its direction whatever its acceleration
        if (!slips_on(i) && !(m * acc(o) > acc_tol)) return false;
      }
    }
    // with `round_cone`, a contact point with a stuck tangent holds its
    // friction within the round cone too, |F| <= mu_s N, not only each
    // component within the four-sided pyramid (its other tangent stuck too,
    // or slipping at mu N)
    for (int i = 0; i < k && round_cone; ++i) {
      if (at(i).contact_side < 0) continue;
      for (int j = i + 1; j < k; ++j) {
        if (at(j).contact_side != at(i).contact_side ||
            (mode[static_cast<std::size_t>(i)] != kStick &&
             mode[static_cast<std::size_t>(j)] != kStick))
          continue;
        const double normal = std::max(y(off(i)), 0.0);
        if (std::hypot(F(off(i)), F(off(j))) > mu_static(i) * normal + force_tol) return false;
      }
    }
    return true;
  };
  // the linear system of combination `mode` with the sides sigma; a
  // slipping ball's rows a + kappa M = 0 (kappa > 0: the moment opposes the
  // relative angular acceleration, along which the slip starts)
  MatX A(n, n);
  VecX b(n), kappa = VecX::Zero(k), solution(n), best_solution(n);
  VecX given = VecX::Zero(k);  // the force of a slipping element off its line
  auto fill = [&]() {
    for (int i = 0; i < k; ++i) {
      const int m = mode[static_cast<std::size_t>(i)];
      const int o = off(i);
      if (ball(i)) {
        A.middleRows(o, 3) = C.middleRows(o, 3);
        b.segment<3>(o) = -a0.segment<3>(o);
        if (m != kStick && std::isinf(kappa(i))) {
          // kappa -> infinity: a + kappa M = 0 divided by kappa, M = 0 (a
          // ball without reaction slips free)
          A.middleRows(o, 3).setZero();
          A.block<3, 3>(o, o).setIdentity();
          b.segment<3>(o).setZero();
        } else if (m != kStick) {
          A.block<3, 3>(o, o).diagonal().array() += kappa(i);
        }
      } else if (m == kStick) {  // q_i'' = 0
        A.row(o) = C.row(o);
        b(o) = -a0(o);
      } else if (spatial(i)) {  // F_i given (solve_off_line_slips below)
        A.row(o).setZero();
        A(o, o) = 1.0;
        b(o) = given(i);
      } else {  // F_i = lambda_i y_i
        const double lambda = -m * mu(i) * sigma(i);
        A.row(o) = -lambda * T.row(o);
        A(o, o) += 1.0;
        b(o) = lambda * y0(o);
      }
    }
  };
  // solution of rows F = rhs: exact, or where singular (stuck forces
  // statically indeterminate) the minimum-norm one if it solves them
  auto solve_rows = [&](const MatX& rows, const VecX& rhs, VecX& F) {
    if (rows.rows() == rows.cols()) {
      const Eigen::FullPivLU<MatX> lu(rows);
      if (lu.isInvertible()) {
        F = lu.solve(rhs);
        return true;
      }
    }
    const Eigen::CompleteOrthogonalDecomposition<MatX> cod(rows);
    F = cod.solve(rhs);
    return (rows * F - rhs).norm() <= 1e-9 * (rhs.norm() + force_scale * rows.norm());
  };
  // Slipping balls: their kappas are not known. For each, phi = |M| -
  // mu r |N| as a function of u = ln(kappa / scale) is positive towards
  // kappa -> 0 (the ball held: M -> the holding moment) where sticking is not
  // possible, and -mu r |N| <= 0 towards kappa -> infinity (M -> 0): its roots
  // on a grid of u bracketed and refined (root_finding.h), each put to the
  // exact test. Two slipping balls: the inner one's first root for each
  // value of the outer one's kappa. More are not solved (`unsolved`).
  constexpr double kLogKappa = 46.0;  // kappa / scale from 1e-20 to 1e20
  constexpr int kGrid = 41;           // a factor 10 between samples
  constexpr std::size_t kMaxSlippingBalls = 2;
  constexpr long kBallCost = 128;  // solves per slipping ball in a combination, about
  std::vector<int> slipping_balls;
  bool unsolved = false;
  std::vector<int> slipping_spatial;  // scalar elements off their lines
  std::string spatial_why;            // why a combination was not solved (the last)
  auto ball_scale = [&](int i) {
    const double trace = C.block<3, 3>(off(i), off(i)).trace() / 3.0;
    return trace > 0.0 && std::isfinite(trace) ? trace : 1.0;
  };
  auto ball_phi = [&](int i, const VecX& F) {
    return F.segment<3>(off(i)).norm() -
           mu(i) * (y0.segment<3>(off(i)) + T.middleRows(off(i), 3) * F).norm();
  };
  // the roots of phi on the grid of u; a ball whose reaction vanishes (no
  // friction at all: phi = |M| -> 0 from above as kappa -> infinity, never
  // negative) has its root at that end, the ball free
  auto ball_roots = [&](auto&& level_phi, auto&& found) {
    bool any = false;
    internal::bracketed_roots(-kLogKappa, kLogKappa, kGrid, 1e-12, level_phi, [&](double u) {
      any = true;
      found(u);
    });
    if (any) return;
    constexpr double kFree = std::numeric_limits<double>::infinity();
    const double held = level_phi(-kLogKappa), free = level_phi(kFree);
    if (std::isfinite(held) && std::isfinite(free) && held > 0.0 && std::abs(free) <= 1e-9 * held)
      found(kFree);
  };
  // Slipping scalar elements off their lines: with their forces given, the
  // rest of the combination is linear, so their reactions are affine in
  // those forces and the law F = -s mu |f(F)| is the dynamics' fixed point
  // (spatial_slip.h), solved where its solution is unique; beyond that not
  // solved (`spatial_why` says why). The forces in `solution`; false where
  // not solved. A singular system is taken at its minimum-norm solution
  // where some element is stuck (statically indeterminate stuck forces; the
  // stuck forces at their limits are not searched here), and has none where
  // all slip, as below.
  auto solve_off_line_slips = [&]() -> bool {
    const auto m = static_cast<int>(slipping_spatial.size());
    given.setZero();
    fill();
    const Eigen::CompleteOrthogonalDecomposition<MatX> rows(A);
    bool any_stuck = false;
    for (int i = 0; i < k; ++i)
      any_stuck = any_stuck || mode[static_cast<std::size_t>(i)] == kStick;
    if (rows.rank() < n && !any_stuck) return false;
    const VecX base = rows.solve(b);
    MatX unit(n, m);  // the forces' response to a unit force of each
    for (int c = 0; c < m; ++c) {
      VecX rhs = b;
      rhs(off(slipping_spatial[static_cast<std::size_t>(c)])) = 1.0;
      unit.col(c) = rows.solve(rhs) - base;
    }
    internal::SpatialSlip set;
    set.reserve(m);
    set.start(m);
    for (int a = 0; a < m; ++a) {
      const int i = slipping_spatial[static_cast<std::size_t>(a)];
      const auto Ti = Tv.middleRows(3 * i, 3);
      set.set_element(a, y0v.col(i) + Ti * base, -mode[static_cast<std::size_t>(i)] * mu(i), true);
      for (int c = 0; c < m; ++c) set.set_response(a, c, Ti * unit.col(c));
    }
    const internal::SpatialSlip::Result result = set.solve();
    if (!result.solved) {
      spatial_why = result.why_not_solved();
      return false;
    }
    solution = base;
    for (int c = 0; c < m; ++c) {
      solution += set.force(c) * unit.col(c);
      given(slipping_spatial[static_cast<std::size_t>(c)]) = set.force(c);
    }
    // a singular system (statically indeterminate stuck forces): its
    // minimum-norm solution, if it solves the rows
    fill();
    return (A * solution - b).norm() <= 1e-9 * (b.norm() + force_scale * A.norm());
  };
  // A's factors with its rows scaled to 1 (rows of C and of the slip law
  // differ in scale) and a threshold of 1e-10: its rank and kernel to round-off
  auto scaled_lu = [&]() {
    MatX rows = A;
    for (Eigen::Index r = 0; r < n; ++r)
      if (const double scale = rows.row(r).cwiseAbs().maxCoeff(); scale > 0.0) rows.row(r) /= scale;
    Eigen::FullPivLU<MatX> lu(n, n);
    lu.setThreshold(1e-10);
    lu.compute(rows);
    return lu;
  };
  // A singular to round-off: its rank below n
  auto singular_within_round_off = [&]() { return scaled_lu().rank() < n; };
  // phi of slipping ball `level` at u, the inner balls at their first root
  // (solution then holds the forces); NaN where there is none
  auto phi = [&](auto& self, std::size_t level, double u) -> double {
    const int i = slipping_balls[level];
    kappa(i) = ball_scale(i) * std::exp(u);
    if (level + 1 < slipping_balls.size()) {
      double root = std::nan("");
      ball_roots([&](double v) { return self(self, level + 1, v); },
                 [&](double v) {
                   if (std::isnan(root)) root = v;
                 });
      if (std::isnan(root) || std::isnan(self(self, level + 1, root))) return std::nan("");
    } else if (!slipping_spatial.empty()) {
      if (!solve_off_line_slips()) return std::nan("");
    } else {
      fill();
      if (!solve_rows(A, b, solution)) return std::nan("");
    }
    return ball_phi(i, solution);
  };
  // The stuck forces of a singular combination where no point tried above
  // holds them all: over its solutions F = F_p + K a (F_p the minimum-norm
  // one, K the kernel of its rows with them scaled to 1, as
  // scaled_lu), the a with the largest least margin
  //   s = min over the stuck scalar elements of mu_s,i N_i -+ F_i,
  // N_i = sigma_i y_i (y_i linear in F; a contact's y_i >= 0 too), a linear
  // program (contact/linear_program.h) as for the split of the stuck holds
  // the simulation then solves (System::Impl::spread_dependent_holds).
  // Balls and elements off their lines are left to the points above.
  // False where there is no solution, or the program none; `solution`
  // holds the split found.
  auto widest_stuck_split = [&]() {
    VecX particular;
    if (!solve_rows(A, b, particular)) return false;
    const Eigen::FullPivLU<MatX> lu = scaled_lu();
    MatX kernel = lu.kernel();
    const auto d = static_cast<int>(kernel.cols());
    if (lu.rank() == n || d == 0) return false;
    for (int c = 0; c < d; ++c) kernel.col(c).normalize();
    int stuck = 0, contacts = 0;
    for (int i = 0; i < k; ++i) {
      if (mode[static_cast<std::size_t>(i)] != kStick) continue;
      if (ball(i) || spatial(i)) return false;
      ++stuck;
      if (at(i).contact_side >= 0) ++contacts;
    }
    // unknowns a + R (|a_c| <= R, R a bound on the forces) and s - s_low
    const double reach = 10.0 * (force_scale + particular.norm()) + 1e-300;
    const VecX y_p = y0 + T * particular;
    double s_low = 0.0;
    for (int i = 0; i < k; ++i) {
      if (mode[static_cast<std::size_t>(i)] != kStick) continue;
      const int o = off(i);
      s_low = std::min(s_low, mu_static(i) * -std::abs(y_p(o)) - std::abs(particular(o)));
    }
    s_low -= reach;
    internal::LinearProgram lp;
    lp.reserve(d + 1, 2 * stuck + contacts + d);
    MatX& P = lp.A();
    VecX& h = lp.b();
    int row = 0;
    // g0 + g . a - margin s >= 0 as a row of P x <= h
    auto add_row = [&](double g0, const Eigen::RowVectorXd& g, double margin) {
      P.row(row).head(d) = -g;
      P(row, d) = margin;
      h(row) = g0 - reach * g.sum() - margin * s_low;
      ++row;
    };
    for (int i = 0; i < k; ++i) {
      if (mode[static_cast<std::size_t>(i)] != kStick) continue;
      const int o = off(i);
      const bool contact = at(i).contact_side >= 0;
      const double side = contact || y_p(o) >= 0.0 ? 1.0 : -1.0;
      const double N0 = side * y_p(o);
      const Eigen::RowVectorXd N_rate = side * (T.row(o) * kernel);
      for (const double sign : {1.0, -1.0})
        add_row(mu_static(i) * N0 + sign * particular(o),
                mu_static(i) * N_rate + sign * kernel.row(o), 1.0);
      if (contact) add_row(N0, N_rate, 0.0);  // it may not pull
    }
    for (int c = 0; c < d; ++c) {  // a_c <= R
      P.row(row).head(d + 1).setZero();
      P(row, c) = 1.0;
      h(row) = 2.0 * reach;
      ++row;
    }
    lp.c().head(d + 1).setZero();
    lp.c()(d) = 1.0;
    VecX x(d + 1);
    if (!lp.solve(d + 1, row, x)) return false;
    solution = particular + kernel * (x.head(d).array() - reach).matrix();
    return true;
  };
  // the exact test of combination `mode` with the sides sigma: the number of
  // consistent solutions (0, 1, or 2 for several), the last in `solution`
  auto combination_holds = [&]() -> int {
    slipping_balls.clear();
    slipping_spatial.clear();
    for (int i = 0; i < k; ++i) {
      if (mode[static_cast<std::size_t>(i)] == kStick) continue;
      if (ball(i)) slipping_balls.push_back(i);
      if (spatial(i)) slipping_spatial.push_back(i);
    }
    if (!slipping_spatial.empty() && slipping_balls.empty())
      return solve_off_line_slips() && consistent(solution) ? 1 : 0;
    if (!slipping_balls.empty()) {
      if (slipping_balls.size() > kMaxSlippingBalls) {
        unsolved = true;
        return 0;
      }
      int count = 0;
      VecX first;
      ball_roots(
          [&](double u) { return phi(phi, 0, u); },
          [&](double u) {
            if (std::isnan(phi(phi, 0, u)) || !consistent(solution)) return;
            if (count > 0 && (solution - first).norm() <= 1e-9 * (force_scale + first.norm()))
              return;
            if (count == 0) first = solution;
            ++count;
          });
      if (count > 0) solution = first;
      return std::min(count, 2);
    }
    fill();
    bool any_stuck = false;
    for (int i = 0; i < k; ++i)
      any_stuck = any_stuck || mode[static_cast<std::size_t>(i)] == kStick;
    const Eigen::FullPivLU<MatX> lu(A);
    if (lu.isInvertible()) {
      solution = lu.solve(b);
      if (consistent(solution)) return 1;
      // invertible by round-off only (stuck rows of one motion, a closed
      // contact having taken the other: their rows of C proportional to
      // 1e-16), whose solution is that round-off's: searched as singular
      if (!any_stuck || !singular_within_round_off()) return 0;
    } else if (!any_stuck) {
      return 0;
    }
    // stuck forces statically indeterminate: the minimum-norm solution
    // (where A is invertible by round-off only, its solution was tried
    // above), then one scalar stuck force at either limit of its cone, or
    // for a contact at zero (its cone's tip: a contact that would pull, N <=
    // 0, holds nothing). One factorisation for all of them.
    const Eigen::CompleteOrthogonalDecomposition<MatX> rows_cod(A);
    const VecX particular = rows_cod.solve(b);
    if (!lu.isInvertible()) {  // solved to the tolerance of solve_rows
      solution = particular;
      if ((A * solution - b).norm() <= 1e-9 * (b.norm() + force_scale * A.norm()) &&
          consistent(solution))
        return 1;
    }
    // the least norm of the forces relative to their limits at the instant
    // (each stuck element's share of the load in proportion to what it can
    // hold: a pin of small radius beside a rough contact leaves the load to
    // the contact)
    {
      VecX limit(n);
      for (int i = 0; i < k; ++i) {
        const int o = off(i);
        const int d = ball(i) ? 3 : 1;
        double normal = spatial(i) ? y0v.col(i).norm() : y0.segment(o, d).norm();
        if (at(i).contact_side >= 0) normal = std::max(y0(o), 0.0);
        const double mu_i = mode[static_cast<std::size_t>(i)] == kStick ? mu_static(i) : mu(i);
        limit.segment(o, d).setConstant(std::max(mu_i * normal, 1e-12 * force_scale + 1e-300));
      }
      VecX share(n);
      if (solve_rows(MatX(A * limit.asDiagonal()), b, share)) {
        solution = limit.cwiseProduct(share);
        if (consistent(solution)) return 1;
      }
    }
    // One stuck force at a limit, the row r F = h added. Over the solutions
    // F_p + K a of the rows (F_p their minimum-norm one, K an orthonormal
    // basis of their kernel) the minimum-norm one with it is
    // F_p + K g^T (h - r F_p) / |g|^2, g = r K; factorising the rows with
    // it for each trial (up to three per stuck element) took 75 % of a
    // cube's run pushed along the diagonal.
    const Eigen::Index free_directions = n - rows_cod.rank();
    MatX kernel(n, free_directions);
    if (free_directions > 0)  // (a permutation of an empty block reads a null pointer)
      kernel =
          rows_cod.colsPermutation() * rows_cod.matrixZ().bottomRows(free_directions).transpose();
    Eigen::RowVectorXd extra(n);
    for (int i = 0; i < k; ++i) {
      if (mode[static_cast<std::size_t>(i)] != kStick || ball(i)) continue;
      const int o = off(i);
      const bool contact = at(i).contact_side >= 0;
      for (const double limit : {mu_static(i), -mu_static(i), 0.0}) {
        if (limit == 0.0 && !contact) continue;
        extra = -limit * T.row(o);  // F_i = limit y_i
        extra(o) += 1.0;
        const double h = limit * y0(o);
        solution = particular;
        if (free_directions > 0) {
          const Eigen::RowVectorXd g = extra * kernel;
          if (g.squaredNorm() > 1e-24 * extra.squaredNorm())
            solution += kernel * (g.transpose() * ((h - extra.dot(particular)) / g.squaredNorm()));
        }
        // solved to the tolerance of solve_rows
        const double residual = std::hypot((A * solution - b).norm(), extra.dot(solution) - h);
        const double tolerance =
            1e-9 * (std::hypot(b.norm(), h) + force_scale * std::hypot(A.norm(), extra.norm()));
        if (residual <= tolerance && consistent(solution)) return 1;
      }
    }
    // several indeterminate directions at once (a box leaning against a
    // rough wall on a rough floor, its eight stuck tangents): the split
    // with the largest least margin over the solutions, a linear program
    return widest_stuck_split() && consistent(solution) ? 1 : 0;
  };

  // Exact enumeration, level by level, the most stuck first: the first level
  // with a consistent combination decides (static friction takes
  // precedence), so the common outcomes (all stuck, one starting to slip)
  // cost a handful of solves. A slipping scalar element has two directions
  // and a joint two sides; a slipping ball one option, its direction found
  // with the solution. False when it would exceed the budget.
  int best_count = 0;
  int best_stuck = 0;  // the level of the consistent combinations found
  auto enumerate = [&](int fewest_stuck = 0) {
    std::vector<int> slip(static_cast<std::size_t>(k));
    long trials = 0;  // linear systems solved
    for (int stuck = deciding; stuck >= fewest_stuck && best_count == 0; --stuck) {
      // the level of all stuck is one set (there the set may be larger
      // than the enumeration's: the complementarity problem's first test)
      const std::uint64_t sets = std::uint64_t{1} << deciding;
      for (std::uint64_t stuck_set = stuck == deciding ? sets - 1 : 0; stuck_set < sets;
           ++stuck_set) {
        if (std::popcount(stuck_set) != stuck) continue;
        bool tried_stuck = false;  // an element that must slip, stuck
        for (int i = 0; i < deciding && !must_slip.empty(); ++i)
          tried_stuck = tried_stuck || ((stuck_set >> i & 1u) != 0u &&
                                        must_slip[index[static_cast<std::size_t>(i)]] != 0);
        if (tried_stuck) continue;
        int slipping = 0;
        long cost = 1;
        for (int i = 0; i < deciding; ++i)
          if ((stuck_set >> i & 1u) == 0) {
            slip[static_cast<std::size_t>(slipping++)] = i;
            if (ball(i)) cost *= kBallCost;
          }
        const int choosing = slipping;  // the set's, whose directions are enumerated
        for (int i = deciding; i < k; ++i) slip[static_cast<std::size_t>(slipping++)] = i;
        for (unsigned ways = 0; ways < (1u << choosing); ++ways) {
          bool repeated = false;  // a ball has one slip option
          for (int i = 0; i < deciding; ++i) mode[static_cast<std::size_t>(i)] = kStick;
          for (int j = 0; j < choosing; ++j) {
            const int i = slip[static_cast<std::size_t>(j)];
            const bool negative = (ways >> j & 1u) != 0;
            repeated = repeated || (ball(i) && negative);
            mode[static_cast<std::size_t>(i)] = negative ? kSlipNegative : kSlipPositive;
          }
          if (repeated) continue;
          if (slipping > 30) return false;  // 2^slipping sides: over the budget in any case
          // the side patterns solved: an own limit, a ball or an element off
          // its line has one side, and the two tangents of a contact point
          // press or not together. The round cone's pass counts so (the
          // eight tangents of a cube on four corners fit its budget down to
          // all slipping, 5^8 patterns counted singly would not); the first
          // pass counts every pattern, as its budget was set for
          int free_sides = 0;
          for (int j = 0; j < slipping; ++j) {
            const int i = slip[static_cast<std::size_t>(j)];
            bool shares = own_limit(i) || ball(i) || spatial(i);
            for (int e = 0; e < j && !shares; ++e)
              shares = at(i).contact_side >= 0 &&
                       at(slip[static_cast<std::size_t>(e)]).contact_side == at(i).contact_side;
            if (!shares) ++free_sides;
          }
          trials += (1L << (round_cone ? free_sides : slipping)) * cost;
          if (trials > kTrialBudget) return false;
          for (int sides = 0; sides < (1 << slipping); ++sides) {
            sigma.setOnes();
            bool one_sided = false;    // an own limit has one side (F_max > 0), a ball none
            bool split_point = false;  // a contact point's tangents on different sides
            for (int j = 0; j < slipping; ++j) {
              const int i = slip[static_cast<std::size_t>(j)];
              for (int e = 0; e < j && !split_point; ++e) {
                const int other = slip[static_cast<std::size_t>(e)];
                split_point = at(i).contact_side >= 0 &&
                              at(other).contact_side == at(i).contact_side &&
                              ((sides >> j & 1) != (sides >> e & 1));
              }
              if ((sides >> j & 1) == 0) continue;
              sigma(i) = at(i).contact_side >= 0 ? 0.0 : -1.0;
              one_sided = one_sided || own_limit(i) || ball(i) || spatial(i);
            }
            if (one_sided || split_point) continue;
            const int count = combination_holds();
            if (count == 0) continue;
            best_count += count;  // a different combination with as many stuck
            best_stuck = stuck;
            best = mode;
            best_solution = solution;
            break;  // one side pattern per combination suffices
          }
        }
      }
    }
    return true;
  };
  // the modes decided; a slipping ball's slip axis along its acceleration
  auto take = [&](const std::vector<int>& decided, const VecX& F) {
    const VecX acc = a0 + C * F;
    for (int i = 0; i < deciding; ++i) {
      const int m = decided[static_cast<std::size_t>(i)];
      modes[index[static_cast<std::size_t>(i)]] = m;
      if (ball(i) && m != kStick) s.set_ball_slip_axis(at(i), acc.segment<3>(off(i)).normalized());
    }
  };
  auto not_solved = [&]() {
    std::string out;
    if (unsolved) out += "; combinations with more than two balls slipping are not solved";
    if (!spatial_why.empty())
      out += "; a combination whose slipping joints' reactions leave their lines is not solved: " +
             spatial_why;
    return out;
  };
  bool enumerated = !complementarity_only && deciding <= kMaxFrictionEnumerated && enumerate();
  // None consistent, or several, where the set's responses are nearly
  // dependent. A box that falls over and lies on its side, rocking on one
  // edge, has the y tangents of that edge's two corners on one row to 1e-16
  // (yawed by 1e-7 rad: to 1.6e-7). Stuck together, their accelerations
  // without friction differ by the stabilisation's drift (1.2e-9 against a
  // tolerance of 2.5e-10), which no split of their forces takes out: each
  // stuck with the other slipping at that drift's acceleration held
  // instead, and two such combinations were reported as Painleve (or, with
  // one of them stuck beside the set, none held: the set's y tangent would
  // need 1536 N through the yaw's response to cancel the drift). The
  // directions of C (scaled by the free responses) below kNearlyLocked of
  // its largest singular value are taken for none, and a0's part along them
  // for the drift where, less the Baumgarte terms' share, it is at that
  // level (Impl::kLockedDrift, as for a locked element): stuck together the
  // tangents then hold, their split statically indeterminate, and the box
  // comes to rest on its side.
  if (enumerated && best_count != 1 && (must_slip.empty() || best_count == 0) &&
      drop_dependent_directions()) {
    best_count = 0;
    enumerated = enumerate();
  }
  // an element that must slip: no combination, several, or none enumerated
  // leave the modes as given (the caller keeps what it had)
  if (!must_slip.empty() && (!enumerated || best_count != 1)) return true;
  if (enumerated) {
    if (best_count > 1 && (mu_static.array() > mu.array()).any()) {
      // Several where the static coefficients exceed the kinetic: counted
      // again with mu_s = mu, one means the excess admits the others (a box
      // sliding on four corners, two tangents at zero rate together: either
      // holds with a force between mu N and mu_s N while the other slips)
      const VecX static_coefficients = mu_static;
      const int level = best_stuck;
      mu_static = mu;
      best_count = 0;
      const bool recounted = enumerate();
      const int kinetic = best_count;
      mu_static = static_coefficients;
      // With as many stuck, that one is consistent with every static
      // coefficient from mu to mu_s (its stuck forces within mu N, its slips
      // at mu N whatever mu_s), the others only above some of them: it is
      // taken, and the choice is said. The rigid model does not decide it.
      // Only where every combination was solved (no more than two balls
      // slipping, no joint's reaction off its line): else one is not shown.
      if (recounted && kinetic == 1 && best_stuck == level && !unsolved && spatial_why.empty()) {
        // the elements by the mode taken (a contact point's tangents apart)
        std::string stuck_names, slipping_names;
        for (int i = 0; i < deciding; ++i) {
          std::string& list =
              best[static_cast<std::size_t>(i)] == kStick ? stuck_names : slipping_names;
          list +=
              (list.empty() ? "" : ", ") + s.forces[static_cast<std::size_t>(at(i).force)]->name();
        }
        s.warn(fmt::format(
            "t = {:.9g} s: {}: at zero slip rate together, several consistent combinations of "
            "stick and slip through the static coefficient's excess over the kinetic; the one "
            "that holds with every static coefficient from mu to mu_static is taken (stuck: {}; "
            "slipping: {}; the rigid model does not determine which: model the compliance to "
            "decide it)",
            s.t, names(), stuck_names.empty() ? "none" : stuck_names,
            slipping_names.empty() ? "none" : slipping_names));
        take(best, best_solution);
        return true;
      }
      if (recounted && kinetic == 1)
        throw SimulationError(
            s.t, fmt::format("{}: at zero slip rate together, Coulomb friction with the reactions "
                             "as normal forces has several consistent combinations of stick and "
                             "slip here, through the static coefficient's excess over the "
                             "kinetic (with mu_static = mu there would be one{}); the rigid model "
                             "does not determine the motion. Bring mu_static nearer mu, or model "
                             "the compliance",
                             names(), not_solved()));
      best_count = 2;
    }
    // Several with the four-sided pyramid, whose corners hold up to sqrt(2)
    // more than the round cone along a diagonal: a cube pushed at its centre
    // along the diagonal beyond what it holds could turn about either of two
    // mirror corners, each pivot's two stuck tangents at 1.221 N (1.73 N in
    // all against mu_s N = 1.226 N), or slide. The enumeration is made again
    // with every contact point that has a stuck tangent held within the
    // round cone too; where that leaves one combination, it is taken and the
    // choice is said. The pyramid stays the law: a combination it alone
    // admits is taken where it is the only one (a cube pushed (4, 4) N rests).
    if (best_count > 1 && !unsolved && spatial_why.empty()) {
      round_cone = true;
      best_count = 0;
      const bool recounted = enumerate();
      round_cone = false;
      if (recounted && best_count == 1) {
        s.warn(fmt::format(
            "t = {:.9g} s: {}: at zero slip rate together, several combinations of stick and "
            "slip are consistent with the four-sided friction pyramid; the one whose stuck "
            "contact points hold their friction within the round cone is taken",
            s.t, names()));
        take(best, best_solution);
        return true;
      }
      best_count = 2;
    }
    if (best_count != 1)
      throw SimulationError(
          s.t, fmt::format("{}: at zero slip rate together, Coulomb friction with the reactions "
                           "as normal forces has {} consistent combinations of stick and slip "
                           "here (Painleve's paradox{}); the rigid model does not determine the "
                           "motion. Lower mu, or model the compliance",
                           names(), best_count == 0 ? "no" : "several", not_solved()));
    take(best, best_solution);
    return true;
  }

  // Beyond the enumeration: the complementarity problem. The sides of the
  // normal forces are those of the instant, y at the left limit (with the
  // forces of the slips that end here): sigma_i = sgn(y_i) for a joint (+1
  // at zero), 1 for a pressing contact and 0 for one that does not. A ball
  // enters as three scalar elements, its moment's components about the
  // world axes, each with the limit mu r N along the reaction's direction
  // of the instant (a box around the round cone, as a contact point's two
  // tangents around its own). The static LCP (mu_s, where a slip starts
  // from rest the force is at the static limit) is solved first; its
  // combination (stuck where the acceleration is zero; a ball stuck where
  // all three are) is then put to the exact test above, with the kinetic
  // coefficient for the slipping elements and the sides checked at the
  // solution. If it fails, the kinetic LCP's combination is tested.
  // Static friction takes precedence here too: the set all stuck, one
  // trial (with the members' sides), put to the exact test first. A box at
  // rest on a floor and flush against a wall has sixteen tangents on one
  // body; its problem is degenerate (the holds are dependent), both LCPs'
  // pivoting ended on a ray, and the run stopped at its start as Painleve.
  if (!complementarity_only && must_slip.empty() && deciding < 64 && enumerate(deciding) &&
      best_count == 1) {
    take(best, best_solution);
    return true;
  }
  best_count = 0;
  const VecX y_now = y0 + T * current;
  // The members that slip on enter the set's problem condensed, with their
  // sides of the instant: F_R = Lambda (y0_R + T_RR F_R + T_RS F_S), so
  //   F_R = Q (y0_R + T_RS F_S),   Q = (I - Lambda T_RR)^-1 Lambda,
  // Lambda = diag(-s mu sigma), and the set's responses are those with F_R.
  const int ns = off(deciding), nr = n - ns;
  VecX lambda_on(nr);
  for (int i = deciding; i < k; ++i) {
    sigma(i) = at(i).contact_side >= 0 ? (y_now(off(i)) > 0.0 ? 1.0 : 0.0)
                                       : (y_now(off(i)) < 0.0 ? -1.0 : 1.0);
    lambda_on(off(i) - ns) = -mode[static_cast<std::size_t>(i)] * mu(i) * sigma(i);
  }
  MatX Q(nr, nr);
  if (nr > 0) {
    const Eigen::FullPivLU<MatX> lu(
        MatX(MatX::Identity(nr, nr) - lambda_on.asDiagonal() * T.bottomRightCorner(nr, nr)));
    if (lu.isInvertible()) Q = lu.solve(MatX(lambda_on.asDiagonal()));
  }
  const bool condensed = nr == 0 || Q.allFinite();
  const MatX C_set =
      C.topLeftCorner(ns, ns) + C.topRightCorner(ns, nr) * Q * T.bottomLeftCorner(nr, ns);
  const VecX a0_set = a0.head(ns) + C.topRightCorner(ns, nr) * (Q * y0.tail(nr));
  const MatX T_set =
      T.topLeftCorner(ns, ns) + T.topRightCorner(ns, nr) * Q * T.bottomLeftCorner(nr, ns);
  const VecX y0_set = y0.head(ns) + T.topRightCorner(ns, nr) * (Q * y0.tail(nr));
  VecX side(ns), linear_y0 = y0_set;
  MatX linear_T = T_set;
  VecX row_mu(ns), row_mu_static(ns);
  for (int i = 0; i < deciding; ++i) {
    const int o = off(i);
    if (ball(i)) {
      const Vec3 f = y_now.segment<3>(o);
      const Vec3 along = f.norm() > 0.0 ? Vec3(f.normalized()) : Vec3::Zero();
      const double normal0 = along.dot(y0_set.segment<3>(o));
      const Eigen::RowVectorXd normal_row = along.transpose() * T_set.middleRows(o, 3);
      for (int c = 0; c < 3; ++c) {
        linear_y0(o + c) = normal0;
        linear_T.row(o + c) = normal_row;
        side(o + c) = 1.0;
        row_mu(o + c) = mu(i);
        row_mu_static(o + c) = mu_static(i);
      }
      sigma(i) = 1.0;
      continue;
    }
    side(o) = at(i).contact_side >= 0 ? (y_now(o) > 0.0 ? 1.0 : 0.0)
              : own_limit(i)          ? 1.0
                                      : (y_now(o) < 0.0 ? -1.0 : 1.0);
    sigma(i) = side(o);
    row_mu(o) = mu(i);
    row_mu_static(o) = mu_static(i);
  }
  // The round cone's tie-break of the enumeration, made on the combination
  // the complementarity problem found (its pyramid admits one tangent of a
  // point stuck beside the other slipping at mu N, up to sqrt(2) beyond the
  // round cone): a contact point with a stuck tangent beyond the round cone
  // has its stuck tangents set slipping against their forces, and the exact
  // test made with the round cone too, until a combination holds within it
  // (true: `mode` and `solution` hold it) or none does (false: both as they
  // were). Where that test fails with other stuck elements of the set
  // beyond their limits (the load the slipping ones held moved to them),
  // those are set slipping too and the test made again. Two cubes welded
  // side by side, pushed (10, 9) N, beyond the pyramid's 9.81 N along x
  // only: the x tangents slipping at mu N beside the y ones stuck is
  // consistent with the pyramid, not the round cone; the dynamics' split
  // let seven of the eight y tangents go at once, and the pair turned about
  // the eighth (w_z = -0.19 rad/s at 0.1 s). It now slides along both axes,
  // each at (F - mu m g)/m, as the single cube of the enumeration does.
  auto within_round_cone_instead = [&]() {
    const std::vector<int> pyramid_mode = mode;
    const VecX pyramid_solution = solution;
    for (int pass = 0; pass <= deciding; ++pass) {
      const VecX y = y0 + T * solution;
      bool let_slip = false;
      for (int i = 0; i < deciding; ++i) {
        if (at(i).contact_side < 0 || ball(i)) continue;
        for (int j = i + 1; j < deciding; ++j) {
          if (at(j).contact_side != at(i).contact_side) continue;
          const auto mi = static_cast<std::size_t>(i), mj = static_cast<std::size_t>(j);
          if (mode[mi] != kStick && mode[mj] != kStick) continue;
          const double normal = std::max(y(off(i)), 0.0);
          if (std::hypot(solution(off(i)), solution(off(j))) <= mu_static(i) * normal + force_tol)
            continue;
          for (const int e : {i, j})
            if (mode[static_cast<std::size_t>(e)] == kStick) {
              mode[static_cast<std::size_t>(e)] =
                  solution(off(e)) > 0.0 ? kSlipNegative : kSlipPositive;
              let_slip = true;
            }
        }
      }
      if (!let_slip) return pass > 0;
      round_cone = true;
      const int count = combination_holds();
      round_cone = false;
      if (count == 1) continue;
      // the others stuck beside them then beyond their limits (the pair's
      // other y tangents, left to hold the whole push along y): set
      // slipping against their forces, and tested again
      const VecX after = y0 + T * solution;
      bool beyond = false;
      for (int i = 0; i < deciding; ++i) {
        const auto mi = static_cast<std::size_t>(i);
        if (at(i).contact_side < 0 || ball(i) || mode[mi] != kStick ||
            std::abs(solution(off(i))) <= mu_static(i) * std::max(after(off(i)), 0.0) + force_tol)
          continue;
        mode[mi] = solution(off(i)) > 0.0 ? kSlipNegative : kSlipPositive;
        beyond = true;
      }
      if (!beyond) break;
      round_cone = true;
      const int again = combination_holds();
      round_cone = false;
      if (again != 1) break;
    }
    mode = pyramid_mode;
    solution = pyramid_solution;
    return false;
  };
  for (const bool static_limit : {true, false}) {
    if (!condensed || (!static_limit && mu == mu_static)) break;
    VecX F;
    if (!coupled_friction_lcp(C_set, linear_T, a0_set, linear_y0,
                              (static_limit ? row_mu_static : row_mu).cwiseProduct(side), F))
      continue;
    const VecX acc = a0_set + C_set * F;
    for (int i = 0; i < deciding; ++i) {
      const int o = off(i);
      mode[static_cast<std::size_t>(i)] =
          ball(i) ? (acc.segment<3>(o).norm() <= acc_tol ? kStick : kSlipPositive)
          : std::abs(acc(o)) <= acc_tol ? kStick
          : acc(o) > 0.0                ? kSlipPositive
                                        : kSlipNegative;
    }
    const int count = combination_holds();
    if (count == 0) continue;
    if (count > 1 && complementarity_only) return false;
    if (count > 1)
      throw SimulationError(
          s.t, fmt::format("{}: at zero slip rate together ({} elements, decided through the "
                           "complementarity problem of Coulomb friction), a slipping ball has "
                           "several consistent slip moments here (Painleve's paradox); the rigid "
                           "model does not determine the motion. Lower mu, or model the compliance",
                           names(), deciding));
    if (!unsolved && spatial_why.empty() && within_round_cone_instead())
      s.warn(fmt::format(
          "t = {:.9g} s: {}: at zero slip rate together ({} elements, decided through the "
          "complementarity problem of Coulomb friction), the combination found holds contact "
          "points stuck beyond the round cone beside their slipping tangents, within the "
          "four-sided pyramid; the one with them slipping (and those their load then moves "
          "beyond their limits) holds within the round cone and is taken",
          s.t, names(), deciding));
    take(mode, solution);
    return true;
  }
  if (complementarity_only) return false;
  throw SimulationError(
      s.t, fmt::format("{}: at zero slip rate together ({} elements, decided through the "
                       "complementarity problem of Coulomb friction), no combination of stick and "
                       "slip is consistent with the sides of the normal forces at this instant "
                       "(Painleve's paradox, or a normal force changing side here{}); the rigid "
                       "model does not determine the motion. Lower mu, or model the compliance",
                       names(), deciding, not_solved()));
}

}  // namespace ictus
