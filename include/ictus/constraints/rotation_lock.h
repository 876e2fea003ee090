// Rotation lock (seed 002): no relative rotation of the follower about an axis
// n fixed in the base, (w_j - w_i) . n = 0. With a prescribed angle it is a
// rotation driver, (w_j - w_i) . n = theta'(t).
#pragma once

#include "ictus/constraint.h"

namespace ictus {

/// One row; the multiplier is the moment about n exerted on the follower.
///
///   D u   = n.w_j - n.w_i                          (world angular velocities)
///   gamma = theta'' - (w_j - w_i).(w_i x n)         (seed 002 eq. 11)
///
/// A single lock is not integrable (reference/README.md): it has no
/// position-level violation of its own. Pairs and triples of locks in one
/// joint get theirs from the joint (System::Impl::fill_lock_errors, system_dynamics.cpp).
class RotationLock final : public ElementaryConstraint {
 public:
  /// `axis_base` is a unit vector in the base frame; `axis_follower` the same
  /// direction in the follower frame at the assembled configuration.
  RotationLock(Vec3 axis_base, Vec3 axis_follower, bool driven = false);

  std::string_view kind() const override { return driven_ ? "rotation_driver" : "rotation_lock"; }
  int row_count() const override { return 1; }
  bool holonomic() const override { return false; }
  bool driven() const override { return driven_; }
  bool rows_are_moments() const override { return true; }
  void evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;
  void evaluate_gamma(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;

  const Vec3& axis_base() const { return axis_base_; }
  const Vec3& axis_follower() const { return axis_follower_; }

 private:
  Vec3 axis_base_;
  Vec3 axis_follower_;
  bool driven_;
};

}  // namespace ictus
