#include "ictus/constraints/point_on_plane.h"

namespace ictus {

PointOnPlane::PointOnPlane(Vec3 plane_point_base, Vec3 normal_base, Vec3 point_follower,
                           bool driven)
    : plane_point_base_(std::move(plane_point_base)),
      normal_base_(std::move(normal_base)),
      point_follower_(std::move(point_follower)),
      driven_(driven) {}

namespace {

// the quadratic velocity terms of Delta'' (the part not multiplying the
// accelerations); n the plane's normal, rho_j the follower's point from its
// centre, r_iP the point from the base's centre (world)
double velocity_terms(const BodyKinematics& bi, const BodyKinematics& bj, const Vec3& n,
                      const Vec3& rho_j, const Vec3& r_iP) {
  const Vec3 v_p = bj.v_W + bj.w_W.cross(rho_j);
  const Vec3 v_rel = v_p - bi.v_W;
  return bi.w_W.cross(n).dot(v_rel - bi.w_W.cross(r_iP)) +
         n.dot(bj.w_W.cross(bj.w_W.cross(rho_j))) - n.dot(bi.w_W.cross(v_rel));
}

}  // namespace

void PointOnPlane::evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Vec3 n = bi.R_WB * normal_base_;
  const Vec3 rho_j = bj.R_WB * point_follower_;
  const Vec3 p = bj.p_W + rho_j;
  const Vec3 r_iP = p - bi.p_W;
  const Vec3 a = bi.point(plane_point_base_);

  ConstraintRow& row = rows[0];
  row.J_follower.head<3>() = n;
  row.J_follower.tail<3>() = bj.R_WB.transpose() * rho_j.cross(n);
  row.J_base.head<3>() = -n;
  row.J_base.tail<3>() = -(bi.R_WB.transpose() * r_iP.cross(n));

  const MotionSample m = driven_ ? ctx.motion : MotionSample{};
  row.gamma = m.acceleration - velocity_terms(bi, bj, n, rho_j, r_iP);
  row.target = m.rate;
  row.position_error = n.dot(p - a) - m.value;
  row.has_position_error = true;
}

void PointOnPlane::evaluate_gamma(const ConstraintContext& ctx,
                                  std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Vec3 rho_j = bj.R_WB * point_follower_;
  const Vec3 r_iP = bj.p_W + rho_j - bi.p_W;
  rows[0].gamma = (driven_ ? ctx.motion.acceleration : 0.0) -
                  velocity_terms(bi, bj, bi.R_WB * normal_base_, rho_j, r_iP);
}

}  // namespace ictus
