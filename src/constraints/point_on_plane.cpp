#include "ictus/constraints/point_on_plane.h"

namespace ictus {

PointOnPlane::PointOnPlane(Vec3 plane_point_base, Vec3 normal_base, Vec3 point_follower,
                           bool driven)
    : plane_point_base_(std::move(plane_point_base)),
      normal_base_(std::move(normal_base)),
      point_follower_(std::move(point_follower)),
      driven_(driven) {}

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

  // quadratic velocity terms of Delta'' (the part not multiplying accelerations)
  const Vec3 v_p = bj.v_W + bj.w_W.cross(rho_j);
  const Vec3 v_rel = v_p - bi.v_W;
  const double quadratic = bi.w_W.cross(n).dot(v_rel - bi.w_W.cross(r_iP)) +
                           n.dot(bj.w_W.cross(bj.w_W.cross(rho_j))) - n.dot(bi.w_W.cross(v_rel));
  const MotionSample m = driven_ ? ctx.motion : MotionSample{};
  row.gamma = m.acceleration - quadratic;
  row.target = m.rate;
  row.position_error = n.dot(p - a) - m.value;
  row.has_position_error = true;
}

}  // namespace ictus
