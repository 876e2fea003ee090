#include "ictus/forces/joint_friction.h"

namespace ictus {

JointFrictionElement::JointFrictionElement(const Joint& joint)
    : ReactionFriction(joint.name + ".friction", joint.friction.where, joint.friction.mu,
                       joint.friction.static_coefficient(),
                       joint.type == "revolute" ? joint.friction.radius : 1.0),
      joint_(joint.name),
      angle_(joint.type == "revolute"),
      base_(joint.base),
      follower_(joint.follower) {}

std::unique_ptr<ForceElement> JointFrictionElement::clone() const {
  return std::make_unique<JointFrictionElement>(*this);
}

void JointFrictionElement::prepare(ForceBuildContext& ctx) {
  frames_ = &ctx.joint(joint_, element_label(), where());
  q_ = ctx.bind_channel(joint_ + (angle_ ? ".angle" : ".x"), element_label(), where());
  q_rate_ = ctx.bind_channel(joint_ + (angle_ ? ".omega" : ".v"), element_label(), where());
}

Vec3 JointFrictionElement::axis_W(const ForceContext& ctx) const {
  return ctx.body(base_).R_WB * frames_->frame_base.axes.col(2);
}

void JointFrictionElement::add_load(const ForceContext& ctx, LoadAccumulator& loads,
                                    double F) const {
  const BodyKinematics& kb = ctx.body(base_);
  const BodyKinematics& kf = ctx.body(follower_);
  const Vec3 axis = axis_W(ctx);
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
