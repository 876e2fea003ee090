// Coulomb friction in a joint whose normal force is a reaction (seed 004:
// Wang, Peng, Wang; docs/theory/friction.md).
//
// A prismatic or cylindrical joint resists the slide q' along its axis with
// the force F = -mu |N| sgn(q'), N the transverse reaction force; a revolute
// joint resists its turn with the moment F = -mu r |N| sgn(q'), N the radial
// reaction force and r the pin radius (reaction_friction.h: how F is solved).
// A spherical joint (a ball of radius r in its socket) resists the relative
// angular velocity w = w_follower - w_base with the moment -mu r |N| w/|w|,
// N its whole reaction force: its slip has a direction, not a sign
// (docs/theory/stick-slip.md, "A ball: a slip direction").
#pragma once

#include "ictus/forces/reaction_friction.h"
#include "ictus/joint.h"

namespace ictus {

class JointFrictionElement final : public ReactionFriction {
 public:
  /// The friction of `joint` (joint.friction.present); named "<joint>.friction".
  explicit JointFrictionElement(const Joint& joint);

  std::string_view kind() const override { return "joint_friction"; }
  std::unique_ptr<ForceElement> clone() const override;
  void prepare(ForceBuildContext& ctx) override;
  std::vector<BodyIndex> bodies() const override { return {base_, follower_}; }
  /// F on the follower (a force along the axis at the follower's joint
  /// origin, a moment about the axis, or for a ball a moment along
  /// load_direction_W), -F on the base.
  void add_slip_load(const ForceContext& ctx, LoadAccumulator& loads, double F) const override;
  const std::string& site() const override { return joint_; }
  /// Axis of the joint in world coordinates.
  Vec3 axis_W(const ForceContext& ctx) const;
  /// The rate along the friction's load: q' (|w| for a ball), whose product
  /// with F is the friction's power.
  double load_rate(const ForceContext& ctx) const override;

  // --- a ball (spherical joint) ---------------------------------------------
  bool ball() const { return ball_; }
  /// Relative angular velocity w_follower - w_base (world).
  Vec3 relative_angular_velocity_W(const ForceContext& ctx) const;
  /// The slip direction of the switching function, fixed in the base: set at
  /// each switch and after every accepted step (the direction of w then), so
  /// that g = w . e changes sign where the slip stops (|w| only touches zero).
  const Vec3& slip_axis_B() const { return slip_axis_B_; }
  void set_slip_axis_B(const Vec3& e) { slip_axis_B_ = e; }
  Vec3 slip_axis_W(const ForceContext& ctx) const;
  /// Direction of the slip moment: w/|w| while w . e >= 0 (e the slip axis);
  /// past that plane, before the switch there is located, w with its e
  /// component reflected; the slip axis while |w| is at the level of the
  /// rest the slip started from (set_rest_rate; never a division by zero).
  Vec3 load_direction_W(const ForceContext& ctx) const;
  /// A slip that starts from rest at a decision: |w| of that instant, the
  /// round-off the location of the zero left (0 for an exact rest). Until
  /// |w| has grown to kRestGrowth times it, the moment is along the slip
  /// axis decided there (along the relative angular acceleration), not
  /// along the leftover w.
  void set_rest_rate(double rate) { rest_rate_ = rate; }
  double rest_rate() const { return rest_rate_; }
  static constexpr double kRestGrowth = 1e6;

  const std::string& hold_joint() const override { return joint_; }
  bool hold_is_angle() const override { return angle_; }
  /// The joint coordinate (a ball: the angle of its relative rotation from
  /// the assembled configuration, for the log).
  double slip_coordinate(const ForceContext& ctx) const override;
  /// q' (a ball: w . e, e the slip axis).
  double slip_rate(const ForceContext& ctx) const override;

  const std::string& joint() const { return joint_; }

 private:
  std::string joint_;
  bool angle_ = false;
  bool ball_ = false;
  Vec3 slip_axis_B_ = Vec3::Zero();  // a ball's slip direction (base frame)
  double rest_rate_ = 0.0;           // |w| where its slip started from rest
  BodyIndex base_ = kGround;
  BodyIndex follower_ = kGround;
  const Joint* frames_ = nullptr;
  const double* q_ = nullptr;
  const double* q_rate_ = nullptr;
};

}  // namespace ictus
