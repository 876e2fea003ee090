// Coulomb friction at a contact point between a plane and another shape's
// point (docs/theory/friction.md, "Friction at contacts"). Each frictional
// point has two elements, one per tangent axis t of the plane (its x and y
// tangents): the slip coordinate is s = t . (P - A), P the follower's point
// (a box corner, or the centre of a sphere or capsule end on a body that
// does not turn), A the plane's point, and its rate s' = t . (v_P - v_A'),
// A' the plane's material point under P. Slipping, the element's force is
// F = -mu N sgn(s') along t on the follower at P (and -F on the plane's
// body), N >= 0 the point's normal force (the contact row's multiplier):
// the friction law is the four-sided pyramid |F_x| <= mu N, |F_y| <= mu N
// (exact for a slip along an axis). Stuck, s is held by a point-on-plane
// row with normal t (ForceElement::hold_constraint). The normal force
// depends on F: the System solves both together (reaction_friction.h).
#pragma once

#include <memory>

#include "ictus/constraints/point_on_plane.h"
#include "ictus/contact.h"
#include "ictus/forces/reaction_friction.h"
#include "ictus/shape_contact_points.h"

namespace ictus {

class ContactFrictionElement final : public ReactionFriction {
 public:
  /// The friction of contact side `side` (a point on a plane) along the
  /// plane's tangent `axis` (0: x, 1: y); named "<side>.friction_x" / "_y".
  ContactFrictionElement(const std::string& side, const ShapeContactPoint& point,
                         const ContactFriction& friction, int axis);

  std::string_view kind() const override { return "contact_friction"; }
  std::unique_ptr<ForceElement> clone() const override;
  std::vector<BodyIndex> bodies() const override { return {base_, follower_}; }
  void add_slip_load(const ForceContext& ctx, LoadAccumulator& loads, double F) const override;
  const std::string& site() const override { return side_; }

  bool hold_constraint(BodyIndex* base, BodyIndex* follower,
                       std::shared_ptr<const ElementaryConstraint>* row) const override;
  double slip_coordinate(const ForceContext& ctx) const override;
  double slip_rate(const ForceContext& ctx) const override;

  /// The contact side whose normal force this friction takes.
  const std::string& side() const { return side_; }
  /// 0 for the plane's x tangent, 1 for its y tangent.
  int axis() const { return axis_; }

 private:
  ConstraintRow row(const ForceContext& ctx) const;

  std::string side_;
  int axis_ = 0;
  BodyIndex base_ = kGround;      // the plane's body
  BodyIndex follower_ = kGround;  // the other shape's body
  Vec3 point_B_ = Vec3::Zero();   // P in the follower's axes
  std::shared_ptr<const PointOnPlane> tangent_row_;
};

}  // namespace ictus
