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
#include <algorithm>
#include <cmath>

#include "ictus/forces/joint_friction.h"
#include "system_impl.h"

namespace ictus {

namespace {

JointFrictionElement& ball_of(System::Impl& s, const System::Impl::FrictionJoint& fj) {
  return static_cast<JointFrictionElement&>(*s.forces[static_cast<std::size_t>(fj.force)]);
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

}  // namespace ictus
