// Joints are named sets of elementary constraints (seed 002) between a base
// body i and a follower body j.
//
// Every joint carries a frame on each body (origin and axes in body
// coordinates). The two frames coincide in the assembled configuration. The
// joint axis is the z axis of the joint frame; reactions are reported as the
// force and moment that the base exerts on the follower at the follower's
// frame origin, in world axes and in the base's joint frame.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ictus/body.h"
#include "ictus/constraint.h"
#include "ictus/error.h"
#include "ictus/math.h"

namespace ictus {

/// A frame fixed in a body: origin and axes (columns x, y, z) in body coordinates.
struct Frame {
  Vec3 origin = Vec3::Zero();
  Mat3 axes = Mat3::Identity();
};

/// One elementary constraint of a joint, with a label used in reports
/// ("point", "lock x"). The full name of its rows is "<joint>.<label>[.<row>]".
struct JointMember {
  std::shared_ptr<const ElementaryConstraint> constraint;
  std::string label;
  /// Newton restitution k in [0, 1] when the constraint closes with its
  /// velocity violated (seed 000 eq. 5, generalised per constraint): after
  /// the impact the relative velocity of its rows is -k times the one before.
  /// k = 0 (plastic) keeps the constraint closed; k > 0 lets the bodies part
  /// again, so the constraint is released right after the impulse.
  double restitution = 0.0;
};

/// Coulomb friction in a joint whose normal force is a reaction (seed 004,
/// docs/theory/friction.md): prismatic and cylindrical joints resist the
/// translation along their axis with mu |N|, N the transverse reaction force;
/// a revolute joint resists its rotation with the moment mu |N| r, N the
/// radial reaction force and r the pin radius. Slipping the friction opposes
/// the motion with mu; at a zero rate the joint sticks while the force that
/// holds it stays within mu_static |N| (docs/theory/stick-slip.md).
struct JointFriction {
  bool present = false;     ///< the joint has a friction law
  double mu = 0.0;          ///< kinetic coefficient, >= 0
  double mu_static = -1.0;  ///< static coefficient, >= mu; negative: equal to mu
  double radius = 0.0;      ///< pin radius of a revolute joint [m]; 0 for a slider
  SourceLocation where;     ///< the 'friction' key, for messages
  double static_coefficient() const { return mu_static < 0.0 ? mu : mu_static; }
};

/// A named set of elementary constraints between two bodies.
struct Joint {
  std::string name;
  std::string type;  ///< "revolute", "custom", ... (informational)
  BodyIndex base = kGround;
  BodyIndex follower = kGround;
  Frame frame_base;      ///< joint frame in base coordinates
  Frame frame_follower;  ///< joint frame in follower coordinates
  std::vector<JointMember> members;
  bool has_angle = false;        ///< rotation about z is a coordinate (revolute, cylindrical)
  bool has_translation = false;  ///< translation along z is a coordinate (prismatic, cylindrical)
  /// A latch: when the joint is switched on during a run, the follower's
  /// frame is taken to coincide with the base's at that instant, so the joint
  /// closes exactly where the bodies are (positions do not jump, seed 000).
  bool capture = false;
  double angle_offset = 0.0;        ///< value of the angle in the assembled configuration [rad]
  double translation_offset = 0.0;  ///< value of the translation there [m]
  JointFriction friction;           ///< Coulomb friction (seed 004), if present
  SourceLocation where;
};

/// Geometry of a joint given in world coordinates at the initial configuration.
struct JointPlacement {
  Vec3 origin_W = Vec3::Zero();    ///< joint point
  Mat3 axes_W = Mat3::Identity();  ///< joint frame axes (z = joint axis)
  double initial_angle = 0.0;      ///< value of the angle coordinate there [rad]
  double initial_position = 0.0;   ///< value of the translation coordinate there [m]
};

/// Builds the frames of a joint between bodies placed at their initial poses.
/// `base_pose`/`follower_pose` are (p_WB, q_WB); the ground is (0, identity).
void place_joint(Joint& joint, const JointPlacement& placement, const Vec3& p_base,
                 const Quat& q_base, const Vec3& p_follower, const Quat& q_follower);

/// Adds the elementary constraints of a standard joint type to `joint`, whose
/// frames are already set. Known types: fixed, revolute, prismatic,
/// cylindrical, spherical, universal, planar, point_on_line.
/// Throws ModelError (at joint.where) for an unknown type.
void add_standard_constraints(Joint& joint);

/// Names of the standard joint types.
std::vector<std::string> standard_joint_types();

}  // namespace ictus
