#include "ictus/forces/spring_damper.h"

#include <fmt/format.h>

#include <cmath>

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
  if (!(p_.structural_damping >= 0.0) || !(p_.dry_friction >= 0.0) ||
      !std::isfinite(p_.structural_damping) || !std::isfinite(p_.dry_friction))
    throw ModelError(this->where(), element_label(),
                     fmt::format("structural_damping ({}) and dry_friction ({}) must be finite "
                                 "and >= 0",
                                 p_.structural_damping, p_.dry_friction));
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

double SpringDamper::slip_limit(const ForceContext& ctx) const {
  // F_max = psi k |u| + fT (seed 003 eq. 4 with |u|, REPORT.md case 3)
  return p_.structural_damping * p_.stiffness * std::abs(geometry(ctx).length - p_.free_length) +
         p_.dry_friction;
}

double SpringDamper::friction(const ForceContext& ctx) const {
  return has_stick_slip() && mode() != kStick ? mode() * slip_limit(ctx) : 0.0;
}

ForcePower SpringDamper::apply(const ForceContext& ctx, LoadAccumulator& loads) const {
  return apply_part(ctx, loads, ForcePart::kAll);
}

ForcePower SpringDamper::apply_part(const ForceContext& ctx, LoadAccumulator& loads,
                                    ForcePart part) const {
  const Geometry g = geometry(ctx);
  double t = 0.0;
  ForcePower power;
  if (part != ForcePart::kNonlinear) {
    t = tension(g);
    power.dissipated = p_.damping * g.rate * g.rate;
  }
  if (part != ForcePart::kLinear) {
    // slipping, the friction resists the change of length
    const double f = friction(ctx);
    t += f;
    power.dissipated += f * g.rate;
  }
  loads.add_force_at(a_, ctx.body(a_), t * g.e, g.p_a);
  loads.add_force_at(b_, ctx.body(b_), -t * g.e, g.p_b);
  return power;
}

double SpringDamper::potential_energy(const ForceContext& ctx) const {
  const double stretch = geometry(ctx).length - p_.free_length;
  return p_.preload * stretch + 0.5 * p_.stiffness * stretch * stretch;
}

std::vector<std::string> SpringDamper::channel_names() const {
  if (has_stick_slip()) return {"length", "rate", "force", "mode"};
  return {"length", "rate", "force"};
}

std::string SpringDamper::channel_unit(int k) const {
  static constexpr const char* kUnits[] = {"m", "m/s", "N", ""};
  return kUnits[k];
}

double SpringDamper::channel_value(int k, const ForceContext& ctx) const {
  const Geometry g = geometry(ctx);
  if (k == 0) return g.length;
  if (k == 1) return g.rate;
  if (k == 3) return mode();
  return tension(g) + friction(ctx);
}

}  // namespace ictus
