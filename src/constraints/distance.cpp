#include "ictus/constraints/distance.h"

namespace ictus {

Distance::Distance(Vec3 point_base, Vec3 point_follower, double length, bool driven)
    : point_base_(std::move(point_base)),
      point_follower_(std::move(point_follower)),
      length_(length),
      driven_(driven) {}

namespace {

// gamma = l'' - e.(w_j x (w_j x rho_j) - w_i x (w_i x rho_i)) - |d'_perp|^2 / |d|:
// the second derivative of |d| less its part in the accelerations
double distance_gamma(const BodyKinematics& bi, const BodyKinematics& bj, const Vec3& rho_i,
                      const Vec3& rho_j, const Vec3& e, double len, double length_acceleration) {
  const Vec3 d_rate = (bj.v_W + bj.w_W.cross(rho_j)) - (bi.v_W + bi.w_W.cross(rho_i));
  const Vec3 quadratic = bj.w_W.cross(bj.w_W.cross(rho_j)) - bi.w_W.cross(bi.w_W.cross(rho_i));
  const double along = e.dot(d_rate);
  const double transverse = len > 0.0 ? (d_rate.squaredNorm() - along * along) / len : 0.0;
  return length_acceleration - e.dot(quadratic) - transverse;
}

}  // namespace

void Distance::evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Vec3 rho_i = bi.R_WB * point_base_;
  const Vec3 rho_j = bj.R_WB * point_follower_;
  const Vec3 d = (bj.p_W + rho_j) - (bi.p_W + rho_i);
  const double len = d.norm();
  // a vanishing distance has no direction; the row becomes zero and the solver
  // reports a singular constraint set rather than dividing by zero
  const Vec3 e = len > 0.0 ? Vec3(d / len) : Vec3::Zero();

  ConstraintRow& row = rows[0];
  row.J_follower.head<3>() = e;
  row.J_follower.tail<3>() = bj.R_WB.transpose() * rho_j.cross(e);
  row.J_base.head<3>() = -e;
  row.J_base.tail<3>() = -(bi.R_WB.transpose() * rho_i.cross(e));
  const MotionSample m = driven_ ? ctx.motion : MotionSample{length_, 0.0, 0.0};
  row.gamma = distance_gamma(bi, bj, rho_i, rho_j, e, len, m.acceleration);
  row.target = m.rate;
  row.position_error = len - m.value;
  row.has_position_error = true;
}

void Distance::evaluate_gamma(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Vec3 rho_i = bi.R_WB * point_base_;
  const Vec3 rho_j = bj.R_WB * point_follower_;
  const Vec3 d = (bj.p_W + rho_j) - (bi.p_W + rho_i);
  const double len = d.norm();
  const Vec3 e = len > 0.0 ? Vec3(d / len) : Vec3::Zero();
  rows[0].gamma =
      distance_gamma(bi, bj, rho_i, rho_j, e, len, driven_ ? ctx.motion.acceleration : 0.0);
}

}  // namespace ictus
