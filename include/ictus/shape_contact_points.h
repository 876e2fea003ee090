// The contact points of two bodies' shapes: one definition of a shape pair's
// gap and its Jacobian row, used by the impulsive contact rows
// (system_contacts.cpp) and the compliant contact force
// (forces/compliant_shape_contact.h) alike (docs/theory/contact.md, "Shapes").
// Each point is an elementary constraint held at a value, so that its
// position error is the gap g and its row G the gap's (g' = G u):
//   sphere-plane:  the sphere's centre on the plane, held at the radius
//   box-plane:     each of the 8 corners on the plane, held at 0
//   capsule-plane: each end centre on the plane, held at the radius
//   sphere-sphere: the distance of the centres, held at the sum of the radii
// The plane's body is the base; for two spheres, the first body.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ictus/constraint.h"
#include "ictus/shape.h"

namespace ictus {

struct ShapeContactPoint {
  BodyIndex base = kGround;
  BodyIndex follower = kGround;
  std::shared_ptr<const ElementaryConstraint> constraint;  ///< one driven row
  double held = 0.0;  ///< the value at which the gap is zero [m]
  /// A point on a plane (not two spheres): the plane's point and unit
  /// normal in the base's axes and the follower's point (a sphere's or an
  /// end's centre, a corner) in its axes, for the tangent rows of friction.
  bool on_plane = false;
  Vec3 plane_point_B = Vec3::Zero();
  Vec3 plane_normal_B = Vec3::UnitZ();
  Vec3 point_B = Vec3::Zero();
  double radius = 0.0;  ///< the rounded shape's radius (0 for a corner)

  /// The row at the given kinematics: position_error is the gap,
  /// J_base/J_follower its Jacobian.
  ConstraintRow gap_row(const BodyKinematics& base_kin, const BodyKinematics& follower_kin,
                        double t) const;
};

/// The contact points between the shapes of bodies a and b (pairs the Model
/// accepts: Model::check_shape_contact).
std::vector<ShapeContactPoint> shape_contact_points(const std::vector<Shape>& shapes, BodyIndex a,
                                                    BodyIndex b);

/// The name of contact point `index` of `count` of a shape contact: the
/// contact's name for a single point, else "<contact>.p<index>".
std::string shape_contact_side_name(const std::string& contact, std::size_t index,
                                    std::size_t count);

}  // namespace ictus
