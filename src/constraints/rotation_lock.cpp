#include "ictus/constraints/rotation_lock.h"

namespace ictus {

RotationLock::RotationLock(Vec3 axis_base, Vec3 axis_follower, bool driven)
    : axis_base_(std::move(axis_base)), axis_follower_(std::move(axis_follower)), driven_(driven) {}

void RotationLock::evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Vec3 n = bi.R_WB * axis_base_;

  ConstraintRow& row = rows[0];
  row.J_follower.head<3>().setZero();
  row.J_follower.tail<3>() = bj.R_WB.transpose() * n;
  row.J_base.head<3>().setZero();
  row.J_base.tail<3>() = -axis_base_;  // R_WB^T n expressed back in the base frame

  const MotionSample m = driven_ ? ctx.motion : MotionSample{};
  row.gamma = m.acceleration - (bj.w_W - bi.w_W).dot(bi.w_W.cross(n));
  row.target = m.rate;
  row.position_error = 0.0;  // supplied by the joint's lock group when integrable
  row.has_position_error = false;
}

void RotationLock::evaluate_gamma(const ConstraintContext& ctx,
                                  std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const Vec3 n = bi.R_WB * axis_base_;
  rows[0].gamma =
      (driven_ ? ctx.motion.acceleration : 0.0) - (ctx.follower.w_W - bi.w_W).dot(bi.w_W.cross(n));
}

}  // namespace ictus
