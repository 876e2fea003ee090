// Point masses (Body::point_mass) carry no rotational inertia: their rotation
// is frozen, so no constraint row may act on it.
#pragma once

#include "ictus/model.h"

namespace ictus::internal {

/// Throws ModelError, located at the joint, for the first joint member whose
/// rows act on the rotation of a point mass (a rotation lock, a
/// perpendicularity, a point or plane away from the point mass's origin).
void check_point_mass_joints(const Model& model);

}  // namespace ictus::internal
