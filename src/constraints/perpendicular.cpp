#include "ictus/constraints/perpendicular.h"

namespace ictus {
namespace {

// gamma = -(w_i - w_j).(c'), c = a x b, c' = (w_i x a) x b + a x (w_j x b)
double perpendicular_gamma(const BodyKinematics& bi, const BodyKinematics& bj, const Vec3& a,
                           const Vec3& b) {
  const Vec3 c_rate = bi.w_W.cross(a).cross(b) + a.cross(bj.w_W.cross(b));
  return -(bi.w_W - bj.w_W).dot(c_rate);
}

}  // namespace

Perpendicular::Perpendicular(Vec3 axis_base, Vec3 axis_follower)
    : axis_base_(std::move(axis_base)), axis_follower_(std::move(axis_follower)) {}

void Perpendicular::evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Vec3 a = bi.R_WB * axis_base_;
  const Vec3 b = bj.R_WB * axis_follower_;
  const Vec3 c = a.cross(b);

  ConstraintRow& row = rows[0];
  row.J_follower.head<3>().setZero();
  row.J_follower.tail<3>() = -(bj.R_WB.transpose() * c);
  row.J_base.head<3>().setZero();
  row.J_base.tail<3>() = bi.R_WB.transpose() * c;
  row.gamma = perpendicular_gamma(bi, bj, a, b);
  row.target = 0.0;
  row.position_error = a.dot(b);
  row.has_position_error = true;
}

void Perpendicular::evaluate_gamma(const ConstraintContext& ctx,
                                   std::span<ConstraintRow> rows) const {
  rows[0].gamma = perpendicular_gamma(ctx.base, ctx.follower, ctx.base.R_WB * axis_base_,
                                      ctx.follower.R_WB * axis_follower_);
}

}  // namespace ictus
