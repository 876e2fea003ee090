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

void SpringDamper::add_slip_load(const ForceContext& ctx, LoadAccumulator& loads, double F) const {
  const Geometry g = geometry(ctx);
  loads.add_force_at(a_, ctx.body(a_), -F * g.e, g.p_a);
  loads.add_force_at(b_, ctx.body(b_), F * g.e, g.p_b);
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

void SpringDamper::add_jacobian(const ForceContext& ctx, ForceJacobian& J) const {
  const Geometry g = geometry(ctx);
  if (!(g.length > 0.0)) {  // coincident points: no line of action to differentiate
    add_jacobian_fd(ctx, J, ForcePart::kAll);
    return;
  }
  // columns: position increments (or velocities) [a (6) | b (6)];
  // rows: loads [force_W, torque_B] of [a | b]
  using Row12 = Eigen::Matrix<double, 1, 12>;
  using Mat3x12 = Eigen::Matrix<double, 3, 12>;
  using Mat12 = Eigen::Matrix<double, 12, 12>;
  const BodyKinematics& ka = ctx.body(a_);
  const BodyKinematics& kb = ctx.body(b_);
  const Mat3 I = Mat3::Identity();
  // an attachment point moves as dP = [I, -R [s]x] dx, and its velocity is
  // V = v - R [s]x w_B: G is d(P_b - P_a)/dx and d(V_b - V_a)/du alike
  Mat3x12 G;
  G << -I, ka.R_WB * skew(point_a_B_), I, -kb.R_WB * skew(point_b_B_);
  // V = v + R (w_B x s) turns with the body: dV = -R [w_B x s]x dtheta
  Mat3x12 H = Mat3x12::Zero();
  H.block<3, 3>(0, 3) = ka.R_WB * skew(ka.w_B.cross(point_a_B_));
  H.block<3, 3>(0, 9) = -kb.R_WB * skew(kb.w_B.cross(point_b_B_));
  const Vec3 dv = kb.point_velocity(point_b_B_) - ka.point_velocity(point_a_B_);
  const Mat3 P = (I - g.e * g.e.transpose()) / g.length;             // de = P d(P_b - P_a)
  const Row12 DL = g.e.transpose() * G;                              // dL
  const Row12 DLdot = dv.transpose() * P * G + g.e.transpose() * H;  // dL'/dx
  const Row12 DLdot_v = g.e.transpose() * G;                         // dL'/du
  const double T = tension(g);  // linear part; the slip force below
  const Row12 DTq = p_.stiffness * DL + p_.damping * DLdot;
  const Row12 DTv = p_.damping * DLdot_v;
  // f_a = T e = -f_b: d f_a = e dT + T P dd (T P: the geometric stiffness)
  const Mat3x12 Dfq = g.e * DTq + T * P * G;
  const Mat3x12 Dfv = g.e * DTv;
  // torque_B = s x (R^T f): d = [s]x ([R^T f]x dtheta + R^T df)
  Mat12 Kq = Mat12::Zero();
  Mat12 Kv = Mat12::Zero();
  const Vec3 fa = T * g.e;
  Kq.block<3, 12>(0, 0) = Dfq;
  Kq.block<3, 12>(3, 0) = skew(point_a_B_) * ka.R_WB.transpose() * Dfq;
  Kq.block<3, 3>(3, 3) += skew(point_a_B_) * skew(ka.R_WB.transpose() * fa);
  Kq.block<3, 12>(6, 0) = -Dfq;
  Kq.block<3, 12>(9, 0) = -skew(point_b_B_) * kb.R_WB.transpose() * Dfq;
  Kq.block<3, 3>(9, 9) -= skew(point_b_B_) * skew(kb.R_WB.transpose() * fa);
  Kv.block<3, 12>(0, 0) = Dfv;
  Kv.block<3, 12>(3, 0) = skew(point_a_B_) * ka.R_WB.transpose() * Dfv;
  Kv.block<3, 12>(6, 0) = -Dfv;
  Kv.block<3, 12>(9, 0) = -skew(point_b_B_) * kb.R_WB.transpose() * Dfv;
  const BodyIndex body[2] = {a_, b_};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      J.add_position(body[i], body[j], Kq.block<6, 6>(6 * i, 6 * j));
      J.add_velocity(body[i], body[j], Kv.block<6, 6>(6 * i, 6 * j));
    }
  if (has_stick_slip()) add_jacobian_fd(ctx, J, ForcePart::kNonlinear);
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
