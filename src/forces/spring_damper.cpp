#include "ictus/forces/spring_damper.h"

#include <fmt/format.h>

namespace ictus {

SpringDamper::SpringDamper(std::string name, BodyIndex a, Vec3 point_a_B, BodyIndex b,
                           Vec3 point_b_B, Parameters p, SourceLocation where)
    : ForceElement(std::move(name), std::move(where)),
      a_(a),
      point_a_B_(std::move(point_a_B)),
      b_(b),
      point_b_B_(std::move(point_b_B)),
      p_(p) {
  if (!(p_.stiffness >= 0.0) || !(p_.damping >= 0.0) || !(p_.free_length >= 0.0) ||
      !std::isfinite(p_.preload))
    throw ModelError(this->where(), element_label(),
                     fmt::format("stiffness ({}), damping ({}) and free_length ({}) must be >= 0 "
                                 "and the preload finite",
                                 p_.stiffness, p_.damping, p_.free_length));
}

std::unique_ptr<ForceElement> SpringDamper::clone() const {
  return std::make_unique<SpringDamper>(*this);
}

SpringDamper::Geometry SpringDamper::geometry(const ForceContext& ctx) const {
  const BodyKinematics& ka = ctx.body(a_);
  const BodyKinematics& kb = ctx.body(b_);
  Geometry g;
  g.p_a = ka.point(point_a_B_);
  g.p_b = kb.point(point_b_B_);
  const Vec3 d = g.p_b - g.p_a;
  g.length = d.norm();
  // coincident points have no line of action: the element then acts as if
  // stretched along x, which is as good as any choice and keeps values finite
  g.e = g.length > 0.0 ? Vec3(d / g.length) : Vec3::UnitX();
  g.rate = g.e.dot(kb.point_velocity(point_b_B_) - ka.point_velocity(point_a_B_));
  return g;
}

double SpringDamper::tension(const Geometry& g) const {
  return p_.preload + p_.stiffness * (g.length - p_.free_length) + p_.damping * g.rate;
}

ForcePower SpringDamper::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  const Geometry g = geometry(ctx);
  const double t = tension(g);
  loads.add_force_at(a_, ctx.body(a_), t * g.e, g.p_a);
  loads.add_force_at(b_, ctx.body(b_), -t * g.e, g.p_b);
  return {0.0, p_.damping * g.rate * g.rate};
}

double SpringDamper::potential_energy(const ForceContext& ctx) const {
  const double stretch = geometry(ctx).length - p_.free_length;
  return p_.preload * stretch + 0.5 * p_.stiffness * stretch * stretch;
}

std::vector<std::string> SpringDamper::channel_names() const {
  return {"length", "rate", "force"};
}

std::string SpringDamper::channel_unit(int k) const {
  static constexpr const char* kUnits[] = {"m", "m/s", "N"};
  return kUnits[k];
}

double SpringDamper::channel_value(int k, const ForceContext& ctx) const {
  const Geometry g = geometry(ctx);
  if (k == 0) return g.length;
  if (k == 1) return g.rate;
  return tension(g);
}

}  // namespace ictus
