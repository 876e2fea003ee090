#include "ictus/constraints/point_coincidence.h"

namespace ictus {
namespace {

// w_j x (w_j x rho_j) - w_i x (w_i x rho_i): minus gamma, per world axis
Vec3 centripetal_difference(const BodyKinematics& bi, const BodyKinematics& bj, const Vec3& rho_i,
                            const Vec3& rho_j) {
  return bj.w_W.cross(bj.w_W.cross(rho_j)) - bi.w_W.cross(bi.w_W.cross(rho_i));
}

}  // namespace

PointCoincidence::PointCoincidence(Vec3 point_base, Vec3 point_follower)
    : point_base_(std::move(point_base)), point_follower_(std::move(point_follower)) {}

std::string PointCoincidence::row_label(int k) const {
  static constexpr const char* kLabels[] = {"x", "y", "z"};
  return kLabels[k];
}

void PointCoincidence::evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const {
  const BodyKinematics& bi = ctx.base;
  const BodyKinematics& bj = ctx.follower;
  const Vec3 rho_i = bi.R_WB * point_base_;
  const Vec3 rho_j = bj.R_WB * point_follower_;
  const Vec3 delta = (bj.p_W + rho_j) - (bi.p_W + rho_i);
  const Vec3 quadratic = centripetal_difference(bi, bj, rho_i, rho_j);
  for (int k = 0; k < 3; ++k) {
    const Vec3 e = Vec3::Unit(k);
    ConstraintRow& row = rows[static_cast<std::size_t>(k)];
    row.J_follower.head<3>() = e;
    row.J_follower.tail<3>() = bj.R_WB.transpose() * rho_j.cross(e);
    row.J_base.head<3>() = -e;
    row.J_base.tail<3>() = -(bi.R_WB.transpose() * rho_i.cross(e));
    row.gamma = -quadratic(k);
    row.target = 0.0;
    row.position_error = delta(k);
    row.has_position_error = true;
  }
}

void PointCoincidence::evaluate_gamma(const ConstraintContext& ctx,
                                      std::span<ConstraintRow> rows) const {
  const Vec3 quadratic = centripetal_difference(ctx.base, ctx.follower, ctx.base.R_WB * point_base_,
                                                ctx.follower.R_WB * point_follower_);
  for (int k = 0; k < 3; ++k) rows[static_cast<std::size_t>(k)].gamma = -quadratic(k);
}

}  // namespace ictus
