// Point coincidence: a point of the follower coincides with a point of the
// base (spherical joint). Three rows along the world axes.
#pragma once

#include "ictus/constraint.h"

namespace ictus {

/// Delta = P_j - P_i (world). Row k along world axis e_k; its multiplier is the
/// k-th world component of the force on the follower at P_j.
///
///   D_k u = e_k.(v_j + w_j x rho_j) - e_k.(v_i + w_i x rho_i)
///   gamma = -[w_j x (w_j x rho_j) - w_i x (w_i x rho_i)]_k
class PointCoincidence final : public ElementaryConstraint {
 public:
  PointCoincidence(Vec3 point_base, Vec3 point_follower);

  std::string_view kind() const override { return "point_coincidence"; }
  int row_count() const override { return 3; }
  std::string row_label(int k) const override;
  void evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;
  void evaluate_gamma(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;

 private:
  Vec3 point_base_;
  Vec3 point_follower_;
};

}  // namespace ictus
