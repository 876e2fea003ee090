// Unilateral contacts of a Model (docs/theory/contact.md).
//
// A joint limit is a stop on a joint coordinate c (the translation of a
// prismatic or cylindrical joint, the angle of a revolute or cylindrical
// joint), one-sided (`lower` or `upper`) or two-sided. Each side is one
// unilateral row with the gap
//   g = c - lower   (lower side),     g = upper - c   (upper side),
// admissible while g >= 0. With the impulsive law (Moreau; Pfeiffer and
// Glocker) the normal force N >= 0 acts only while g = 0, complementary to
// the gap acceleration; at an impact the normal impulse P >= 0 and Newton's
// law g'+ >= -e g'- hold complementarily (docs/theory/contact.md).
#pragma once

#include <optional>
#include <string>

#include "ictus/error.h"

namespace ictus {

/// A stop on a joint coordinate (model file: `contacts:`, `type: joint_limit`).
struct JointLimitContact {
  std::string name;
  std::string joint;  ///< the joint whose coordinate is limited
  /// Which coordinate: kAuto takes the joint's only one (a cylindrical
  /// joint has two and needs kTranslation or kAngle).
  enum class Coordinate { kAuto, kTranslation, kAngle };
  Coordinate coordinate = Coordinate::kAuto;
  std::optional<double> lower;  ///< [m or rad]
  std::optional<double> upper;  ///< [m or rad]
  double restitution = 0.0;     ///< Newton's coefficient e in [0, 1]
  /// An accumulation of impacts (Zeno) is ended in persistent contact when
  /// the flights that remain would last less than this [s] (contact.md).
  double accumulation_time = 1e-6;
  SourceLocation where;
};

/// Coulomb friction at a contact (docs/theory/friction.md, "Friction at
/// contacts"): the tangential force at each contact point is at most
/// mu_static N while the point sticks and mu N against the slip while it
/// slides, N the point's normal force.
struct ContactFriction {
  bool present = false;     ///< the contact has a friction law
  double mu = 0.0;          ///< kinetic coefficient, >= 0
  double mu_static = -1.0;  ///< static coefficient, >= mu; negative: equal to mu
  SourceLocation where;     ///< the 'friction' key, for messages
  double static_coefficient() const { return mu_static < 0.0 ? mu : mu_static; }
};

/// Contact between the shapes of two bodies (model file: `contacts:`, `type:
/// shapes`): every pair of a shape of one and a shape of the other gives
/// its contact points (sphere-plane: 1, sphere-sphere: 1, box-plane: the 8
/// corners, capsule-plane: its 2 end spheres), each a unilateral side.
struct ShapeContact {
  std::string name;
  std::string body_a, body_b;
  double restitution = 0.0;
  double accumulation_time = 1e-6;
  ContactFriction friction;  ///< Coulomb friction at every contact point
  SourceLocation where;
};

}  // namespace ictus
