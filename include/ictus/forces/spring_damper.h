// Linear translational spring-damper between two body-fixed points.
#pragma once

#include "ictus/force.h"

namespace ictus {

/// Tension T = F0 + k (L - L0) + c L', L = |P_b - P_a|, acting along the
/// line of the two points (positive tension pulls them together).
/// Potential V = F0 (L - L0) + k (L - L0)^2 / 2; dissipated power c L'^2.
///
/// Nonlinear damping (seed 003, issue 16), u = L - L0: structural damping
/// psi k |u| sgn(L') and dry friction fT sgn(L'), set-valued at L' = 0 with
/// F_max = psi k |u| + fT; slipping in mode +-1 the tension grows by
/// mode F_max (force.h, stick/slip law). Stuck, the System holds the
/// distance of the two points at its length at the instant of sticking by a
/// distance row (hold_points); its multiplier, positive when it pushes the
/// points apart, is the friction force along u.
class SpringDamper final : public ForceElement {
 public:
  struct Parameters {
    double stiffness = 0.0;           ///< k >= 0 [N/m]
    double damping = 0.0;             ///< c >= 0 [N s/m]
    double free_length = 0.0;         ///< L0 >= 0 [m]
    double preload = 0.0;             ///< F0 [N], tension at L = L0
    double structural_damping = 0.0;  ///< psi >= 0
    double dry_friction = 0.0;        ///< fT >= 0 [N]
  };

  /// Points in body coordinates of bodies a and b. Throws ModelError for
  /// negative stiffness, damping or free length.
  SpringDamper(std::string name, BodyIndex a, Vec3 point_a_B, BodyIndex b, Vec3 point_b_B,
               Parameters p, SourceLocation where = {});

  std::string_view kind() const override { return "spring_damper"; }
  std::unique_ptr<ForceElement> clone() const override;
  std::vector<BodyIndex> bodies() const override { return {a_, b_}; }
  ForcePower apply(const ForceContext& ctx, LoadAccumulator& loads) const override;
  double potential_energy(const ForceContext& ctx) const override;
  /// Analytic: stiffness along the line, geometric stiffness T dP/L from its
  /// rotation and from the turning attachment points, damping
  /// (docs/theory/jacobians.md); the slip force by the finite-difference
  /// default (piecewise in the mode).
  void add_jacobian(const ForceContext& ctx, ForceJacobian& J) const override;
  std::vector<std::string> channel_names() const override;
  std::string channel_unit(int k) const override;
  double channel_value(int k, const ForceContext& ctx) const override;

  bool has_nonlinear_part() const override { return has_stick_slip(); }
  ForcePower apply_part(const ForceContext& ctx, LoadAccumulator& loads,
                        ForcePart part) const override;
  bool has_stick_slip() const override {
    return p_.structural_damping > 0.0 || p_.dry_friction > 0.0;
  }
  double slip_coordinate(const ForceContext& ctx) const override {
    return geometry(ctx).length - p_.free_length;
  }
  double slip_rate(const ForceContext& ctx) const override { return geometry(ctx).rate; }
  double slip_limit(const ForceContext& ctx) const override;
  double slip_limit_floor() const override { return p_.dry_friction; }
  /// F along the line of the points, pushing them apart (on b along e, on a
  /// against it): minus a tension.
  void add_slip_load(const ForceContext& ctx, LoadAccumulator& loads, double F) const override;
  bool hold_points(BodyIndex* base, Vec3* point_base_B, BodyIndex* follower,
                   Vec3* point_follower_B) const override {
    *base = a_;
    *point_base_B = point_a_B_;
    *follower = b_;
    *point_follower_B = point_b_B_;
    return true;
  }

 private:
  struct Geometry {
    Vec3 p_a, p_b, e;  // points and unit vector from a to b
    double length, rate;
  };
  Geometry geometry(const ForceContext& ctx) const;
  double tension(const Geometry& g) const;         // linear part
  double friction(const ForceContext& ctx) const;  // slipping: mode F_max

  BodyIndex a_;
  Vec3 point_a_B_;
  BodyIndex b_;
  Vec3 point_b_B_;
  Parameters p_;
};

}  // namespace ictus
