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
