// Coulomb friction in joints whose normal force is a reaction (seed 004:
// Wang, Peng, Wang; docs/theory/friction.md).
//
// At a given state the equations of motion are linear in the friction force
// F of a slipping joint: the accelerations, the multipliers, the joint's
// transverse reaction f and its coordinate's acceleration q'' are their
// values without friction plus F times the response to a unit friction load
// (one more back-substitution with the factorised S = D M^-1 D^T). The law
//   F = -mu |f(F)| s,   s = sgn(q') (the slip mode),   f(F) = f0 + F t
// is then solved without iteration: with N = |f| >= 0 and F = -s mu N,
//   (1 - mu^2 |t|^2) N^2 + 2 s mu (f0 . t) N - |f0|^2 = 0,
// which has exactly one root N >= 0 while mu |t| < 1 (seed 004's condition
// A1 > |A2|: there f and t are scalars and this is its rule for
// A1 y + A2 |y| + A3 = 0). Otherwise there are none or two: Painleve's
// paradox, reported with the joint and the time. Several slipping joints are
// solved by exact enumeration of the sides of their normal forces when each
// joint's transverse reaction stays on one line (guides in a plane); when
// the friction forces change the normal forces little enough for the
// solution to be unique, the sides of the normal forces without friction
// are tried first. Reactions off their lines (pins in a plane, balls) are
// solved as a fixed point of their lengths where that is a contraction,
// which makes the solution unique (spatial_slip.h).
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <array>
#include <cmath>
#include <stdexcept>

#include "contact_friction_solutions.h"
#include "friction_impulses.h"
#include "ictus/constraints/rotation_lock.h"
#include "ictus/forces/contact_friction.h"
#include "ictus/forces/joint_friction.h"
#include "system_impl.h"

namespace ictus {

namespace {

using internal::slip_normal;

// frictional joints: the sides of their normal forces (one solve when the
// solution is provably unique, else enumeration of the 2^k sides); the
// contact points' friction elements (two per point, whose normal force has
// one sign) are not enumerated, and their number is not bounded
constexpr int kMaxFrictionJoints = 16;
// at an impact every frictional joint taking part is stuck or slips either
// way (3 cases, and the sides of the slipping ones' reactions: 5^k systems)
constexpr int kMaxImpactFrictionJoints = 6;

// A contact point's normal force is signed (compressive positive) and linear
// in F: N = n0 + F t with F = -s mu N gives N (1 + s mu t) = n0. One
// solution while 1 + s mu t > 0; otherwise the normal force would have to
// grow without bound or change sign as friction grows (Painleve): none.
// A negative N is kept: the contact is then about to lift off, which its
// own switching function (N) locates.
int contact_slip_normal(double n0, double t, double mu, int s, double* normal) {
  const double a = 1.0 + s * mu * t;
  if (!(a > 0.0)) return 0;
  *normal = n0 / a;
  return 1;
}

// What the enumeration of this instant's contact combinations found, for the
// message of det(I - G T) <= 0
std::string instant_count_text(const internal::ContactFrictionSolutions& c) {
  if (!c.counted) return "";
  if (c.consistent == 0)
    return ", and no combination of the contacts open or closed, stuck or slipping is "
           "consistent at this instant";
  if (c.consistent > 1)
    return fmt::format(
        ", and {} combinations of the contacts open or closed, stuck or slipping "
        "are consistent at this instant, with {}",
        c.consistent,
        c.motions > 1 ? fmt::format("{} distinct motions", c.motions)
                      : std::string("one motion (only their forces differ)"));
  return ", and the one combination consistent at this instant opens a contact or starts a slip, "
         "which ictus does not switch to here";
}

// mu_t: mu |dN/dF| of a single joint (its uniqueness needs mu_t < 1), or NaN
// for several coupled joints
[[noreturn]] void painleve(double t, const std::string& site, int solutions, double mu_t) {
  const std::string why = std::isnan(mu_t) ? std::string("slipping together")
                                           : fmt::format("mu |dN/dF| = {:.6g} >= 1", mu_t);
  throw SimulationError(
      t, fmt::format("{}: Coulomb friction with the reaction as normal force has {} "
                     "consistent solutions here ({}: Painleve's paradox); the rigid model does "
                     "not determine the motion. Lower mu, or model the guide's compliance",
                     site, solutions == 0 ? "no" : "several", why));
}

}  // namespace

void System::Impl::build_joint_friction() {
  for (std::size_t k = 0; k < stick_slip_forces.size(); ++k) {
    const int f = stick_slip_forces[k];
    const ForceElement& element = *forces[static_cast<std::size_t>(f)];
    FrictionJoint fj;
    fj.force = f;
    fj.stick_slip = static_cast<int>(k);
    if (const auto* e = dynamic_cast<const JointFrictionElement*>(&element)) {
      fj.joint = model.find_joint(e->joint());
      fj.base = live_joints[static_cast<std::size_t>(fj.joint)].base;
      fj.follower = live_joints[static_cast<std::size_t>(fj.joint)].follower;
      fj.ball = e->ball();
      if (fj.ball)
        for (std::vector<Vec6>& acc : fj.axis_acc)
          acc.assign(static_cast<std::size_t>(n), Vec6::Zero());
    } else if (const auto* c = dynamic_cast<const ContactFrictionElement*>(&element)) {
      std::shared_ptr<const ElementaryConstraint> row;
      c->hold_constraint(&fj.base, &fj.follower, &row);  // its side: link_contact_friction
    } else {
      continue;
    }
    fj.unit_acc.assign(static_cast<std::size_t>(n), Vec6::Zero());
    friction_joints.push_back(std::move(fj));
  }
  int joints = 0;
  for (const FrictionJoint& fj : friction_joints) {
    const ForceElement& e = *forces[static_cast<std::size_t>(fj.force)];
    if (fj.joint >= 0 && ++joints > kMaxFrictionJoints)
      throw ModelError(e.where(), e.element_label(),
                       fmt::format("at most {} joints may have friction (the friction forces are "
                                   "solved by enumerating the sides of their normal forces)",
                                   kMaxFrictionJoints));
  }
  const std::size_t elements = friction_joints.size();
  slip_set.assign(elements, nullptr);
  slip_force.assign(elements, 0.0);
  coupled_slip.reserve(static_cast<int>(elements));
  spatial_slip.reserve(static_cast<int>(elements));
  unit_loads.assign(static_cast<std::size_t>(n), BodyLoad{});
}

void System::Impl::link_contact_friction() {
  side_friction.assign(contact_sides.size(), {-1, -1});
  for (std::size_t i = 0; i < friction_joints.size(); ++i) {
    FrictionJoint& fj = friction_joints[i];
    const auto* c = dynamic_cast<const ContactFrictionElement*>(
        forces[static_cast<std::size_t>(fj.force)].get());
    if (c == nullptr) continue;
    for (std::size_t k = 0; k < contact_sides.size(); ++k)
      if (contact_sides[k].name == c->side()) {
        fj.contact_side = static_cast<int>(k);
        side_friction[k][static_cast<std::size_t>(c->axis())] = static_cast<int>(i);
      }
  }
}

Vec3 System::Impl::friction_normal(const FrictionJoint& fj, const VecX& p) const {
  if (fj.contact_side < 0) {
    const ForceContext ctx(kin, t);
    const auto& e =
        static_cast<const JointFrictionElement&>(*forces[static_cast<std::size_t>(fj.force)]);
    // a ball's normal force is its whole reaction force (docs/theory/friction.md)
    return transverse_reaction(fj.joint, p, e.ball() ? Vec3::Zero() : e.axis_W(ctx));
  }
  // a dependent row's share too (system_dependent_contacts.cpp)
  const int row = contact_row(fj.contact_side);
  if (row < 0) return Vec3::Zero();
  return Vec3(contact_sides[static_cast<std::size_t>(fj.contact_side)].sign * p(row), 0.0, 0.0);
}

System::Impl::FrictionJoint* System::Impl::friction_joint_of_stick_slip(int k) {
  for (FrictionJoint& fj : friction_joints)
    if (fj.stick_slip == k) return &fj;
  return nullptr;
}

Vec3 System::Impl::transverse_reaction(int j, const VecX& p, const Vec3& axis) const {
  const JointRows& jr = joint_rows[static_cast<std::size_t>(j)];
  Vec3 f = Vec3::Zero();
  for (int r = jr.begin; r < jr.end; ++r) {
    const auto ri = static_cast<std::size_t>(r);
    // the hold row of a stuck joint (a driver row) carries the friction, not N
    if (dropped[ri] != 0 || instances[static_cast<std::size_t>(row_info[ri].instance)].driver >= 0)
      continue;
    f += p(r) * rows[ri].J_follower.head<3>();
  }
  return f - axis * axis.dot(f);
}

void System::Impl::unit_response(const FrictionJoint& fj, const Vec3* moment_W,
                                 std::vector<Vec6>& acc, VecX& mult) {
  const ForceContext ctx(kin, t);
  for (BodyLoad& l : unit_loads) l = BodyLoad{};
  LoadAccumulator accumulator(unit_loads);
  if (moment_W == nullptr) {
    forces[static_cast<std::size_t>(fj.force)]->add_slip_load(ctx, accumulator, 1.0);
  } else {
    accumulator.add_torque_W(fj.follower, ctx.body(fj.follower), *moment_W);
    accumulator.add_torque_W(fj.base, ctx.body(fj.base), -*moment_W);
  }
  const auto m = static_cast<Eigen::Index>(rows.size());
  if (mult.size() != m) mult.resize(m);                          // at structure changes only
  if (unit_zero_rhs.size() != m) unit_zero_rhs = VecX::Zero(m);  // likewise
  auto unit_load = [this](BodyIndex b) {
    const BodyLoad& l = unit_loads[static_cast<std::size_t>(b)];
    return (Vec6() << l.force_W, l.torque_B).finished();
  };
  if (inertia_ill_conditioned) {
    if (!kkt.solve(D, unit_load, unit_zero_rhs, dropped, acc, mult))
      throw SimulationError(t, kMassesOutOfRange);
  } else if (tree_used && tree_may_solve() && tree.factorize(rows)) {
    // the dynamics went through the tree (no frictional joint: elements with
    // a limit of their own, own_limit_member), and `solver` holds S of an
    // earlier state: the tree's factorisation, kept where the rows are those
    // it was made for, gives the response with D u' = 0
    tree.solve(unit_load, unit_zero_rhs, acc, mult);
  } else {
    // `solver` holds the kept rows' S unless the dynamics went through the tree
    if (tree_used) {
      solver.assemble(rows, inverse_mass, dropped);
      if (!solver.factorize()) throw SimulationError(t, kMassesOutOfRange);
    }
    respond_to_unit_loads(dropped, acc, mult);
  }
  press_dependent_contacts(mult);  // as the dynamics' multipliers
}

// the body's acceleration under unit_loads with no constraint rows
Vec6 System::Impl::free_acceleration(BodyIndex b) const {
  const auto i = static_cast<std::size_t>(b);
  Vec6 a;
  a.head<3>() = inverse_mass[i].inv_mass * unit_loads[i].force_W;
  a.tail<3>() = inverse_mass[i].inv_inertia * unit_loads[i].torque_B;
  return a;
}

double System::Impl::free_response_along(int force, const ConstraintRow& row, BodyIndex base,
                                         BodyIndex follower) {
  if (inertia_ill_conditioned) return 0.0;
  // the slip load acts on the row's two bodies alone: no allocation (a
  // locked element's switching function asks at every step)
  const ForceContext ctx(kin, t);
  for (BodyLoad& l : unit_loads) l = BodyLoad{};
  LoadAccumulator accumulator(unit_loads);
  forces[static_cast<std::size_t>(force)]->add_slip_load(ctx, accumulator, 1.0);
  double response = 0.0;
  if (base != kGround) response += row.J_base.dot(free_acceleration(base));
  if (follower != kGround) response += row.J_follower.dot(free_acceleration(follower));
  response = std::abs(response);
  return std::isfinite(response) ? response : 0.0;
}

double System::Impl::free_response(const FrictionJoint& fj) {
  if (inertia_ill_conditioned) return 0.0;
  if (!fj.ball) return free_response_along(fj.force, fj.rate_row, fj.base, fj.follower);
  const ForceContext ctx(kin, t);
  std::vector<Vec6> acc(static_cast<std::size_t>(n), Vec6::Zero());
  Mat3 K;  // symmetric, positive definite: its least eigenvalue
  for (int q = 0; q < 3; ++q) {
    for (BodyLoad& l : unit_loads) l = BodyLoad{};
    LoadAccumulator accumulator(unit_loads);
    accumulator.add_torque_W(fj.follower, ctx.body(fj.follower), Vec3::Unit(q));
    accumulator.add_torque_W(fj.base, ctx.body(fj.base), -Vec3::Unit(q));
    for (int b = 0; b < n; ++b) acc[static_cast<std::size_t>(b)] = free_acceleration(b);
    K.col(q) = relative_angular_acceleration(fj, acc);
  }
  if (!K.allFinite()) return 0.0;
  const double response = std::abs(
      Eigen::SelfAdjointEigenSolver<Mat3>(0.5 * (K + K.transpose()), Eigen::EigenvaluesOnly)
          .eigenvalues()
          .minCoeff());
  return std::isfinite(response) ? response : 0.0;
}

double System::Impl::locked_force_scale(const FrictionJoint& fj, const ReactionFriction& e,
                                        double force) const {
  const Vec3 normal = fj.transverse - force * fj.unit_transverse;  // without the force
  return std::max(normal.norm() * std::max(e.static_lever(), 1.0), std::abs(force));
}

void System::Impl::respond_to_unit_loads(const std::vector<char>& excluded, std::vector<Vec6>& acc,
                                         VecX& mult) {
  const auto m = static_cast<Eigen::Index>(rows.size());
  for (int b = 0; b < n; ++b) {
    const auto i = static_cast<std::size_t>(b);
    acc[i].head<3>() = inverse_mass[i].inv_mass * unit_loads[i].force_W;
    acc[i].tail<3>() = inverse_mass[i].inv_inertia * unit_loads[i].torque_B;
  }
  for (Eigen::Index r = 0; r < m; ++r)
    mult(r) = excluded[static_cast<std::size_t>(r)] != 0
                  ? 0.0
                  : -D.row_times(static_cast<int>(r), [&acc](BodyIndex b) -> const Vec6& {
                      return acc[static_cast<std::size_t>(b)];
                    });
  solver.solve_in_place(mult);
  for (Eigen::Index r = 0; r < m; ++r)
    if (excluded[static_cast<std::size_t>(r)] == 0)
      D.add_inverse_mass_transpose(
          static_cast<int>(r), mult(r), inverse_mass,
          [&acc](BodyIndex b) -> Vec6& { return acc[static_cast<std::size_t>(b)]; });
}

void System::Impl::unit_friction_response(FrictionJoint& fj) {
  unit_response(fj, nullptr, fj.unit_acc, fj.unit_mult);
  fj.unit_transverse = friction_normal(fj, fj.unit_mult);
  fj.unit_acc_q = 0.0;
  if (fj.base != kGround)
    fj.unit_acc_q += fj.rate_row.J_base.dot(fj.unit_acc[static_cast<std::size_t>(fj.base)]);
  if (fj.follower != kGround)
    fj.unit_acc_q += fj.rate_row.J_follower.dot(fj.unit_acc[static_cast<std::size_t>(fj.follower)]);
  fj.unit_valid = true;
}

Vec3 System::Impl::relative_angular_acceleration(const FrictionJoint& fj,
                                                 const std::vector<Vec6>& acc) const {
  // d/dt (R w_B) = R w_B' (the body's own w x w vanishes)
  Vec3 a = Vec3::Zero();
  if (fj.follower != kGround)
    a += kinematics(fj.follower).R_WB * acc[static_cast<std::size_t>(fj.follower)].tail<3>();
  if (fj.base != kGround)
    a -= kinematics(fj.base).R_WB * acc[static_cast<std::size_t>(fj.base)].tail<3>();
  return a;
}

// Rows of the hold that the other rows make dependent are dropped (a planar
// joint beside the ball locks two of its rotations): the moment along the
// directions the others lock is statically indeterminate, and the kept
// rows' multipliers alone put it along their axes, sqrt(2) times the moment
// needed about the planar's normal d = (1, 1, 0)/sqrt(2), beyond the static
// limit where the least is within it (a stick let go at once, again and
// again). Those directions are the hold's parts of the self-stresses
// (multipliers that move nothing: the dropped hold row's axis less the kept
// ones it depends on); the least moment, the one the friction cone always
// admits, has none of them.
Vec3 System::Impl::ball_hold_moment(const FrictionJoint& fj) const {
  const int row = hold_row(fj.stick_slip);
  if (row < 0) return Vec3::Zero();
  const Mat3& R = kinematics(fj.base).R_WB;
  Vec3 moment =
      multiplier(row) * R.col(0) + multiplier(row + 1) * R.col(1) + multiplier(row + 2) * R.col(2);
  std::array<Vec3, 3> locked;  // orthonormal
  int count = 0;
  for (const auto& mode : self_stress) {
    Vec3 v = Vec3::Zero();
    for (const auto& [r, coefficient] : mode)
      if (r >= row && r < row + 3) v += coefficient * R.col(r - row);
    for (int i = 0; i < count; ++i)
      v -= locked[static_cast<std::size_t>(i)].dot(v) * locked[static_cast<std::size_t>(i)];
    if (count < 3 && v.norm() > 1e-9) locked[static_cast<std::size_t>(count++)] = v.normalized();
  }
  for (int i = 0; i < count; ++i)
    moment -= locked[static_cast<std::size_t>(i)].dot(moment) * locked[static_cast<std::size_t>(i)];
  return moment;
}

void System::Impl::solve_joint_friction() {
  slips_unsolved = false;
  if (friction_joints.empty()) return;
  const ForceContext ctx(kin, t);
  // q'' of joint i for the body accelerations `acc`
  auto coordinate_acceleration = [&](const FrictionJoint& fj, const std::vector<Vec6>& acc,
                                     bool with_gamma) {
    double a = with_gamma ? -fj.rate_row.gamma : 0.0;
    if (fj.base != kGround) a += fj.rate_row.J_base.dot(acc[static_cast<std::size_t>(fj.base)]);
    if (fj.follower != kGround)
      a += fj.rate_row.J_follower.dot(acc[static_cast<std::size_t>(fj.follower)]);
    return a;
  };
  // 1. without the slip friction: each joint's transverse reaction, q'' and
  //    their response to a unit friction force of the slipping ones
  for (FrictionJoint& fj : friction_joints) {
    ReactionFriction& e = friction_element(fj);
    fj.unit_valid = false;
    if (force_enabled[static_cast<std::size_t>(fj.force)] == 0) {
      e.set_solution(0.0, 0.0);
      continue;
    }
    const DriverRuntime& hold =
        drivers[static_cast<std::size_t>(hold_driver[static_cast<std::size_t>(fj.stick_slip)])];
    const ConstraintContext cc{kinematics(fj.base), kinematics(fj.follower), t, MotionSample{}};
    if (fj.ball) {
      // the rate along the slip axis (fixed in the base), as a rotation lock about it
      const Vec3& axis = static_cast<const JointFrictionElement&>(e).slip_axis_B();
      RotationLock(axis, axis).evaluate(cc, std::span<ConstraintRow>(&fj.rate_row, 1));
    } else {
      instances[static_cast<std::size_t>(hold.instance)].constraint->evaluate(
          cc, std::span<ConstraintRow>(&fj.rate_row, 1));
    }
    fj.transverse = friction_normal(fj, multipliers);
    fj.acc = coordinate_acceleration(fj, accelerations, true);
    // an open contact's tangent has no normal force: no friction to solve
    const bool pressed = fj.contact_side < 0 || contact_row(fj.contact_side) >= 0;
    if (e.mode() != kStick && pressed) unit_friction_response(fj);
  }
  // 2. the friction forces of the slipping joints
  int count = 0;
  for (FrictionJoint& fj : friction_joints)
    if (fj.unit_valid) slip_set[static_cast<std::size_t>(count++)] = &fj;
  auto slip = [&](int i) -> FrictionJoint& { return *slip_set[static_cast<std::size_t>(i)]; };
  // in a decision's solve (slips_may_stay_unsolved), a slip force without a
  // unique solution is left out: the decision subtracts the forces it reads
  auto leave_unsolved = [this]() {
    slips_unsolved = true;
    return 0.0;
  };
  // one element alone: the quadratic of its normal force (equation (1))
  auto slip_alone = [&](const FrictionJoint& fj) {
    const ReactionFriction& e = friction_element(fj);
    const double mu = e.kinetic_lever();
    double normal = 0.0;
    const int roots =
        fj.contact_side >= 0
            ? contact_slip_normal(fj.transverse.x(), fj.unit_transverse.x(), mu, e.mode(), &normal)
            : slip_normal(fj.transverse, fj.unit_transverse, mu, e.mode(), &normal);
    if (roots != 1) {
      if (slips_may_stay_unsolved) return leave_unsolved();
      painleve(t, friction_site(fj), roots, mu * fj.unit_transverse.norm());
    }
    return -e.mode() * mu * normal;
  };
  // a slipping ball whose normal force no other's friction changes, and
  // whose friction changes no other's, is solved alone (its reaction is
  // spatial, not on a line): moved to the end of the set
  int together = count;
  if (count > 1) {
    auto alone = [&](const FrictionJoint& fi) {
      if (!fi.ball) return false;
      for (int j = 0; j < count; ++j) {
        const FrictionJoint& fj = slip(j);
        if (&fj == &fi) continue;
        const double tiny =
            1e-12 * std::max({fi.unit_transverse.norm(), fj.unit_transverse.norm(), 1.0});
        if (friction_normal(fi, fj.unit_mult).norm() > tiny ||
            friction_normal(fj, fi.unit_mult).norm() > tiny)
          return false;
      }
      return true;
    };
    for (int i = 0; i < together;) {
      if (alone(slip(i))) {
        --together;
        std::swap(slip_set[static_cast<std::size_t>(i)],
                  slip_set[static_cast<std::size_t>(together)]);
      } else {
        ++i;
      }
    }
    for (int i = together; i < count; ++i)
      slip_force[static_cast<std::size_t>(i)] = slip_alone(slip(i));
  }
  if (together == 1) {
    slip_force[0] = slip_alone(slip(0));
  } else if (together > 1) {
    // several: N_i = |y_i| with y_i = e_i . f_i on a line e_i per joint
    // (coupled_slip.h, exact enumeration), else N_i = |f_i| (spatial_slip.h)
    internal::CoupledSlip& set = coupled_slip;
    set.start(together);
    bool on_lines = true;
    for (int i = 0; i < together; ++i) {
      FrictionJoint& fi = slip(i);
      const ReactionFriction& ei = friction_element(fi);
      Vec3 line = fi.transverse;
      double scale = line.norm();
      for (int j = 0; j < together; ++j) {
        const Vec3 tij = friction_normal(fi, slip(j).unit_mult);
        if (tij.norm() > line.norm()) line = tij;
        scale = std::max(scale, tij.norm());
      }
      // no transverse reaction at all; a contact's normal force is its x entry
      if (!(line.norm() > 0.0) || fi.contact_side >= 0) line = Vec3::UnitX();
      line.normalize();
      const double y0 = line.dot(fi.transverse);
      set.set_element(i, y0, -ei.mode() * ei.kinetic_lever(), fi.contact_side < 0);
      bool on_line = (fi.transverse - y0 * line).norm() <=
                     internal::kOffLineFraction * std::max(scale, 1e-300);
      for (int j = 0; j < together; ++j) {
        const Vec3 tij = friction_normal(fi, slip(j).unit_mult);
        set.set_response(i, j, line.dot(tij));
        on_line = on_line && (tij - set.response(i, j) * line).norm() <=
                                 internal::kOffLineFraction * std::max(scale, 1e-300);
      }
      on_lines = on_lines && on_line;
    }
    bool contacts = false;
    for (int i = 0; i < together; ++i) contacts = contacts || slip(i).contact_side >= 0;
    // the sites of the slipping elements that press (a contact point's two
    // tangents once; an open contact has no friction)
    auto sites = [&]() {
      std::string out;
      for (int i = 0; i < together; ++i) {
        const FrictionJoint& fi = slip(i);
        if (fi.contact_side >= 0 && contact_row(fi.contact_side) < 0) continue;
        const std::string label = friction_site(fi);
        if (out.find(label) == std::string::npos) out += (out.empty() ? "" : ", ") + label;
      }
      return out;
    };
    if (!on_lines) {
      // reactions off their lines (a pin's in its plane, a ball's in space):
      // solved where the solution is provably unique (its contraction
      // bound), which also makes det(I - D phi) > 0 for the contacts
      internal::SpatialSlip& spatial = spatial_slip;
      spatial.start(together);
      for (int i = 0; i < together; ++i) {
        const FrictionJoint& fi = slip(i);
        const ReactionFriction& ei = friction_element(fi);
        spatial.set_element(i, fi.transverse, -ei.mode() * ei.kinetic_lever(), fi.contact_side < 0);
        for (int j = 0; j < together; ++j)
          spatial.set_response(i, j, friction_normal(fi, slip(j).unit_mult));
      }
      const internal::SpatialSlip::Result solved = spatial.solve();
      if (!solved.solved && slips_may_stay_unsolved) {
        for (int i = 0; i < together; ++i)
          slip_force[static_cast<std::size_t>(i)] = leave_unsolved();
      } else if (!solved.solved) {
        throw SimulationError(
            t, fmt::format("{}: slipping together with reactions that do not stay on one line, "
                           "Coulomb friction with the reactions as normal forces is not solved "
                           "here: {}; the rigid model may not determine the motion. Lower mu, "
                           "or model the joints' compliance",
                           sites(), solved.why_not_solved()));
      } else {
        for (int i = 0; i < together; ++i)
          slip_force[static_cast<std::size_t>(i)] = spatial.force(i);
      }
    } else {
      const internal::CoupledSlip::Result solved = set.solve();
      bool unique = solved.found == 1;
      if (!unique && !slips_may_stay_unsolved) painleve(t, sites(), solved.found, std::nan(""));
      // with contacts (normal forces of one sign) the slipping problem is
      // well posed only while N = (I - G T)^-1 y0 grows with what presses the
      // points: det(I - G T) > 0, the several-point form of 1 + s mu t > 0 of
      // equation (2). Otherwise the normal forces fall as the load grows: with
      // the points closed some would pull, open they would fall in (no
      // solution), or both would do (several): Painleve
      // det(I - G T) <= 0 is a condition for every load: this instant may
      // still have one solution, the current one (contact_friction_solutions.h)
      if (unique && contacts && !(solved.determinant > 0.0)) {
        const internal::ContactFrictionSolutions at_instant =
            internal::count_contact_friction_solutions(*this);
        const bool one = at_instant.counted && at_instant.consistent == 1 &&
                         (at_instant.current || at_instant.provisional);
        if (!one && slips_may_stay_unsolved)
          unique = false;
        else if (!one)
          throw SimulationError(
              t, fmt::format("{}: slipping together, Coulomb friction with the contacts' normal "
                             "forces has no unique solution here (det(I - G T) = {:.6g} <= 0: the "
                             "normal forces would fall as what presses the points grows{}; "
                             "Painleve's paradox); the rigid model does not determine the motion. "
                             "Lower mu, or model the contacts' compliance",
                             sites(), solved.determinant, instant_count_text(at_instant)));
      }
      for (int i = 0; i < together; ++i)
        slip_force[static_cast<std::size_t>(i)] = unique ? set.force(i) : leave_unsolved();
    }
  }
  // 3. superpose: accelerations, multipliers, driver power and dissipation
  for (int i = 0; i < count; ++i) {
    const FrictionJoint& fj = slip(i);
    const double F = slip_force[static_cast<std::size_t>(i)];
    for (int b = 0; b < n; ++b)
      accelerations[static_cast<std::size_t>(b)] += F * fj.unit_acc[static_cast<std::size_t>(b)];
    multipliers += F * fj.unit_mult;
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (row_carries(static_cast<int>(r)) &&
          instances[static_cast<std::size_t>(row_info[r].instance)].driver >= 0)
        driver_power +=
            F * fj.unit_mult(static_cast<Eigen::Index>(r)) * row_rate(static_cast<int>(r));
    // F opposes the slip: its power F q' <= 0 is dissipated
    power.dissipated -= F * friction_element(fj).load_rate(ctx);
  }
  // 4. the values at the solution, for the channels and the switching; the
  //    split of dependent stuck holds first (system_dependent_holds.cpp)
  spread_dependent_holds();
  for (FrictionJoint& fj : friction_joints) {
    ReactionFriction& e = friction_element(fj);
    if (force_enabled[static_cast<std::size_t>(fj.force)] == 0) continue;
    fj.transverse = friction_normal(fj, multipliers);
    fj.acc = coordinate_acceleration(fj, accelerations, true);
    double F = 0.0;
    for (int i = 0; i < count; ++i)
      if (&slip(i) == &fj) F = slip_force[static_cast<std::size_t>(i)];
    if (e.mode() == kStick && fj.ball) {
      F = ball_hold_moment(fj).norm();  // a ball's holding moment has a direction, not a sign
    } else if (e.mode() == kStick) {
      const int row = hold_row(fj.stick_slip);
      F = row < 0 ? 0.0 : multiplier(row);
    }
    // a contact's normal force is signed; it presses only while positive
    e.set_solution(fj.contact_side >= 0 ? std::max(fj.transverse.x(), 0.0) : fj.transverse.norm(),
                   F);
  }
}

// --- at an impact -----------------------------------------------------------

bool System::Impl::holds_through_impact(const FrictionJoint& fj,
                                        const std::vector<char>& excluded) const {
  if (fj.joint < 0 || fj.ball || force_enabled[static_cast<std::size_t>(fj.force)] == 0)
    return false;
  if (forces[static_cast<std::size_t>(fj.force)]->mode() != kStick) return false;
  const int row = hold_row(fj.stick_slip);
  // a hold just switched on (a stick's plastic impact) is the impact itself
  return row >= 0 && excluded[static_cast<std::size_t>(row)] == 0 &&
         newly_active[static_cast<std::size_t>(row_info[static_cast<std::size_t>(row)].instance)] ==
             0;
}

// Coulomb's law at the impulse level on the frictional joints (docs/theory/
// friction.md, "Friction impulses in an impact"): a joint's friction impulse
// F lies in -mu |P_N| Sign(v+), P_N its transverse reaction impulse (radial
// for a pin, F then an angular impulse) and v+ its rate after the impact;
// mu_s for a joint stuck before the impact (it was at rest), mu otherwise.
// When every stuck joint's hold impulse is within mu_s |P_N| and no slipping
// joint takes a transverse impulse, the impact as solved obeys it (F = 0 at
// the slipping joints). Otherwise the impact is solved again without the
// stuck joints' hold rows, where each joint's v+ and P_N are affine in the
// friction impulses (one back-substitution per joint), and the joints whose
// impulses reach each other are decided together (friction_impulses.h); a
// stuck joint whose hold row is dependent takes part with no impulse so far.
std::vector<int> System::Impl::impact_joint_friction(double time, VecX& state, const VecX& u_before,
                                                     std::vector<char>& excluded, VecX& p,
                                                     ImpulseResult& result, bool with_balls) {
  std::vector<int> released;
  if (rows.empty()) return released;
  const double scale = p.lpNorm<Eigen::Infinity>();
  auto slipping = [&](const FrictionJoint& fj) {
    return fj.joint >= 0 && !fj.ball && force_enabled[static_cast<std::size_t>(fj.force)] != 0 &&
           forces[static_cast<std::size_t>(fj.force)]->mode() != kStick;
  };
  // what asks for friction impulses: a hold beyond mu_s |P_N|, a slipping
  // joint pressed across
  std::vector<FrictionJoint*> joints;
  std::vector<char> needs;
  std::vector<double> held;  // a stuck joint's hold impulse as solved, else 0
  std::string needing;
  // a stuck joint whose hold row is dependent (two guides of one motion)
  // takes part with no impulse of its own so far: the others' holds took it
  auto dependent_hold = [&](const FrictionJoint& fj) {
    if (fj.joint < 0 || fj.ball || force_enabled[static_cast<std::size_t>(fj.force)] == 0 ||
        forces[static_cast<std::size_t>(fj.force)]->mode() != kStick)
      return false;
    const int row = hold_row(fj.stick_slip);
    return row >= 0 && dropped[static_cast<std::size_t>(row)] != 0 &&
           newly_active[static_cast<std::size_t>(
               row_info[static_cast<std::size_t>(row)].instance)] == 0;
  };
  for (FrictionJoint& fj : friction_joints) {
    const bool holds = holds_through_impact(fj, excluded);
    if (!holds && !slipping(fj) && !dependent_hold(fj)) continue;
    joints.push_back(&fj);
    const double normal = friction_normal(fj, p).norm();
    held.push_back(holds ? p(hold_row(fj.stick_slip)) : 0.0);
    needs.push_back(holds ? std::abs(held.back()) >
                                friction_element(fj).static_lever() * normal + 1e-12 * scale
                          : slipping(fj) && normal > 1e-9 * scale);
    if (needs.back() != 0) needing += (needing.empty() ? "" : ", ") + friction_site(fj);
  }
  // the balls (system_ball_friction.cpp), when one asks
  std::vector<BallInImpact> balls =
      with_balls ? balls_in_impact(excluded, p, needing) : std::vector<BallInImpact>{};
  if (needing.empty()) return released;
  // (the impact as first solved, to decide it again without the balls)
  const std::vector<char> first_excluded = balls.empty() ? std::vector<char>{} : excluded;
  const VecX first_p = balls.empty() ? VecX() : p;
  const VecX first_u = balls.empty() ? VecX() : VecX(layout.velocities(state));
  const ImpulseResult first_result = balls.empty() ? ImpulseResult{} : result;
  const auto count = static_cast<int>(joints.size());

  // the impact without the stuck joints' hold rows
  layout.velocities(state) = u_before;
  compute_kinematics(time, state);
  std::vector<int> holds(joints.size(), -1);
  for (std::size_t i = 0; i < joints.size(); ++i)
    if (!slipping(*joints[i])) {
      holds[i] = hold_row(joints[i]->stick_slip);
      excluded[static_cast<std::size_t>(holds[i])] = 1;
    }
  for (const BallInImpact& ball : balls)
    for (int k = 0; k < 3 && ball.hold >= 0; ++k)
      excluded[static_cast<std::size_t>(ball.hold + k)] = 1;
  solver.assemble(rows, inverse_mass, excluded);
  if (!solver.factorize())
    throw SimulationError(time, fmt::format("{}: the impact without the stuck joints' friction "
                                            "is singular",
                                            needing));
  for (std::size_t r = 0; r < rows.size(); ++r)
    p(static_cast<Eigen::Index>(r)) =
        excluded[r] != 0 ? 0.0 : rhs(static_cast<Eigen::Index>(r)) - row_rate(static_cast<int>(r));
  solver.solve_in_place(p);
  auto velocity = [&](BodyIndex b) { return layout.body_velocity(state, b); };
  D.add_inverse_mass_transpose(p, inverse_mass, excluded, velocity);
  compute_kinematics(time, state);

  // each joint's rate along its hold row's geometry (q' = D_q u), and the
  // response to a unit friction impulse at each (its velocity change du and
  // impulses dp, kept in the joint's unit workspace)
  auto rate_of = [&](const FrictionJoint& fj, auto&& body_velocity) {
    double v = 0.0;
    if (fj.base != kGround) v += fj.rate_row.J_base.dot(body_velocity(fj.base));
    if (fj.follower != kGround) v += fj.rate_row.J_follower.dot(body_velocity(fj.follower));
    return v;
  };
  const ForceContext ctx(kin, t);
  for (FrictionJoint* fj : joints) {
    const DriverRuntime& hold =
        drivers[static_cast<std::size_t>(hold_driver[static_cast<std::size_t>(fj->stick_slip)])];
    const ConstraintContext cc{kinematics(fj->base), kinematics(fj->follower), t, MotionSample{}};
    instances[static_cast<std::size_t>(hold.instance)].constraint->evaluate(
        cc, std::span<ConstraintRow>(&fj->rate_row, 1));
    for (BodyLoad& l : unit_loads) l = BodyLoad{};
    LoadAccumulator accumulator(unit_loads);
    forces[static_cast<std::size_t>(fj->force)]->add_slip_load(ctx, accumulator, 1.0);
    if (fj->unit_mult.size() != p.size()) fj->unit_mult.resize(p.size());
    respond_to_unit_loads(excluded, fj->unit_acc, fj->unit_mult);
    fj->unit_valid = false;  // not the dynamics' response
  }
  // v+ = v0 + C F and P_N,i = P0_i + sum_j R_ij F_j of every joint taking part
  VecX v0(count);
  MatX C(count, count);
  std::vector<Vec3> P0(joints.size()), R(joints.size() * joints.size());
  for (int i = 0; i < count; ++i) {
    const FrictionJoint& fi = *joints[static_cast<std::size_t>(i)];
    v0(i) = rate_of(fi, velocity);
    P0[static_cast<std::size_t>(i)] = friction_normal(fi, p);
    for (int j = 0; j < count; ++j) {
      const FrictionJoint& fjj = *joints[static_cast<std::size_t>(j)];
      const auto& du = fjj.unit_acc;
      C(i, j) = rate_of(
          fi, [&du](BodyIndex b) -> const Vec6& { return du[static_cast<std::size_t>(b)]; });
      R[static_cast<std::size_t>(i * count + j)] = friction_normal(fi, fjj.unit_mult);
    }
  }
  // joints whose friction impulses change each other's rates or reactions
  // are decided together; a group that asks for nothing keeps the impulses
  // as first solved (its holds', exact: the other groups do not reach it)
  std::vector<int> group(joints.size());
  for (int i = 0; i < count; ++i) group[static_cast<std::size_t>(i)] = i;
  auto root = [&group](int i) {
    while (group[static_cast<std::size_t>(i)] != i) i = group[static_cast<std::size_t>(i)];
    return i;
  };
  const double coupling = 1e-12 * std::max(count > 0 ? C.cwiseAbs().maxCoeff() : 0.0, 1e-300);
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j)
      if (i != j && (std::abs(C(i, j)) > coupling ||
                     R[static_cast<std::size_t>(i * count + j)].norm() > 1e-12))
        group[static_cast<std::size_t>(root(i))] = root(j);
  // the balls, each alone; a joint whose group asks changes its impulses,
  // which must then not reach a ball (nor an asking ball a joint)
  if (!balls.empty()) {
    std::vector<char> changes(joints.size(), 0);
    for (int i = 0; i < count; ++i)
      if (needs[static_cast<std::size_t>(i)] != 0)
        for (int j = 0; j < count; ++j)
          if (root(j) == root(i)) changes[static_cast<std::size_t>(j)] = 1;
    try {
      solve_ball_impulses(time, balls, joints, changes, excluded, state, p, result);
    } catch (const BallImpulseNotDecided& not_decided) {
      // decided again from the impact as first solved, without the balls
      warn(
          fmt::format("{}: its friction impulse in an impact is not decided ({}; ictus decides "
                      "a ball alone): its stuck hold took the impulse whole, or, slipping, it "
                      "took none",
                      not_decided.ball, not_decided.why));
      excluded = first_excluded;
      p = first_p;
      result = first_result;
      layout.velocities(state) = first_u;
      compute_kinematics(time, state);
      return impact_joint_friction(time, state, u_before, excluded, p, result, false);
    }
  }
  std::vector<double> impulse(held);
  std::vector<int> mode(joints.size(), kStick);
  for (int g = 0; g < count; ++g) {
    if (root(g) != g) continue;
    std::vector<int> members;
    bool asks = false;
    for (int i = 0; i < count; ++i)
      if (root(i) == g) {
        members.push_back(i);
        asks = asks || needs[static_cast<std::size_t>(i)] != 0;
      }
    if (!asks) continue;
    std::string sites;
    for (const int i : members)
      sites += (sites.empty() ? "" : ", ") + friction_site(*joints[static_cast<std::size_t>(i)]);
    const auto size = static_cast<int>(members.size());
    if (size > kMaxImpactFrictionJoints)
      throw SimulationError(
          time, fmt::format("{}: the impact takes friction impulses at {} coupled joints; ictus "
                            "decides at most {} coupled frictional joints in one impact (3 "
                            "cases each)",
                            sites, size, kMaxImpactFrictionJoints));
    internal::FrictionImpulses problem;
    problem.start(size);
    for (int a = 0; a < size; ++a) {
      const int i = members[static_cast<std::size_t>(a)];
      const ReactionFriction& e = friction_element(*joints[static_cast<std::size_t>(i)]);
      problem.set_joint(
          a, v0(i), P0[static_cast<std::size_t>(i)],
          slipping(*joints[static_cast<std::size_t>(i)]) ? e.kinetic_lever() : e.static_lever());
      for (int b = 0; b < size; ++b) {
        const int j = members[static_cast<std::size_t>(b)];
        problem.set_response(a, b, C(i, j), R[static_cast<std::size_t>(i * count + j)]);
      }
    }
    const internal::FrictionImpulses::Outcome outcome = problem.solve();
    switch (outcome) {
      case internal::FrictionImpulses::Outcome::kSolved:
        break;
      case internal::FrictionImpulses::Outcome::kOffLine:
        throw SimulationError(
            time,
            fmt::format("{}: the impact takes friction impulses at several coupled joints and "
                        "this one's transverse reaction impulse leaves its line; a combination "
                        "of them stuck and slipping is not solved: {}. ictus does not decide "
                        "this impact. Lower mu, or model the joints' compliance",
                        friction_site(*joints[static_cast<std::size_t>(
                            members[static_cast<std::size_t>(problem.off_line())])]),
                        problem.off_line_why()));
      case internal::FrictionImpulses::Outcome::kDependent:
        throw SimulationError(
            time, fmt::format("{}: the impact's friction impulses are not determined (their "
                              "joints' motions are dependent, or Coulomb's law admits a "
                              "continuum of motions); the rigid model does not decide them",
                              sites));
      case internal::FrictionImpulses::Outcome::kNone:
      case internal::FrictionImpulses::Outcome::kSeveral:
        throw SimulationError(
            time,
            fmt::format("{}: Coulomb friction at the impulse level has {} consistent "
                        "solutions in this impact (Painleve's paradox); the rigid model "
                        "does not determine the motion. Lower mu, or model the guides' "
                        "compliance",
                        sites,
                        outcome == internal::FrictionImpulses::Outcome::kNone ? "no" : "several"));
    }
    for (int a = 0; a < size; ++a) {
      const auto i = static_cast<std::size_t>(members[static_cast<std::size_t>(a)]);
      impulse[i] = problem.impulse(a);
      mode[i] = problem.mode(a);
      // stuck joints of one motion: the motion is decided, their impulses are one choice
      if (problem.indeterminate()) result.non_unique.push_back(friction_element(*joints[i]).site());
    }
  }

  // the impact with the friction impulses
  for (int i = 0; i < count; ++i) {
    const FrictionJoint& fj = *joints[static_cast<std::size_t>(i)];
    const double F = impulse[static_cast<std::size_t>(i)];
    p += F * fj.unit_mult;
    for (int b = 0; b < n; ++b) velocity(b) += F * fj.unit_acc[static_cast<std::size_t>(b)];
  }
  compute_kinematics(time, state);
  finish_ball_impulses(balls, excluded, p, released, result);
  // balls left out as none asked: their holds as the joints' impulses left
  // them (a fallback without the balls has warned already)
  if (with_balls && balls.empty()) warn_balls_beyond_hold(excluded, p);
  for (int i = 0; i < count; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const FrictionJoint& fj = *joints[ui];
    const double F = impulse[ui];
    if (holds[ui] >= 0) {
      // a stuck joint's friction impulse in its hold row's slot (log,
      // channels); one that stays stuck keeps its row
      p(holds[ui]) = F;
      if (mode[ui] == kStick) {
        // (a dependent hold stays eliminated: its impulse is logged by name)
        excluded[static_cast<std::size_t>(holds[ui])] =
            dropped[static_cast<std::size_t>(holds[ui])];
        if (dropped[static_cast<std::size_t>(holds[ui])] != 0 && F != 0.0) {
          result.row_names.push_back(friction_element(fj).name() + ".stick");
          result.impulses.push_back(F);
        }
      } else {
        released.push_back(holds[ui]);
        result.let_go.emplace_back(fj.stick_slip, mode[ui]);
      }
    } else {
      // a slipping joint has no row: its friction impulse is logged by name.
      // One the impact turns round leaves it slipping the new way (wake logs
      // the reversal); one it stops is decided after it, as after any
      // impulse (ElementSwitching::wake)
      if (F != 0.0) {
        result.row_names.push_back(friction_element(fj).name() + ".slip");
        result.impulses.push_back(F);
      }
      if (mode[ui] != kStick && mode[ui] == -forces[static_cast<std::size_t>(fj.force)]->mode())
        result.let_go.emplace_back(fj.stick_slip, mode[ui]);
    }
  }
  return released;
}

ReactionFriction& System::Impl::friction_element(const FrictionJoint& fj) {
  return static_cast<ReactionFriction&>(*forces[static_cast<std::size_t>(fj.force)]);
}

const ReactionFriction& System::Impl::friction_element(const FrictionJoint& fj) const {
  return static_cast<const ReactionFriction&>(*forces[static_cast<std::size_t>(fj.force)]);
}

std::string System::Impl::friction_site(const FrictionJoint& fj) const {
  return fmt::format("{} '{}'", fj.contact_side >= 0 ? "contact" : "joint",
                     friction_element(fj).site());
}

// --- the System's interface -----------------------------------------------

bool System::stick_slip_needs_reactions(int k) const {
  return impl_->friction_joint_of_stick_slip(k) != nullptr;
}

int System::decide_joint_friction(int k) {
  Impl& s = *impl_;
  Impl::FrictionJoint* fj = s.friction_joint_of_stick_slip(k);
  if (fj == nullptr) throw std::logic_error("decide_joint_friction: not a frictional joint");
  const ReactionFriction& e = s.friction_element(*fj);
  if (e.mode() == kStick)
    throw std::logic_error("decide_joint_friction: decided from a slip mode, the joint is stuck");
  // its provisional slip need not be solvable (system_impl.h)
  const Impl::UnsolvedSlipsAllowed provisional(s);
  s.ensure_dynamics();
  // the others that slip on (their rate not zero) on its group of bodies
  // respond to this joint's force through their normal forces: decided as a
  // set of one with them as members (system_friction_decision.cpp, which
  // comes back here when nothing else slips). So is a ball, whose slip has a
  // direction found with the solution.
  bool others_slip = false;
  for (const Impl::FrictionJoint& f : s.friction_joints)
    others_slip = others_slip || (&f != fj && s.slips_as_member(f, s.stick_slip_group(k)));
  if (fj->ball || others_slip) {
    int mode = kStick;
    decide_friction_together(std::span<const int>(&k, 1), std::span<int>(&mode, 1));
    return mode;
  }
  // the state without this joint's own friction force (nothing else slips)
  const double F = e.force();
  const Vec3 f0 = fj->transverse - F * fj->unit_transverse;
  const Vec3& tr = fj->unit_transverse;
  double a0 = fj->acc - F * fj->unit_acc_q;
  double c1 = fj->unit_acc_q;
  const bool contact = fj->contact_side >= 0;
  // locked by the other rows (Impl::kLockedFraction): kinetic friction
  // holds it below (neither direction accelerates)
  const double free = s.free_response(*fj);
  if (std::abs(c1) <= Impl::kLockedFraction * free) {
    c1 = 0.0;
    if (std::abs(a0) <= Impl::kLockedDrift * free * s.locked_force_scale(*fj, e, F)) a0 = 0.0;
  }
  // the normal force with the friction force F: |N| for a joint, N >= 0 for a contact
  auto normal_with = [&](double force) {
    return contact ? std::max(f0.x() + force * tr.x(), 0.0) : (f0 + force * tr).norm();
  };
  // stick: the force that keeps q'' = 0 lies within the static cone
  if (c1 != 0.0) {
    const double hold = -a0 / c1;
    if (std::isfinite(hold) && std::abs(hold) <= e.static_lever() * normal_with(hold))
      return kStick;
  }
  // slip: a direction s whose kinetic friction lets q'' have the sign s
  const double mu = e.kinetic_lever();
  bool ok[2] = {false, false};
  for (const int side : {kSlipPositive, kSlipNegative}) {
    double normal = 0.0;
    const int roots = contact ? contact_slip_normal(f0.x(), tr.x(), mu, side, &normal)
                              : slip_normal(f0, tr, mu, side, &normal);
    if (roots != 1) painleve(s.t, s.friction_site(*fj), roots, mu * tr.norm());
    if (contact) normal = std::max(normal, 0.0);
    const double a = a0 + c1 * (-side * mu * normal);
    ok[side > 0 ? 0 : 1] = side * a > 0.0;
  }
  if (ok[0] && ok[1])
    throw SimulationError(
        s.t, fmt::format("{}: at zero slip rate both slip directions are consistent "
                         "with Coulomb friction; the rigid model does not determine the motion "
                         "(Painleve)",
                         s.friction_site(*fj)));
  // neither: kinetic friction already holds the joint (Filippov's sliding mode)
  if (!ok[0] && !ok[1]) return kStick;
  return ok[0] ? kSlipPositive : kSlipNegative;
}

}  // namespace ictus
