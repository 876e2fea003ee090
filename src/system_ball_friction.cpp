// Friction in a spherical joint: a ball of radius r in its socket
// (docs/theory/friction.md, docs/theory/stick-slip.md "A ball"). The friction
// moment -mu r |N| w/|w| opposes the relative angular velocity w, N the
// joint's whole reaction force. Slipping, it is a reaction friction like a
// pin's, along the direction w/|w| (its slip force is solved with the
// reactions in system_joint_friction.cpp). Its slip has a direction, not a
// sign: at a zero rate it is decided (alone or with other elements, in
// system_friction_decision.cpp) from its responses to unit moments about the
// three world axes, here, and stuck it is held by three rows (RotationHold),
// whose moment must stay within mu_s r |N|.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "friction_impulses.h"

#include "ictus/forces/joint_friction.h"
#include "system_impl.h"

namespace ictus {

namespace {

JointFrictionElement& ball_of(System::Impl& s, const System::Impl::FrictionJoint& fj) {
  return static_cast<JointFrictionElement&>(*s.forces[static_cast<std::size_t>(fj.force)]);
}

const JointFrictionElement& ball_of(const System::Impl& s, const System::Impl::FrictionJoint& fj) {
  return static_cast<const JointFrictionElement&>(*s.forces[static_cast<std::size_t>(fj.force)]);
}

// A stuck ball's first hold row when its three hold rows are on through
// the impact being solved, else -1 (one just switched on is the impact
// itself; one partly eliminated as dependent is not decided)
int hold_through_impact(const System::Impl& s, const System::Impl::FrictionJoint& fj,
                        const std::vector<char>& excluded) {
  if (ball_of(s, fj).mode() != kStick) return -1;
  const int row = s.hold_row(fj.stick_slip);
  if (row < 0 || s.newly_active[static_cast<std::size_t>(
                     s.row_info[static_cast<std::size_t>(row)].instance)] != 0)
    return -1;
  for (int k = 0; k < 3; ++k)
    if (excluded[static_cast<std::size_t>(row + k)] != 0) return -1;
  return row;
}

// The moment (world, on the follower) of a ball's hold rows from `row` for impulses p
Vec3 hold_moment(const System::Impl& s, const System::Impl::FrictionJoint& fj, int row,
                 const VecX& p) {
  const Mat3& R = s.kinematics(fj.base).R_WB;
  return p(row) * R.col(0) + p(row + 1) * R.col(1) + p(row + 2) * R.col(2);
}

}  // namespace

bool System::Impl::ball_slips_on(const FrictionJoint& fj) {
  JointFrictionElement& e = ball_of(*this, fj);
  // g = w . e is zero, but w need not be: in 3-D it may turn past the slip
  // axis within a step without passing through zero. Unless w is at the
  // round-off level of its change over the switching look-ahead (1e-9 s, as
  // side_after in switching_set.h), the ball is moving: it slips on along w.
  const ForceContext ctx(kin, t);
  const Vec3 w = e.relative_angular_velocity_W(ctx);
  const double look_ahead = 1e-9 * std::max(1.0, std::abs(t));
  if (!(w.norm() > 1e3 * look_ahead * relative_angular_acceleration(fj, accelerations).norm()))
    return false;
  e.set_slip_axis_B(kinematics(fj.base).R_WB.transpose() * w.normalized());
  e.set_rest_rate(0.0);
  return true;
}

void System::Impl::ball_axis_responses(FrictionJoint& fj) {
  for (int k = 0; k < 3; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    const Vec3 moment = Vec3::Unit(k);
    unit_response(fj, &moment, fj.axis_acc[ki], fj.axis_mult[ki]);
  }
}

Vec3 System::Impl::ball_slip_moment(const FrictionJoint& fj) const {
  if (!fj.unit_valid) return Vec3::Zero();
  const auto& e =
      static_cast<const JointFrictionElement&>(*forces[static_cast<std::size_t>(fj.force)]);
  return e.force() * e.load_direction_W(ForceContext(kin, t));
}

void System::Impl::set_ball_slip_axis(const FrictionJoint& fj, const Vec3& axis_W) {
  JointFrictionElement& e = ball_of(*this, fj);
  e.set_slip_axis_B(kinematics(fj.base).R_WB.transpose() * axis_W);
  // a slip from (near) rest: what the location of the zero left of w across
  // the axis (along it, w/|w| is the axis already, or its reflection)
  const Vec3 w = e.relative_angular_velocity_W(ForceContext(kin, t));
  const double across = (w - w.dot(axis_W) * axis_W).norm();
  e.set_rest_rate(across > 1e-12 * w.norm() ? across : 0.0);
}

bool System::ball_rest_left(int k) const {
  const Impl::FrictionJoint* fj = impl_->friction_joint_of_stick_slip(k);
  return fj != nullptr && fj->ball && ball_of(*impl_, *fj).rest_rate() > 0.0;
}

bool System::stick_slip_has_direction(int k) const {
  const Impl::FrictionJoint* fj = impl_->friction_joint_of_stick_slip(k);
  return fj != nullptr && fj->ball;
}

void System::follow_slip_direction(int k) {
  Impl& s = *impl_;
  const Impl::FrictionJoint* fj = s.friction_joint_of_stick_slip(k);
  if (fj == nullptr || !fj->ball) return;
  JointFrictionElement& e = ball_of(s, *fj);
  if (e.mode() == kStick) return;
  const ForceContext ctx(s.kin, s.t);
  const Vec3 w = e.relative_angular_velocity_W(ctx);
  const double size = w.norm();
  if (!(size > 1e-300) || !std::isfinite(size)) return;
  e.set_slip_axis_B(s.kinematics(fj->base).R_WB.transpose() * (w / size));
  s.dynamics_valid = false;  // the rate row (and so q'') is along the new axis
}

int System::slip_mode_from_hold(int k, double lambda) {
  Impl& s = *impl_;
  if (s.locked_by_others(k)) {
    // the way the others move it: its rate where that tripped the margin,
    // else its acceleration (System::stuck_margin)
    const double rate = stick_slip_rate(k);
    if (std::abs(rate) >= 0.5 * s.locked_rate()) return rate > 0.0 ? kSlipPositive : kSlipNegative;
    s.ensure_dynamics();
    return s.hold_acceleration(k) > 0.0 ? kSlipPositive : kSlipNegative;
  }
  const Impl::FrictionJoint* fj = s.friction_joint_of_stick_slip(k);
  if (fj == nullptr || !fj->ball) return lambda > 0.0 ? kSlipNegative : kSlipPositive;
  // a ball slips against the moment that held it
  s.ensure_dynamics();
  const Vec3 hold = s.ball_hold_moment(*fj);
  ball_of(s, *fj).set_rest_rate(0.0);  // held: w = 0
  if (hold.norm() > 0.0 && hold.allFinite())
    ball_of(s, *fj).set_slip_axis_B(s.kinematics(fj->base).R_WB.transpose() *
                                    Vec3(-hold.normalized()));
  return kSlipPositive;
}

void System::direct_slip_from_hold(int k) {
  Impl& s = *impl_;
  const Impl::FrictionJoint* fj = s.friction_joint_of_stick_slip(k);
  if (fj == nullptr || !fj->ball || stick_slip_element(k).mode() == kStick) return;
  const JointFrictionElement& e = ball_of(s, *fj);
  if (!(e.kinetic_lever() < e.static_lever())) return;
  // the decision's slipping option alone (a + kappa M = 0, |M| = mu r |N|),
  // which sets the slip axis; undecided (no consistent root, several, or
  // beyond the enumeration) it leaves the holding moment's
  int mode = kStick;
  const char must_slip = 1;
  decide_friction_together(std::span<const int>(&k, 1), std::span<int>(&mode, 1),
                           std::span<const char>(&must_slip, 1));
  s.dynamics_valid = false;  // solved again along the axis decided
}

// --- at an impact (docs/theory/friction.md, "Friction impulses in an impact") --

std::vector<System::Impl::BallInImpact> System::Impl::balls_in_impact(
    const std::vector<char>& excluded, const VecX& p, std::string& needing) const {
  std::vector<BallInImpact> balls;
  bool any_asks = false;
  const double scale = p.lpNorm<Eigen::Infinity>();
  for (const FrictionJoint& fj : friction_joints) {
    if (!fj.ball || force_enabled[static_cast<std::size_t>(fj.force)] == 0) continue;
    const JointFrictionElement& e = ball_of(*this, fj);
    BallInImpact ball;
    ball.fj = const_cast<FrictionJoint*>(&fj);  // NOLINT: the Impl's own joint, solved later
    if (e.mode() == kStick) {
      ball.hold = hold_through_impact(*this, fj, excluded);
      if (ball.hold < 0) continue;
      ball.held = hold_moment(*this, fj, ball.hold, p);
      ball.moment = ball.held;
    }
    const double normal = friction_normal(fj, p).norm();
    ball.asks = ball.hold >= 0 ? ball.held.norm() > e.static_lever() * normal + 1e-12 * scale
                               : normal > 1e-9 * scale;
    ball.stuck = ball.hold >= 0;
    if (ball.asks) {
      any_asks = true;
      needing += fmt::format("{}joint '{}'", needing.empty() ? "" : ", ", e.site());
    }
    balls.push_back(ball);
  }
  if (!any_asks) balls.clear();
  return balls;
}

void System::Impl::solve_ball_impulses(double time, std::vector<BallInImpact>& balls,
                                       const std::vector<FrictionJoint*>& joints,
                                       const std::vector<char>& changes,
                                       const std::vector<char>& excluded, VecX& state, VecX& p,
                                       ImpulseResult& result) {
  if (balls.empty()) return;
  const ForceContext ctx(kin, t);
  // the responses to a unit moment impulse about each world axis
  for (BallInImpact& ball : balls) {
    FrictionJoint& fj = *ball.fj;
    for (int k = 0; k < 3; ++k) {
      const auto ki = static_cast<std::size_t>(k);
      for (BodyLoad& l : unit_loads) l = BodyLoad{};
      LoadAccumulator accumulator(unit_loads);
      accumulator.add_torque_W(fj.follower, ctx.body(fj.follower), Vec3::Unit(k));
      accumulator.add_torque_W(fj.base, ctx.body(fj.base), -Vec3::Unit(k));
      if (fj.axis_mult[ki].size() != p.size()) fj.axis_mult[ki].resize(p.size());
      respond_to_unit_loads(excluded, fj.axis_acc[ki], fj.axis_mult[ki]);
    }
    fj.unit_valid = false;  // not the dynamics' response
  }
  auto label = [&](const FrictionJoint& fj) {
    return fmt::format("joint '{}'", ball_of(*this, fj).site());
  };
  // a joint's rate and a ball's relative angular velocity for body velocities du
  auto joint_rate = [](const FrictionJoint& fj, const std::vector<Vec6>& du) {
    double v = 0.0;
    if (fj.base != kGround) v += fj.rate_row.J_base.dot(du[static_cast<std::size_t>(fj.base)]);
    if (fj.follower != kGround)
      v += fj.rate_row.J_follower.dot(du[static_cast<std::size_t>(fj.follower)]);
    return v;
  };
  for (BallInImpact& ball : balls) {
    const FrictionJoint& fj = *ball.fj;
    const JointFrictionElement& e = ball_of(*this, fj);
    Mat3 C, R;
    for (int k = 0; k < 3; ++k) {
      C.col(k) = relative_angular_acceleration(fj, fj.axis_acc[static_cast<std::size_t>(k)]);
      R.col(k) = friction_normal(fj, fj.axis_mult[static_cast<std::size_t>(k)]);
    }
    // decided alone: nothing else's friction reaches it, nor it anything's
    // (the rates' round-off is to the larger of the two's own responses)
    const double reaction = 1e-12 * std::max(R.cwiseAbs().maxCoeff(), 1.0);
    auto reaches = [&](const FrictionJoint& other, bool other_is_ball) {
      double own = 0.0;
      for (int k = 0; k < 3 && other_is_ball; ++k)
        own = std::max(
            own, relative_angular_acceleration(other, other.axis_acc[static_cast<std::size_t>(k)])
                     .cwiseAbs()
                     .maxCoeff());
      if (!other_is_ball) own = std::abs(joint_rate(other, other.unit_acc));
      const double coupling = 1e-12 * std::max({C.cwiseAbs().maxCoeff(), own, 1e-300});
      for (int k = 0; k < 3; ++k) {
        const auto ki = static_cast<std::size_t>(k);
        const double to_other = other_is_ball
                                    ? relative_angular_acceleration(other, fj.axis_acc[ki]).norm()
                                    : std::abs(joint_rate(other, fj.axis_acc[ki]));
        if (to_other > coupling || friction_normal(other, fj.axis_mult[ki]).norm() > reaction)
          return true;
      }
      const Vec3 from_other =
          other_is_ball ? Vec3::Zero() : relative_angular_acceleration(fj, other.unit_acc);
      return from_other.norm() > coupling ||
             (!other_is_ball && friction_normal(fj, other.unit_mult).norm() > reaction);
    };
    // (two that both keep their first-solved impulses may reach each other)
    for (std::size_t j = 0; j < joints.size(); ++j)
      if ((ball.asks || changes[j] != 0) && reaches(*joints[j], false))
        throw BallImpulseNotDecided{
            label(fj), fmt::format("its impulses reach those of {}", label(*joints[j]))};
    for (const BallInImpact& other : balls)
      if (other.fj != ball.fj && (ball.asks || other.asks) && reaches(*other.fj, true))
        throw BallImpulseNotDecided{
            label(fj), fmt::format("its impulses reach those of {}", label(*other.fj))};
    // one that asks for nothing keeps the impulse as first solved (exact: it is alone)
    if (!ball.asks) continue;
    bool indeterminate = false;
    const std::vector<internal::BallImpulse> found = internal::ball_friction_impulses(
        e.relative_angular_velocity_W(ctx), C, friction_normal(fj, p), R,
        ball.hold >= 0 ? e.static_lever() : e.kinetic_lever(), &indeterminate);
    if (found.size() != 1)
      throw SimulationError(
          time, fmt::format("{}: Coulomb friction at the impulse level has {} consistent "
                            "solutions at this ball in this impact (Painleve's paradox); the "
                            "rigid model does not determine the motion. Lower mu, or model "
                            "the joint's compliance",
                            label(fj), found.empty() ? "no" : "several"));
    ball.moment = found.front().M;
    ball.rate = found.front().w;
    ball.stuck = found.front().stuck;
    if (ball.stuck && indeterminate) result.non_unique.push_back(e.site());
  }
  // the impact with the balls' friction impulses
  for (const BallInImpact& ball : balls)
    for (int k = 0; k < 3; ++k) {
      const auto ki = static_cast<std::size_t>(k);
      p += ball.moment(k) * ball.fj->axis_mult[ki];
      for (int b = 0; b < n; ++b)
        layout.body_velocity(state, b) +=
            ball.moment(k) * ball.fj->axis_acc[ki][static_cast<std::size_t>(b)];
    }
}

void System::Impl::warn_balls_beyond_hold(const std::vector<char>& excluded, const VecX& p) {
  const double scale = p.lpNorm<Eigen::Infinity>();
  for (const FrictionJoint& fj : friction_joints) {
    if (!fj.ball || force_enabled[static_cast<std::size_t>(fj.force)] == 0) continue;
    const JointFrictionElement& e = ball_of(*this, fj);
    const int row = hold_through_impact(*this, fj, excluded);
    if (row < 0) continue;
    const Vec3 held = hold_moment(*this, fj, row, p);
    if (held.norm() >
        e.static_lever() * friction_normal(fj, p).norm() * (1.0 + 1e-9) + 1e-12 * scale)
      warn(
          fmt::format("joint '{}': its stuck hold takes a moment impulse beyond mu_s r |P| in "
                      "an impact whose other frictional joints' impulses changed it (ictus "
                      "decides a ball's friction impulse alone); it stays stuck",
                      e.site()));
  }
}

void System::Impl::finish_ball_impulses(const std::vector<BallInImpact>& balls,
                                        std::vector<char>& excluded, VecX& p,
                                        std::vector<int>& released, ImpulseResult& result) {
  for (const BallInImpact& ball : balls) {
    const FrictionJoint& fj = *ball.fj;
    if (!ball.asks && ball.hold < 0) continue;  // slipping on, untouched
    if (ball.hold >= 0) {
      // a stuck ball's moment impulse in its hold rows' slots (base axes)
      const Vec3 components = kinematics(fj.base).R_WB.transpose() * ball.moment;
      for (int k = 0; k < 3; ++k) {
        const auto r = static_cast<std::size_t>(ball.hold + k);
        p(static_cast<Eigen::Index>(r)) = components(k);
        if (ball.stuck)
          excluded[r] = dropped[r];
        else
          released.push_back(ball.hold + k);
      }
      if (ball.stuck) continue;
      result.let_go.emplace_back(fj.stick_slip, kSlipPositive);
    } else if (ball.moment.norm() > 0.0) {
      // a slipping ball has no rows: its friction impulse is logged by name
      result.row_names.push_back(ball_of(*this, fj).name() + ".slip");
      result.impulses.push_back(ball.moment.norm());
    }
    // it slips along its rate after the impact; one the impact stopped is
    // decided after it, as after any impulse (ElementSwitching::wake)
    if (!ball.stuck) set_ball_slip_axis(fj, ball.rate.normalized());
  }
}

}  // namespace ictus
