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
  joint_frames_ = &j;
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
  const Vec3 axis_W = kb.R_WB * axis_base();
  if (coordinate_ == Coordinate::kAngle) {
    loads.add_torque_W(follower_, kf, -q_load * axis_W);
    loads.add_torque_W(base_, kb, q_load * axis_W);
  } else {
    const Vec3 p = kf.point(origin_follower());
    loads.add_force_at(follower_, kf, -q_load * axis_W, p);
    loads.add_force_at(base_, kb, q_load * axis_W, p);
  }
}

void JointSpringDamper::add_jacobian(const ForceContext& ctx, ForceJacobian& J) const {
  // columns: position increments (or velocities) [base (6) | follower (6)];
  // rows: loads [force_W, torque_B] of [base | follower]
  using Row12 = Eigen::Matrix<double, 1, 12>;
  using Mat3x12 = Eigen::Matrix<double, 3, 12>;
  using Mat12 = Eigen::Matrix<double, 12, 12>;
  const BodyKinematics& kb = ctx.body(base_);
  const BodyKinematics& kf = ctx.body(follower_);
  const Mat3& Rb = kb.R_WB;
  const Mat3& Rf = kf.R_WB;
  const Mat3 I = Mat3::Identity();
  const Vec3 z = Rb * axis_base();
  // dR = R [dtheta]x, so d(R a) = -R [a]x dtheta
  Mat3x12 Dz = Mat3x12::Zero();
  Dz.block<3, 3>(0, 3) = -Rb * skew(axis_base());
  Row12 Dq = Row12::Zero();     // dq/dx
  Row12 Dqdot = Row12::Zero();  // dq'/dx
  Row12 Jq = Row12::Zero();     // dq'/du: q' = Jq u, and the load is -Q Jq^T
  const double Q = load();      // the linear part; the slip force below
  Mat12 Kq = Mat12::Zero();
  Mat12 Kv = Mat12::Zero();
  if (coordinate_ == Coordinate::kAngle) {
    // q = atan2(x_f . y_b, x_f . x_b): dq = (dphi_f - dphi_b) . g with the
    // world rotation increments dphi = R dtheta and
    // g = (c (x_f x y_b) - s (x_f x x_b)) / (s^2 + c^2) (= z when aligned)
    const Vec3 xb = Rb * axes_base().col(0);
    const Vec3 yb = Rb * axes_base().col(1);
    const Vec3 xf = Rf * axes_follower().col(0);
    const double s = xf.dot(yb);
    const double c = xf.dot(xb);
    const Vec3 g = (c * xf.cross(yb) - s * xf.cross(xb)) / (s * s + c * c);
    Dq.segment<3>(3) = -g.transpose() * Rb;
    Dq.segment<3>(9) = g.transpose() * Rf;
    // q' = z . (w_f - w_b) (world), w = R w_B
    Jq.segment<3>(3) = -z.transpose() * Rb;
    Jq.segment<3>(9) = z.transpose() * Rf;
    Mat3x12 Dw = Mat3x12::Zero();  // d(w_f - w_b)/dx
    Dw.block<3, 3>(0, 3) = Rb * skew(kb.w_B);
    Dw.block<3, 3>(0, 9) = -Rf * skew(kf.w_B);
    Dqdot = (kf.w_W - kb.w_W).transpose() * Dz + z.transpose() * Dw;
    const Row12 DQq = p_.stiffness * Dq + p_.damping * Dqdot;
    const Row12 DQv = p_.damping * Jq;
    // base: torque_B = Q a_b; follower: torque_B = -Q R_f^T z, and
    // d(R^T v) = [R^T v]x dtheta + R^T dv
    const Vec3 zf = Rf.transpose() * z;
    Kq.block<3, 12>(3, 0) = axis_base() * DQq;
    Kq.block<3, 12>(9, 0) = -zf * DQq - Q * Rf.transpose() * Dz;
    Kq.block<3, 3>(9, 9) -= Q * skew(zf);
    Kv.block<3, 12>(3, 0) = axis_base() * DQv;
    Kv.block<3, 12>(9, 0) = -zf * DQv;
  } else {
    // q = z . (P_f - O_b): P_f, O_b the frame origins, dP = [I, -R [o]x] dx
    const Vec3 Pf = kf.point(origin_follower());
    const Vec3 Ob = kb.point(origin_base());
    Mat3x12 DPf = Mat3x12::Zero();
    DPf.block<3, 3>(0, 6) = I;
    DPf.block<3, 3>(0, 9) = -Rf * skew(origin_follower());
    Mat3x12 DOb = Mat3x12::Zero();
    DOb.block<3, 3>(0, 0) = I;
    DOb.block<3, 3>(0, 3) = -Rb * skew(origin_base());
    Dq = (Pf - Ob).transpose() * Dz + z.transpose() * (DPf - DOb);
    // q' = z . Delta, Delta = V_f(o_f) - (v_b + w_b x d), d = P_f - p_b
    const Vec3 d = Pf - kb.p_W;
    const Vec3 d_b = Rb.transpose() * d;
    Mat3x12 Dd = DPf;
    Dd.block<3, 3>(0, 0) -= I;
    Jq.segment<3>(0) = -z.transpose();
    Jq.segment<3>(3) = z.transpose() * Rb * skew(d_b);
    Jq.segment<3>(6) = z.transpose();
    Jq.segment<3>(9) = -z.transpose() * Rf * skew(origin_follower());
    const Vec3 delta = kf.point_velocity(origin_follower()) - kb.velocity_at(Pf);
    Mat3x12 Dvf = Mat3x12::Zero();  // V_f = v_f + R_f (w_B x o_f)
    Dvf.block<3, 3>(0, 9) = -Rf * skew(kf.w_B.cross(origin_follower()));
    Mat3x12 Dwb = Mat3x12::Zero();
    Dwb.block<3, 3>(0, 3) = -Rb * skew(kb.w_B);
    const Mat3x12 Ddelta = Dvf - (-skew(d) * Dwb + skew(kb.w_W) * Dd);
    Dqdot = delta.transpose() * Dz + z.transpose() * Ddelta;
    const Row12 DQq = p_.stiffness * Dq + p_.damping * Dqdot;
    const Row12 DQv = p_.damping * Jq;
    // follower: force -Q z at P_f, torque_B = o_f x (R_f^T force)
    const Vec3 ff = -Q * z;
    const Mat3x12 Dff = -z * DQq - Q * Dz;
    const Mat3x12 Dffv = -z * DQv;
    Kq.block<3, 12>(6, 0) = Dff;
    Kq.block<3, 12>(9, 0) = skew(origin_follower()) * Rf.transpose() * Dff;
    Kq.block<3, 3>(9, 9) += skew(origin_follower()) * skew(Rf.transpose() * ff);
    Kv.block<3, 12>(6, 0) = Dffv;
    Kv.block<3, 12>(9, 0) = skew(origin_follower()) * Rf.transpose() * Dffv;
    // base: force Q z at P_f, torque_B = Q (d_b x a_b), d_b = R_b^T d
    Mat3x12 Dd_b = Rb.transpose() * Dd;
    Dd_b.block<3, 3>(0, 3) += skew(d_b);
    Kq.block<3, 12>(0, 0) = -Dff;
    Kq.block<3, 12>(3, 0) = d_b.cross(axis_base()) * DQq - Q * skew(axis_base()) * Dd_b;
    Kv.block<3, 12>(0, 0) = -Dffv;
    Kv.block<3, 12>(3, 0) = d_b.cross(axis_base()) * DQv;
  }
  const BodyIndex body[2] = {base_, follower_};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      J.add_position(body[i], body[j], Kq.block<6, 6>(6 * i, 6 * j));
      J.add_velocity(body[i], body[j], Kv.block<6, 6>(6 * i, 6 * j));
    }
  // the slip force -mode F_max(u) Jq^T: piecewise (|u|, the mode), differenced
  if (has_stick_slip()) add_jacobian_fd(ctx, J, ForcePart::kNonlinear);
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
