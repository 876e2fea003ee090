// Distance: two points, one on each body, keep a given distance (a massless
// rigid link with ball joints at both ends). With a prescribed length L(t) it
// is a driver (an actuator of prescribed stroke).
#pragma once

#include "ictus/constraint.h"

namespace ictus {

/// Delta = |d| - L, d = P_j - P_i, e = d/|d|. One row; its multiplier is the
/// force on the follower along e (positive pushes the points apart).
///
///   D u   = e.(v_Pj - v_Pi)
///   gamma = L'' - e.(w_j x (w_j x rho_j) - w_i x (w_i x rho_i))
///               - (|d'|^2 - (e.d')^2) / |d|
class Distance final : public ElementaryConstraint {
 public:
  /// `length` is used when not driven; must be > 0.
  Distance(Vec3 point_base, Vec3 point_follower, double length, bool driven = false);

  std::string_view kind() const override { return driven_ ? "distance_driver" : "distance"; }
  int row_count() const override { return 1; }
  bool driven() const override { return driven_; }
  void evaluate(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;
  void evaluate_gamma(const ConstraintContext& ctx, std::span<ConstraintRow> rows) const override;

  /// The two points at a configuration: their arms from the centres
  /// (world), their distance and its direction (zero at distance zero).
  struct Geometry {
    Vec3 rho_i, rho_j, direction;
    double length = 0.0;
  };

 private:
  Geometry geometry(const ConstraintContext& ctx) const;

  Vec3 point_base_;
  Vec3 point_follower_;
  double length_;
  bool driven_;
};

}  // namespace ictus
