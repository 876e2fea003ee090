// Geometric shapes attached to bodies (model file: `shapes:`). They are part
// of the model, not of the contact code: contact pairs (contact.h) find
// their contact points from them, and a viewer may draw them.
#pragma once

#include <string>

#include "ictus/body.h"
#include "ictus/error.h"
#include "ictus/math.h"

namespace ictus {

/// A shape fixed in a body (or the ground), in the body frame.
struct Shape {
  enum class Type { kSphere, kBox, kCapsule, kPlane };
  std::string name;
  BodyIndex body = kGround;
  Type type = Type::kSphere;
  Vec3 center_B = Vec3::Zero();      ///< sphere, box and capsule centre; a point of a plane
  double radius = 0.0;               ///< sphere, capsule [m]
  Vec3 half_extents = Vec3::Zero();  ///< box: half side lengths along the body axes [m]
  double half_length = 0.0;          ///< capsule: half the distance of its end centres [m]
  Vec3 axis_B = Vec3::UnitZ();       ///< capsule axis (unit)
  Vec3 normal_B = Vec3::UnitZ();     ///< plane: outward unit normal (the solid side is behind it)
  SourceLocation where;
};

const char* shape_type_name(Shape::Type type);

}  // namespace ictus
