// A rigid body: mass properties and its initial state.
#pragma once

#include <string>

#include "ictus/error.h"
#include "ictus/math.h"

namespace ictus {

/// Index of a body in a Model. The ground has index kGround.
using BodyIndex = int;
inline constexpr BodyIndex kGround = -1;

/// A rigid body. Its frame B has its origin at the centre of mass; the inertia
/// tensor is expressed in B (it need not be diagonal).
struct Body {
  std::string name;
  double mass = 1.0;                ///< [kg], > 0
  Mat3 inertia = Mat3::Identity();  ///< J about the centre of mass, in B [kg m^2]; SPD
  /// A point mass: three translational degrees of freedom, no rotational
  /// inertia (inertia is zero). Its orientation stays at its initial value and
  /// its angular velocity at zero: the rotational block of M^-1 is zero, and
  /// constraints that act on its rotation are refused (docs/model-file.md).
  bool point_mass = false;
  Vec3 position = Vec3::Zero();          ///< p_WB at t0 [m]
  Quat orientation = Quat::Identity();   ///< q_WB at t0 (unit)
  Vec3 velocity = Vec3::Zero();          ///< v_WB at t0 [m/s]
  Vec3 angular_velocity = Vec3::Zero();  ///< w_WB expressed in W at t0 [rad/s]
  SourceLocation where;                  ///< where the body was written

  /// Throws ModelError unless mass > 0, the inertia is symmetric positive
  /// definite and physically realisable (principal moments obey the triangle
  /// inequality) or, for a point mass, zero with a zero angular velocity, and
  /// the initial state is finite.
  void validate() const;

 private:
  void validate_point_mass(const std::string& element) const;
  void validate_inertia(const std::string& element) const;
};

/// Position and velocity of one body, computed from the state vector.
/// Derived quantities (R_WB, w_W) are cached because every constraint uses them.
struct BodyKinematics {
  Vec3 p_W = Vec3::Zero();  ///< centre of mass position
  Mat3 R_WB = Mat3::Identity();
  Vec3 v_W = Vec3::Zero();  ///< centre of mass velocity
  Vec3 w_B = Vec3::Zero();  ///< angular velocity expressed in B
  Vec3 w_W = Vec3::Zero();  ///< angular velocity expressed in W

  /// World position of a point given in body coordinates.
  Vec3 point(const Vec3& p_B) const { return p_W + R_WB * p_B; }
  /// World velocity of a body-fixed point given in body coordinates.
  Vec3 point_velocity(const Vec3& p_B) const { return v_W + w_W.cross(R_WB * p_B); }
  /// World velocity of the body-fixed point that is at world position p.
  Vec3 velocity_at(const Vec3& p) const { return v_W + w_W.cross(p - p_W); }
};

}  // namespace ictus
