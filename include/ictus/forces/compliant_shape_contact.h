// A compliant contact between the shapes of two bodies (model file:
// `contacts:`, `type: shapes`, `law: compliant`): at each contact point of
// the pair (shape_contact_points.h, the same gap g and row G as the
// impulsive contact) the normal force N of a CompliantLaw (compliant_law.h)
// on the penetration d = max(0, -g), d' = -g', acts on the bodies as G^T N
// (docs/theory/contact.md, "Compliant contact between shapes"). The elastic
// part is conservative (potential_energy), the rest of N d' is dissipated.
#pragma once

#include <vector>

#include "ictus/force.h"
#include "ictus/forces/compliant_law.h"
#include "ictus/shape_contact_points.h"

namespace ictus {

class CompliantShapeContact final : public ForceElement {
 public:
  /// `points` from shape_contact_points(); their channels are named as the
  /// impulsive contact's sides: "<name>.gap" for a single point, else
  /// "<name>.p<k>.gap" (also gap_rate, normal, state), and
  /// "<name>.restitution" (the law's at its impact speed).
  CompliantShapeContact(std::string name, std::vector<ShapeContactPoint> points, CompliantLaw law,
                        SourceLocation where = {});

  std::string_view kind() const override { return "compliant_shape_contact"; }
  std::unique_ptr<ForceElement> clone() const override;
  std::vector<BodyIndex> bodies() const override;
  ForcePower apply(const ForceContext& ctx, LoadAccumulator& loads) const override;
  double potential_energy(const ForceContext& ctx) const override;
  std::vector<std::string> channel_names() const override;
  std::string channel_unit(int k) const override;
  double channel_value(int k, const ForceContext& ctx) const override;
  const CompliantLaw& law() const { return law_; }
  const std::vector<ShapeContactPoint>& points() const { return points_; }

 private:
  /// Gap, its rate and the row of point p at the kinematics of ctx.
  struct Gap {
    ConstraintRow row;
    double rate = 0.0;
  };
  Gap gap(const ShapeContactPoint& p, const ForceContext& ctx) const;

  std::vector<ShapeContactPoint> points_;
  CompliantLaw law_;
};

}  // namespace ictus
