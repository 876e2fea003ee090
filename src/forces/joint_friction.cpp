#include "ictus/forces/joint_friction.h"

#include <algorithm>
#include <cmath>

namespace ictus {

JointFrictionElement::JointFrictionElement(const Joint& joint)
    : ReactionFriction(
          joint.name + ".friction", joint.friction.where, joint.friction.mu,
          joint.friction.static_coefficient(),
          joint.type == "revolute" || joint.type == "spherical" ? joint.friction.radius : 1.0),
      joint_(joint.name),
      angle_(joint.type == "revolute" || joint.type == "spherical"),
      ball_(joint.type == "spherical"),
      base_(joint.base),
      follower_(joint.follower) {}

std::unique_ptr<ForceElement> JointFrictionElement::clone() const {
  return std::make_unique<JointFrictionElement>(*this);
}

void JointFrictionElement::prepare(ForceBuildContext& ctx) {
  frames_ = &ctx.joint(joint_, element_label(), where());
  if (ball_) return;  // no coordinate channel: its rates are read from the bodies
  q_ = ctx.bind_channel(joint_ + (angle_ ? ".angle" : ".x"), element_label(), where());
  q_rate_ = ctx.bind_channel(joint_ + (angle_ ? ".omega" : ".v"), element_label(), where());
}

double JointFrictionElement::slip_coordinate(const ForceContext& ctx) const {
  if (!ball_) return *q_;
  const Mat3 relative = (ctx.body(base_).R_WB * frames_->frame_base.axes).transpose() *
                        ctx.body(follower_).R_WB * frames_->frame_follower.axes;
  return Eigen::AngleAxisd(relative).angle();
}

double JointFrictionElement::slip_rate(const ForceContext& ctx) const {
  return ball_ ? relative_angular_velocity_W(ctx).dot(slip_axis_W(ctx)) : *q_rate_;
}

double JointFrictionElement::load_rate(const ForceContext& ctx) const {
  return ball_ ? relative_angular_velocity_W(ctx).dot(load_direction_W(ctx)) : *q_rate_;
}

Vec3 JointFrictionElement::relative_angular_velocity_W(const ForceContext& ctx) const {
  return ctx.body(follower_).w_W - ctx.body(base_).w_W;
}

Vec3 JointFrictionElement::slip_axis_W(const ForceContext& ctx) const {
  return ctx.body(base_).R_WB * slip_axis_B_;
}

Vec3 JointFrictionElement::load_direction_W(const ForceContext& ctx) const {
  const Vec3 w = relative_angular_velocity_W(ctx);
  const Vec3 e = slip_axis_W(ctx);
  // Past the plane normal to the slip axis (w . e < 0: between a zero of the
  // switching function and its location) the slip goes on as it was, with
  // w's component along e reflected, as a pin keeps its slip sign until the
  // located switch: the moment stays continuous within the step (in a plane
  // it stays along e), so the step over the zero is accepted and the zero
  // located, where w/|w| would flip and the error control would creep up to
  // w = 0 in ever smaller steps.
  const double along = w.dot(e);
  const Vec3 slip = along < 0.0 ? Vec3(w - 2.0 * along * e) : w;
  const double size = slip.norm();
  // at the level of the rest the slip started from (the round-off of the
  // zero's location, which the decision called rest), or below the smallest
  // normal number, |w| has no direction worth the name: the slip axis (the
  // direction decided at the switch) stands in
  if (size > std::max(1e-300, kRestGrowth * rest_rate_) && std::isfinite(size)) return slip / size;
  return e;
}

Vec3 JointFrictionElement::axis_W(const ForceContext& ctx) const {
  return ctx.body(base_).R_WB * frames_->frame_base.axes.col(2);
}

void JointFrictionElement::add_slip_load(const ForceContext& ctx, LoadAccumulator& loads,
                                         double F) const {
  const BodyKinematics& kb = ctx.body(base_);
  const BodyKinematics& kf = ctx.body(follower_);
  const Vec3 axis = ball_ ? load_direction_W(ctx) : axis_W(ctx);
  if (angle_) {
    loads.add_torque_W(follower_, kf, F * axis);
    loads.add_torque_W(base_, kb, -F * axis);
  } else {
    const Vec3 p = kf.point(frames_->frame_follower.origin);
    loads.add_force_at(follower_, kf, F * axis, p);
    loads.add_force_at(base_, kb, -F * axis, p);
  }
}

}  // namespace ictus
