#include "ictus/forces/joint_spring_damper.h"

#include <fmt/format.h>

#include <cmath>

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
  if (!(p_.structural_damping >= 0.0) || !(p_.dry_friction >= 0.0) ||
      !std::isfinite(p_.structural_damping) || !std::isfinite(p_.dry_friction))
    throw ModelError(this->where(), element_label(),
                     fmt::format("structural_damping ({}) and dry_friction ({}) must be finite "
                                 "and >= 0",
                                 p_.structural_damping, p_.dry_friction));
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

double JointSpringDamper::slip_limit(const ForceContext& /*ctx*/) const {
  // F_max = psi k |u| + fT (seed 003 eq. 4 with |u|, REPORT.md case 3)
  return p_.structural_damping * p_.stiffness * std::abs(*q_ - p_.free_value) + p_.dry_friction;
}

ForcePower JointSpringDamper::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  return apply_part(ctx, loads, ForcePart::kAll);
}

ForcePower JointSpringDamper::apply_part(const ForceContext& ctx, LoadAccumulator& loads,
                                         ForcePart part) const {
  ForcePower power;
  double q_load = 0.0;
  if (part != ForcePart::kNonlinear) {
    q_load = load();
    power.dissipated = p_.damping * *q_rate_ * *q_rate_;
  }
  if (part != ForcePart::kLinear && has_stick_slip() && mode() != kStick) {
    // slipping: the friction opposes the slip direction (Q = -q_load)
    const double friction = mode() * slip_limit(ctx);
    q_load += friction;
    power.dissipated += friction * *q_rate_;
  }
  if (q_load != 0.0) add(ctx, loads, q_load);
  return power;
}

void JointSpringDamper::add(const ForceContext& ctx, LoadAccumulator& loads, double q_load) const {
  const BodyKinematics& kb = ctx.body(base_);
  const BodyKinematics& kf = ctx.body(follower_);
  const Vec3 axis_W = kb.R_WB * axis_base_;
  if (coordinate_ == Coordinate::kAngle) {
    loads.add_torque_W(follower_, kf, -q_load * axis_W);
    loads.add_torque_W(base_, kb, q_load * axis_W);
  } else {
    const Vec3 p = kf.point(origin_follower_);
    loads.add_force_at(follower_, kf, -q_load * axis_W, p);
    loads.add_force_at(base_, kb, q_load * axis_W, p);
  }
}

double JointSpringDamper::potential_energy(const ForceContext& /*ctx*/) const {
  const double stretch = *q_ - p_.free_value;
  return p_.preload * stretch + 0.5 * p_.stiffness * stretch * stretch;
}

std::vector<std::string> JointSpringDamper::channel_names() const {
  if (has_stick_slip()) return {"load", "mode"};
  return {"load"};
}

std::string JointSpringDamper::channel_unit(int k) const {
  if (k == 1) return "";
  return coordinate_ == Coordinate::kAngle ? "N m" : "N";
}

double JointSpringDamper::channel_value(int k, const ForceContext& ctx) const {
  if (k == 1) return mode();
  // slipping, the element's load includes the friction; stuck, the hold row
  // carries it (channel friction_force)
  return load() + (has_stick_slip() && mode() != kStick ? mode() * slip_limit(ctx) : 0.0);
}

}  // namespace ictus
