#include "ictus/constraints/rotation_hold.h"

namespace ictus {

std::string RotationHold::row_label(int k) const {
  return std::string(1, "xyz"[k]);
}

void RotationHold::evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Vec3 relative = bj.w_W - bi.w_W;
  for (int k = 0; k < 3; ++k) {
    const Vec3 n = bi.R_WB.col(k);
    ConstraintRow& row = rows[static_cast<std::size_t>(k)];
    row.J_follower.head<3>().setZero();
    row.J_follower.tail<3>() = bj.R_WB.transpose() * n;
    row.J_base.head<3>().setZero();
    row.J_base.tail<3>() = -Vec3::Unit(k);  // R_WB^T n in the base frame
    row.gamma = -relative.dot(bi.w_W.cross(n));
    row.target = 0.0;
    row.position_error = 0.0;  // supplied by the System from the held orientation
    row.has_position_error = false;
  }
}

void RotationHold::evaluate_gamma(const ConstraintContext& ctx,
                                  std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const Vec3 relative = ctx.follower.w_W - bi.w_W;
  for (int k = 0; k < 3; ++k)
    rows[static_cast<std::size_t>(k)].gamma = -relative.dot(bi.w_W.cross(bi.R_WB.col(k)));
}

}  // namespace ictus
