// Coulomb friction in a joint whose normal force is a reaction (seed 004:
// Wang, Peng, Wang; docs/theory/friction.md).
//
// A prismatic or cylindrical joint resists the slide q' along its axis with
// the force F = -mu |N| sgn(q'), N the transverse reaction force; a revolute
// joint resists its turn with the moment F = -mu r |N| sgn(q'), N the radial
// reaction force and r the pin radius (reaction_friction.h: how F is solved).
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
  /// origin, or a moment about the axis), -F on the base.
  void add_load(const ForceContext& ctx, LoadAccumulator& loads, double F) const override;
  const std::string& site() const override { return joint_; }
  /// Axis of the joint in world coordinates.
  Vec3 axis_W(const ForceContext& ctx) const;

  const std::string& hold_joint() const override { return joint_; }
  bool hold_is_angle() const override { return angle_; }
  double slip_coordinate(const ForceContext& /*ctx*/) const override { return *q_; }
  double slip_rate(const ForceContext& /*ctx*/) const override { return *q_rate_; }

  const std::string& joint() const { return joint_; }

 private:
  std::string joint_;
  bool angle_ = false;
  BodyIndex base_ = kGround;
  BodyIndex follower_ = kGround;
  const Joint* frames_ = nullptr;
  const double* q_ = nullptr;
  const double* q_rate_ = nullptr;
};

}  // namespace ictus
