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
double distance_gamma(const BodyKinematics& bi, const BodyKinematics& bj,
                      const Distance::Geometry& g, double length_acceleration) {
  const Vec3& rho_i = g.rho_i;
  const Vec3& rho_j = g.rho_j;
  const Vec3& e = g.direction;
  const double len = g.length;
  const Vec3 d_rate = (bj.v_W + bj.w_W.cross(rho_j)) - (bi.v_W + bi.w_W.cross(rho_i));
  const Vec3 quadratic = bj.w_W.cross(bj.w_W.cross(rho_j)) - bi.w_W.cross(bi.w_W.cross(rho_i));
  const double along = e.dot(d_rate);
  const double transverse = len > 0.0 ? (d_rate.squaredNorm() - along * along) / len : 0.0;
  return length_acceleration - e.dot(quadratic) - transverse;
}

}  // namespace

Distance::Geometry Distance::geometry(const ConstraintContext& ctx) const {
  Geometry g;
  g.rho_i = ctx.base.R_WB * point_base_;
  g.rho_j = ctx.follower.R_WB * point_follower_;
  const Vec3 d = (ctx.follower.p_W + g.rho_j) - (ctx.base.p_W + g.rho_i);
  g.length = d.norm();
  // a vanishing distance has no direction; the row becomes zero and the solver
  // reports a singular constraint set rather than dividing by zero
  g.direction = g.length > 0.0 ? Vec3(d / g.length) : Vec3::Zero();
  return g;
}

void Distance::evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Geometry g = geometry(ctx);
  const Vec3& e = g.direction;

  ConstraintRow& row = rows[0];
  row.J_follower.head<3>() = e;
  row.J_follower.tail<3>() = bj.R_WB.transpose() * g.rho_j.cross(e);
  row.J_base.head<3>() = -e;
  row.J_base.tail<3>() = -(bi.R_WB.transpose() * g.rho_i.cross(e));
  const MotionSample m = driven_ ? ctx.motion : MotionSample{length_, 0.0, 0.0};
  row.gamma = distance_gamma(bi, bj, g, m.acceleration);
  row.target = m.rate;
  row.position_error = g.length - m.value;
  row.has_position_error = true;
}

void Distance::evaluate_gamma(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  rows[0].gamma = distance_gamma(ctx.base, ctx.follower, geometry(ctx),
                                 driven_ ? ctx.motion.acceleration : 0.0);
}

}  // namespace ictus
