#include "ictus/forces/joint_spring_damper.h"

#include <fmt/format.h>

#include "ictus/joint.h"

namespace ictus {

JointSpringDamper::JointSpringDamper(std::string name, std::string joint, Coordinate coordinate,
                                     Parameters p, SourceLocation where)
    : ForceElement(std::move(name), std::move(where)),
      joint_(std::move(joint)),
      coordinate_(coordinate),
      p_(p) {
  if (!(p_.stiffness >= 0.0) || !(p_.damping >= 0.0) || !std::isfinite(p_.free_value) ||
      !std::isfinite(p_.preload))
    throw ModelError(
        this->where(), element_label(),
        fmt::format("stiffness ({}) and damping ({}) must be >= 0", p_.stiffness, p_.damping));
}

std::unique_ptr<ForceElement> JointSpringDamper::clone() const {
  return std::make_unique<JointSpringDamper>(*this);
}

void JointSpringDamper::prepare(ForceBuildContext& ctx) {
  const Joint& j = ctx.joint(joint_, element_label(), where());
  const bool angle = coordinate_ == Coordinate::kAngle;
  if (angle ? !j.has_angle : !j.has_translation)
    throw ModelError(where(), element_label(),
                     fmt::format("joint '{}' ({}) has no {} coordinate", j.name, j.type,
                                 angle ? "rotation" : "translation"));
  base_ = j.base;
  follower_ = j.follower;
  axis_base_ = j.frame_base.axes.col(2);
  origin_follower_ = j.frame_follower.origin;
  q_ = ctx.bind_channel(joint_ + (angle ? ".angle" : ".x"), element_label(), where());
  q_rate_ = ctx.bind_channel(joint_ + (angle ? ".omega" : ".v"), element_label(), where());
}

double JointSpringDamper::load() const {
  return p_.preload + p_.stiffness * (*q_ - p_.free_value) + p_.damping * *q_rate_;
}

ForcePower JointSpringDamper::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  const BodyKinematics& kb = ctx.body(base_);
  const BodyKinematics& kf = ctx.body(follower_);
  const Vec3 axis_W = kb.R_WB * axis_base_;
  const double q_load = load();
  if (coordinate_ == Coordinate::kAngle) {
    loads.add_torque_W(follower_, kf, -q_load * axis_W);
    loads.add_torque_W(base_, kb, q_load * axis_W);
  } else {
    const Vec3 p = kf.point(origin_follower_);
    loads.add_force_at(follower_, kf, -q_load * axis_W, p);
    loads.add_force_at(base_, kb, q_load * axis_W, p);
  }
  return {0.0, p_.damping * *q_rate_ * *q_rate_};
}

double JointSpringDamper::potential_energy(const ForceContext& /*ctx*/) const {
  const double stretch = *q_ - p_.free_value;
  return p_.preload * stretch + 0.5 * p_.stiffness * stretch * stretch;
}

double JointSpringDamper::channel_value(int /*k*/, const ForceContext& /*ctx*/) const {
  return load();
}

}  // namespace ictus
