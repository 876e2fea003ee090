// Point-on-plane (seed 002): a point of the follower stays on a plane fixed in
// the base. With a prescribed offset s(t) it is a translation driver.
#pragma once

#include "ictus/constraint.h"

namespace ictus {

/// Delta = n . (P - A) - s(t), with P the follower point, A a point of the
/// plane and n its unit normal, both fixed in the base. One row; the
/// multiplier is the force along n that the base exerts on the follower at P.
///
///   D u   = n.v_j + (rho_j x n).w_j - n.v_i - (r_iP x n).w_i       (world w)
///   gamma = s'' - [ (w_i x n).(v_P - v_i - w_i x r_iP)
///                   + n.(w_j x (w_j x rho_j)) - n.(w_i x (v_P - v_i)) ]
/// where rho_j = P - c_j and r_iP = P - c_i (docs/theory/constraints.md).
class PointOnPlane final : public ElementaryConstraint {
 public:
  /// `normal_base` must be a unit vector; all vectors in body coordinates.
  PointOnPlane(Vec3 plane_point_base, Vec3 normal_base, Vec3 point_follower, bool driven = false);

  std::string_view kind() const override {
    return driven_ ? "translation_driver" : "point_on_plane";
  }
  int row_count() const override { return 1; }
  bool driven() const override { return driven_; }
  void evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;
  void evaluate_gamma(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;

  const Vec3& normal_base() const { return normal_base_; }

 private:
  Vec3 plane_point_base_;
  Vec3 normal_base_;
  Vec3 point_follower_;
  bool driven_;
};

}  // namespace ictus
