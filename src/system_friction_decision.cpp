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
// N = y_i). A combination gives each element a mode: stuck, q_i'' = 0; or
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
// More than kMaxFrictionEnumerated elements, or a decision that would need
// more than kTrialBudget solves (few of many elements stuck), are decided
// through a linear complementarity problem instead (coupled_friction_lcp
// below), whose combination is then put to the same exact test.
//
// Stuck elements whose hold rows are dependent (two guides of one degree of
// freedom) leave their forces statically indeterminate: the system is
// singular, and the combination is consistent when some forces within the
// cones satisfy it. That set is a polytope; it is searched at its minimum-norm
// point and at the points where one stuck force is at its limit, which is
// exact for one degree of indeterminacy.
#include <fmt/format.h>

#include <Eigen/Dense>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "contact/lcp.h"
#include "ictus/forces/reaction_friction.h"
#include "system_impl.h"

namespace ictus {

namespace {

// linear systems one enumeration may solve: a level far down (few of many
// elements stuck) has up to C(k, s) 4^(k - s) of them
constexpr long kTrialBudget = 200000;
// as in the slip solve (system_joint_friction.cpp): a normal force counts as
// on its line while the part off it is below this fraction of its size
constexpr double kOffLine = 1e-6;

const ReactionFriction& element_of(const System::Impl& s, const System::Impl::FrictionJoint& fj) {
  return static_cast<const ReactionFriction&>(*s.forces[static_cast<std::size_t>(fj.force)]);
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
  if (inst.joint >= 0) {
    m.base = s.live_joints[static_cast<std::size_t>(inst.joint)].base;
    m.follower = s.live_joints[static_cast<std::size_t>(inst.joint)].follower;
  } else {
    m.base = inst.base;
    m.follower = inst.follower;
  }
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
  q.head(k) = a0 - C * (P * Dy0);
  q.tail(k) = 2.0 * (P * Dy0);
  const internal::LcpSolution solution = internal::solve_lcp(M, q);
  if (!solution.solved) return false;
  F = P * (solution.z.head(k) - Dy0);
  return F.allFinite();
}

}  // namespace

bool System::stick_slip_decided_together(int k) const {
  if (!stick_slip_enabled(k)) return false;
  if (stick_slip_needs_reactions(k)) return !stick_slip_has_direction(k);
  return stick_slip_element(k).slip_limit_floor() > 0.0;
}

void System::decide_friction_together(std::span<const int> elements, std::span<int> modes) {
  Impl& s = *impl_;
  s.ensure_dynamics();
  // a contact tangent whose contact is open has no friction force (N = 0)
  // and acts on nothing: it slips the way its point accelerates. The others
  // are decided together. An element with a limit of its own (dry friction)
  // is one whose normal force is its limit F_max, unchanged by the forces
  // (a row of T zero, y0 = F_max, mu = mu_s = 1, one side).
  std::vector<Impl::FrictionJoint> own;  // the own-limit elements' responses
  own.reserve(elements.size());
  std::vector<const Impl::FrictionJoint*> fj;
  std::vector<std::size_t> index;  // into elements
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const Impl::FrictionJoint* f = s.friction_joint_of_stick_slip(elements[e]);
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
    if (f->contact_side >= 0) {
      const int row = s.contact_row(f->contact_side);
      if (row < 0 || s.dropped[static_cast<std::size_t>(row)] != 0) {
        modes[e] = f->acc > 0.0 ? kSlipPositive : f->acc < 0.0 ? kSlipNegative : kStick;
        continue;
      }
    }
    fj.push_back(f);
    index.push_back(e);
  }
  const auto k = static_cast<int>(fj.size());
  if (k == 0) return;
  auto at = [&](int i) -> const Impl::FrictionJoint& { return *fj[static_cast<std::size_t>(i)]; };
  // its limit is its own F_max (not a reaction)
  auto own_limit = [&](int i) { return at(i).joint < 0 && at(i).contact_side < 0; };
  if (k == 1 && !own_limit(0)) {  // one: as it is decided alone, the others without force
    modes[index[0]] = decide_joint_friction(elements[index[0]]);
    return;
  }
  const ForceContext ctx(s.kin, s.t);
  auto names = [&]() {
    std::string out;
    for (int i = 0; i < k; ++i)
      out += fmt::format("{}{} '{}'", i == 0 ? "" : ", ",
                         own_limit(i)              ? "element"
                         : at(i).contact_side >= 0 ? "contact"
                                                   : "joint",
                         own_limit(i) ? s.forces[static_cast<std::size_t>(at(i).force)]->name()
                                      : element_of(s, at(i)).site());
    return out;
  };

  // the responses: C (accelerations), T (normal forces on their lines)
  MatX C(k, k), T(k, k);
  VecX a0(k), y0(k), current(k), mu(k), mu_static(k);
  std::vector<Vec3> t_vec(static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j) current(j) = friction_force(at(j).stick_slip);
  for (int i = 0; i < k; ++i) {
    const Impl::FrictionJoint& fi = at(i);
    a0(i) = fi.acc;
    for (int j = 0; j < k; ++j) {
      const Impl::FrictionJoint& f = at(j);
      double c = 0.0;
      if (fi.base != kGround)
        c += fi.rate_row.J_base.dot(f.unit_acc[static_cast<std::size_t>(fi.base)]);
      if (fi.follower != kGround)
        c += fi.rate_row.J_follower.dot(f.unit_acc[static_cast<std::size_t>(fi.follower)]);
      C(i, j) = c;
      a0(i) -= current(j) * c;
    }
    if (own_limit(i)) {  // |F| <= F_max stuck, F = -s F_max slipping
      mu(i) = mu_static(i) = 1.0;
      y0(i) = s.forces[static_cast<std::size_t>(fi.force)]->slip_limit(ctx);
      T.row(i).setZero();
      continue;
    }
    mu(i) = element_of(s, fi).kinetic_lever();
    mu_static(i) = element_of(s, fi).static_lever();
    Vec3 f0 = fi.transverse;
    for (int j = 0; j < k; ++j) {
      t_vec[static_cast<std::size_t>(j)] = s.friction_normal(fi, at(j).unit_mult);
      f0 -= current(j) * t_vec[static_cast<std::size_t>(j)];
    }
    // the line of the normal force: its largest vector; a contact's is x
    Vec3 line = f0;
    double scale = f0.norm();
    for (const Vec3& v : t_vec) {
      if (v.norm() > line.norm()) line = v;
      scale = std::max(scale, v.norm());
    }
    if (!(line.norm() > 0.0) || fi.contact_side >= 0) line = Vec3::UnitX();
    line.normalize();
    y0(i) = line.dot(f0);
    const double off = kOffLine * std::max(scale, 1e-300);
    bool on_line = (f0 - y0(i) * line).norm() <= off;
    for (int j = 0; j < k; ++j) {
      const Vec3& v = t_vec[static_cast<std::size_t>(j)];
      T(i, j) = line.dot(v);
      on_line = on_line && (v - T(i, j) * line).norm() <= off;
    }
    if (!on_line)
      throw SimulationError(
          s.t, fmt::format("{} '{}': several frictional joints reach zero slip at once and this "
                           "one's transverse reaction does not stay on one line (a spatial "
                           "load): ictus decides coupled joint friction for planar reactions only",
                           fi.contact_side >= 0 ? "contact" : "joint", element_of(s, fi).site()));
  }

  // tolerances: round-off of the forces and accelerations of this instant
  double force_scale = 0.0, acc_scale = 0.0;
  for (int i = 0; i < k; ++i) {
    force_scale = std::max(
        {force_scale, std::abs(y0(i)) * std::max(mu_static(i), 1.0), std::abs(current(i))});
    acc_scale = std::max(acc_scale, std::abs(a0(i)));
    for (int j = 0; j < k; ++j) acc_scale = std::max(acc_scale, std::abs(C(i, j)) * force_scale);
  }
  const double force_tol = 1e-10 * force_scale + 1e-300;
  const double acc_tol = 1e-10 * acc_scale + 1e-300;

  std::vector<int> mode(static_cast<std::size_t>(k)), best(static_cast<std::size_t>(k));
  VecX sigma(k);
  // is F (with the sides sigma of the slipping elements) a solution of combination `mode`?
  auto consistent = [&](const VecX& F) {
    if (!F.allFinite()) return false;
    const VecX y = y0 + T * F;
    const VecX acc = a0 + C * F;
    for (int i = 0; i < k; ++i) {
      const int m = mode[static_cast<std::size_t>(i)];
      const bool contact = at(i).contact_side >= 0;
      if (m == kStick) {
        const double normal = contact ? std::max(y(i), 0.0) : std::abs(y(i));
        if (std::abs(F(i)) > mu_static(i) * normal + force_tol) return false;
        if (std::abs(acc(i)) > acc_tol) return false;
      } else {
        if (sigma(i) == 0.0 ? y(i) > force_tol : sigma(i) * y(i) < -force_tol) return false;
        if (!(m * acc(i) > acc_tol)) return false;
      }
    }
    return true;
  };
  // the exact test of combination `mode` with the sides sigma: its linear
  // system solved, and the solution checked by `consistent`
  MatX A(k, k);
  VecX b(k);
  auto combination_holds = [&]() {
    bool any_stuck = false;
    for (int i = 0; i < k; ++i) {
      const int m = mode[static_cast<std::size_t>(i)];
      if (m == kStick) {  // q_i'' = 0
        A.row(i) = C.row(i);
        b(i) = -a0(i);
        any_stuck = true;
      } else {  // F_i = lambda_i y_i
        const double lambda = -m * mu(i) * sigma(i);
        A.row(i) = -lambda * T.row(i);
        A(i, i) += 1.0;
        b(i) = lambda * y0(i);
      }
    }
    const Eigen::FullPivLU<MatX> lu(A);
    if (lu.isInvertible()) return consistent(lu.solve(b));
    if (!any_stuck) return false;
    // stuck forces statically indeterminate: the minimum-norm solution,
    // then one stuck force at either limit of its cone
    auto try_rows = [&](const MatX& rows, const VecX& rhs) {
      const Eigen::CompleteOrthogonalDecomposition<MatX> cod(rows);
      const VecX F = cod.solve(rhs);
      return (rows * F - rhs).norm() <= 1e-9 * (rhs.norm() + force_scale * rows.norm()) &&
             consistent(F);
    };
    if (try_rows(A, b)) return true;
    for (int i = 0; i < k; ++i) {
      if (mode[static_cast<std::size_t>(i)] != kStick) continue;
      for (const double limit : {mu_static(i), -mu_static(i)}) {
        MatX rows(k + 1, k);
        VecX rhs(k + 1);
        rows.topRows(k) = A;
        rhs.head(k) = b;
        rows.row(k) = -limit * T.row(i);  // F_i = limit y_i
        rows(k, i) += 1.0;
        rhs(k) = limit * y0(i);
        if (try_rows(rows, rhs)) return true;
      }
    }
    return false;
  };

  // Exact enumeration, level by level, the most stuck first: the first level
  // with a consistent combination decides (static friction takes
  // precedence), so the common outcomes (all stuck, one starting to slip)
  // cost a handful of solves. False when it would exceed the budget.
  int best_count = 0;
  auto enumerate = [&]() {
    std::vector<int> slip(static_cast<std::size_t>(k));
    long trials = 0;  // linear systems solved
    for (int stuck = k; stuck >= 0 && best_count == 0; --stuck) {
      for (unsigned stuck_set = 0; stuck_set < (1u << k); ++stuck_set) {
        if (std::popcount(stuck_set) != stuck) continue;
        int slipping = 0;
        for (int i = 0; i < k; ++i)
          if ((stuck_set >> i & 1u) == 0) slip[static_cast<std::size_t>(slipping++)] = i;
        for (unsigned ways = 0; ways < (1u << slipping); ++ways) {
          for (int i = 0; i < k; ++i) mode[static_cast<std::size_t>(i)] = kStick;
          for (int j = 0; j < slipping; ++j)
            mode[static_cast<std::size_t>(slip[static_cast<std::size_t>(j)])] =
                (ways >> j & 1u) != 0 ? kSlipNegative : kSlipPositive;
          trials += 1L << slipping;
          if (trials > kTrialBudget) return false;
          for (int sides = 0; sides < (1 << slipping); ++sides) {
            sigma.setOnes();
            bool one_sided = false;  // an own limit has one side: F_max > 0
            for (int j = 0; j < slipping; ++j) {
              const int i = slip[static_cast<std::size_t>(j)];
              if ((sides >> j & 1) == 0) continue;
              sigma(i) = at(i).contact_side >= 0 ? 0.0 : -1.0;
              one_sided = one_sided || own_limit(i);
            }
            if (one_sided || !combination_holds()) continue;
            ++best_count;  // a different combination with as many stuck
            best = mode;
            break;  // one side pattern per combination suffices
          }
        }
      }
    }
    return true;
  };
  if (k <= kMaxFrictionEnumerated && enumerate()) {
    if (best_count != 1)
      throw SimulationError(
          s.t, fmt::format("{}: at zero slip rate together, Coulomb friction with the reactions "
                           "as normal forces has {} consistent combinations of stick and slip "
                           "here (Painleve's paradox); the rigid model does not determine the "
                           "motion. Lower mu, or model the compliance",
                           names(), best_count == 0 ? "no" : "several"));
    for (int i = 0; i < k; ++i)
      modes[index[static_cast<std::size_t>(i)]] = best[static_cast<std::size_t>(i)];
    return;
  }

  // Beyond the enumeration: the complementarity problem. The sides of the
  // normal forces are those of the instant, y at the left limit (with the
  // forces of the slips that end here): sigma_i = sgn(y_i) for a joint (+1
  // at zero), 1 for a pressing contact and 0 for one that does not. The
  // static LCP (mu_s, where a slip starts from rest the force is at the
  // static limit) is solved first; its combination (stuck where the
  // acceleration is zero) is then put to the exact test above, with the
  // kinetic coefficient for the slipping elements and the sides checked at
  // the solution. If it fails, the kinetic LCP's combination is tested.
  const VecX y_now = y0 + T * current;
  VecX side(k);
  for (int i = 0; i < k; ++i)
    side(i) = at(i).contact_side >= 0 ? (y_now(i) > 0.0 ? 1.0 : 0.0)
              : own_limit(i)          ? 1.0
                                      : (y_now(i) < 0.0 ? -1.0 : 1.0);
  for (const bool static_limit : {true, false}) {
    if (!static_limit && mu == mu_static) break;
    VecX F;
    if (!coupled_friction_lcp(C, T, a0, y0, (static_limit ? mu_static : mu).cwiseProduct(side), F))
      continue;
    const VecX acc = a0 + C * F;
    for (int i = 0; i < k; ++i)
      mode[static_cast<std::size_t>(i)] = std::abs(acc(i)) <= acc_tol ? kStick
                                          : acc(i) > 0.0              ? kSlipPositive
                                                                      : kSlipNegative;
    sigma = side;
    if (!combination_holds()) continue;
    for (int i = 0; i < k; ++i)
      modes[index[static_cast<std::size_t>(i)]] = mode[static_cast<std::size_t>(i)];
    return;
  }
  throw SimulationError(
      s.t, fmt::format("{}: at zero slip rate together ({} elements, decided through the "
                       "complementarity problem of Coulomb friction), no combination of stick and "
                       "slip is consistent with the sides of the normal forces at this instant "
                       "(Painleve's paradox, or a normal force changing side here); the rigid "
                       "model does not determine the motion. Lower mu, or model the compliance",
                       names(), k));
}

}  // namespace ictus
