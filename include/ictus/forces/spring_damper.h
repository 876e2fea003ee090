// Linear translational spring-damper between two body-fixed points.
#pragma once

#include "ictus/force.h"

namespace ictus {

/// Tension T = F0 + k (L - L0) + c L', L = |P_b - P_a|, acting along the
/// line of the two points (positive tension pulls them together).
/// Potential V = F0 (L - L0) + k (L - L0)^2 / 2; dissipated power c L'^2.
class SpringDamper final : public ForceElement {
 public:
  struct Parameters {
    double stiffness = 0.0;    ///< k >= 0 [N/m]
    double damping = 0.0;      ///< c >= 0 [N s/m]
    double free_length = 0.0;  ///< L0 >= 0 [m]
    double preload = 0.0;      ///< F0 [N], tension at L = L0
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
  std::vector<std::string> channel_names() const override;
  std::string channel_unit(int k) const override;
  double channel_value(int k, const ForceContext& ctx) const override;

 private:
  struct Geometry {
    Vec3 p_a, p_b, e;  // points and unit vector from a to b
    double length, rate;
  };
  Geometry geometry(const ForceContext& ctx) const;
  double tension(const Geometry& g) const;

  BodyIndex a_;
  Vec3 point_a_B_;
  BodyIndex b_;
  Vec3 point_b_B_;
  Parameters p_;
};

}  // namespace ictus
