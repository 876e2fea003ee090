// Relative rotation held (the stuck ball of a spherical joint with friction,
// docs/theory/stick-slip.md): no relative angular velocity at all,
// w_j - w_i = 0, as three rotation locks about the base body's axes.
#pragma once

#include "ictus/constraint.h"

namespace ictus {

/// Three rows; row k's multiplier is the moment about the base's axis k
/// (world: R_WB_i e_k) exerted on the follower.
///
///   D u   = n_k.w_j - n_k.w_i,   n_k = R_WB_i e_k      (world angular velocities)
///   gamma = -(w_j - w_i).(w_i x n_k)                    (as a rotation lock)
///
/// Not integrable row by row: the System supplies the position-level error
/// from the relative orientation it holds (System::Impl::fill_hold_rotation_errors).
class RotationHold final : public ElementaryConstraint {
 public:
  std::string_view kind() const override { return "rotation_hold"; }
  int row_count() const override { return 3; }
  std::string row_label(int k) const override;
  bool holonomic() const override { return false; }
  bool rows_are_moments() const override { return true; }
  void evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;
  void evaluate_gamma(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;
};

}  // namespace ictus
