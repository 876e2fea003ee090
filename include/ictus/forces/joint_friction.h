// Coulomb friction in a joint whose normal force is a reaction (seed 004:
// Wang, Peng, Wang; docs/theory/friction.md).
//
// A prismatic or cylindrical joint resists the slide q' along its axis with
// the force F = -mu |N| sgn(q'), N the transverse reaction force; a revolute
// joint resists its turn with the moment F = -mu r |N| sgn(q'), N the radial
// reaction force and r the pin radius. N depends on the accelerations, which
// depend on F: the element cannot add its load from the kinematics alone.
// The System solves for F together with the reactions, without iteration
// (system_joint_friction.cpp), and stores F and N here. Stuck (mode 0) the
// joint coordinate is held by the stick/slip hold row, within mu_static |N|.
#pragma once

#include "ictus/force.h"
#include "ictus/joint.h"

namespace ictus {

class JointFrictionElement final : public ForceElement {
 public:
  /// The friction of `joint` (joint.friction.present); named "<joint>.friction".
  explicit JointFrictionElement(const Joint& joint);

  std::string_view kind() const override { return "joint_friction"; }
  std::unique_ptr<ForceElement> clone() const override;
  void prepare(ForceBuildContext& ctx) override;
  std::vector<BodyIndex> bodies() const override { return {base_, follower_}; }
  /// Adds nothing: the System adds the slip force it solved for.
  ForcePower apply(const ForceContext& /*ctx*/, LoadAccumulator& /*loads*/) const override {
    return {};
  }
  /// Adds the generalised load of a friction force F along the coordinate:
  /// F on the follower (a force along the axis at the follower's joint
  /// origin, or a moment about the axis), -F on the base.
  void add_load(const ForceContext& ctx, LoadAccumulator& loads, double F) const;
  /// Axis of the joint in world coordinates.
  Vec3 axis_W(const ForceContext& ctx) const;

  bool has_stick_slip() const override { return true; }
  const std::string& hold_joint() const override { return joint_; }
  bool hold_is_angle() const override { return angle_; }
  double slip_coordinate(const ForceContext& /*ctx*/) const override { return *q_; }
  double slip_rate(const ForceContext& /*ctx*/) const override { return *q_rate_; }
  /// The static limit mu_static |N| (times r for a pin), with N from the
  /// System's last solve.
  double slip_limit(const ForceContext& /*ctx*/) const override { return static_lever() * normal_; }

  const std::string& joint() const { return joint_; }
  /// mu (times r for a pin): the slip force per newton of normal force.
  double kinetic_lever() const { return lever_ * mu_; }
  /// mu_static (times r for a pin).
  double static_lever() const { return lever_ * mu_static_; }
  /// Values of the System's last solve: |N| and the friction force F.
  double normal() const { return normal_; }
  double force() const { return force_; }
  void set_solution(double normal, double force) {
    normal_ = normal;
    force_ = force;
  }

 private:
  std::string joint_;
  bool angle_ = false;
  BodyIndex base_ = kGround;
  BodyIndex follower_ = kGround;
  double mu_ = 0.0;
  double mu_static_ = 0.0;
  double lever_ = 1.0;  // r for a pin, 1 for a slider
  const Joint* frames_ = nullptr;
  const double* q_ = nullptr;
  const double* q_rate_ = nullptr;
  double normal_ = 0.0;
  double force_ = 0.0;
};

}  // namespace ictus
