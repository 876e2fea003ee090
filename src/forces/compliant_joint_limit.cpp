#include "ictus/forces/compliant_joint_limit.h"

#include <fmt/format.h>

#include <cmath>

#include "ictus/joint.h"

namespace ictus {

CompliantJointLimit::CompliantJointLimit(std::string name, std::string joint, Coordinate coordinate,
                                         Parameters p, SourceLocation where)
    : ForceElement(std::move(name), std::move(where)),
      joint_(std::move(joint)),
      coordinate_(coordinate),
      p_(p) {
  p_.validate(this->where(), element_label());
  if (!p_.lower && !p_.upper)
    throw ModelError(this->where(), element_label(),
                     "a joint limit needs 'lower', 'upper' or both");
  if (p_.lower && p_.upper && !(*p_.lower <= *p_.upper))
    throw ModelError(
        this->where(), element_label(),
        fmt::format("'lower' ({}) must not exceed 'upper' ({})", *p_.lower, *p_.upper));
  const bool two = p_.lower && p_.upper;
  if (p_.lower) sides_.push_back({1.0, *p_.lower, two ? "lower." : ""});
  if (p_.upper) sides_.push_back({-1.0, *p_.upper, two ? "upper." : ""});
}

std::unique_ptr<ForceElement> CompliantJointLimit::clone() const {
  return std::make_unique<CompliantJointLimit>(*this);
}

void CompliantJointLimit::prepare(ForceBuildContext& ctx) {
  const Joint& j = ctx.joint(joint_, element_label(), where());
  const bool angle = coordinate_ == Coordinate::kAngle;
  if (angle ? !j.has_angle : !j.has_translation)
    throw ModelError(where(), element_label(),
                     fmt::format("joint '{}' ({}) has no {} coordinate to limit", j.name, j.type,
                                 angle ? "angle" : "translation"));
  base_ = j.base;
  follower_ = j.follower;
  axis_base_ = j.frame_base.axes.col(2);
  origin_follower_ = j.frame_follower.origin;
  q_ = ctx.bind_channel(joint_ + (angle ? ".angle" : ".x"), element_label(), where());
  q_rate_ = ctx.bind_channel(joint_ + (angle ? ".omega" : ".v"), element_label(), where());
}

ForcePower CompliantJointLimit::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  ForcePower power;
  double generalised = 0.0;  // along the coordinate, on the follower
  for (const Side& s : sides_) {
    const double d = -gap(s);
    if (!(d > 0.0)) continue;
    const double d_rate = -s.sign * *q_rate_;
    double N = 0.0, elastic = 0.0;
    p_.normal(d, d_rate, &N, &elastic);
    generalised += s.sign * N;
    // the elastic part is the potential's; the rest is dissipated
    power.dissipated += (N - elastic) * d_rate;
  }
  if (generalised == 0.0) return power;
  const BodyKinematics& kb = ctx.body(base_);
  const BodyKinematics& kf = ctx.body(follower_);
  const Vec3 axis_W = kb.R_WB * axis_base_;
  if (coordinate_ == Coordinate::kAngle) {
    loads.add_torque_W(follower_, kf, generalised * axis_W);
    loads.add_torque_W(base_, kb, -generalised * axis_W);
  } else {
    const Vec3 p = kf.point(origin_follower_);
    loads.add_force_at(follower_, kf, generalised * axis_W, p);
    loads.add_force_at(base_, kb, -generalised * axis_W, p);
  }
  return power;
}

double CompliantJointLimit::potential_energy(const ForceContext& /*ctx*/) const {
  double V = 0.0;
  for (const Side& s : sides_) {
    const double d = -gap(s);
    if (!(d > 0.0)) continue;
    V += p_.potential(d);
  }
  return V;
}

std::vector<std::string> CompliantJointLimit::channel_names() const {
  std::vector<std::string> names;
  for (const Side& s : sides_)
    for (const char* c : {"gap", "gap_rate", "normal", "state"}) names.push_back(s.prefix + c);
  names.push_back("restitution");
  return names;
}

std::string CompliantJointLimit::channel_unit(int k) const {
  const bool angle = coordinate_ == Coordinate::kAngle;
  if (k == static_cast<int>(4 * sides_.size())) return "";
  switch (k % 4) {
    case 0:
      return angle ? "rad" : "m";
    case 1:
      return angle ? "rad/s" : "m/s";
    case 2:
      return angle ? "N m" : "N";
    default:
      return "";
  }
}

double CompliantJointLimit::channel_value(int k, const ForceContext& /*ctx*/) const {
  if (k == static_cast<int>(4 * sides_.size())) return restitution_at_impact_speed();
  const Side& s = sides_[static_cast<std::size_t>(k / 4)];
  const double g = gap(s);
  switch (k % 4) {
    case 0:
      return g;
    case 1:
      return s.sign * *q_rate_;
    case 2: {
      if (!(g < 0.0)) return 0.0;
      double N = 0.0, elastic = 0.0;
      p_.normal(-g, -s.sign * *q_rate_, &N, &elastic);
      return N;
    }
    default:
      return g < 0.0 ? 1.0 : 0.0;
  }
}

}  // namespace ictus
