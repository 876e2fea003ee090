// Perpendicular axes ("dot-1"): an axis a fixed in the base stays
// perpendicular to an axis b fixed in the follower (the cross of a universal
// joint). Unlike a rotation lock this is holonomic on its own.
#pragma once

#include "ictus/constraint.h"

namespace ictus {

/// Delta = a . b (world). One row; its multiplier is the moment about b x a
/// on the follower.
///
///   D u   = (b x a).w_j + (a x b).w_i                      (world w)
///   gamma = -(w_i - w_j).[(w_i x a) x b + a x (w_j x b)]
class Perpendicular final : public ElementaryConstraint {
 public:
  /// Unit vectors in the respective body frames.
  Perpendicular(Vec3 axis_base, Vec3 axis_follower);

  std::string_view kind() const override { return "perpendicular"; }
  int row_count() const override { return 1; }
  bool rows_are_moments() const override { return true; }
  void evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;
  void evaluate_gamma(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;

 private:
  Vec3 axis_base_;
  Vec3 axis_follower_;
};

}  // namespace ictus
