// Spring-damper acting on a joint coordinate: a torsion spring about a
// revolute (or cylindrical) joint axis, or a linear spring along a prismatic
// (or cylindrical) joint axis.
#pragma once

#include "ictus/force.h"
#include "ictus/joint.h"

namespace ictus {

/// Generalised force Q = -(F0 + k (q - q0) + c q') on the joint coordinate q
/// (angle [rad] or translation [m]), applied as a torque about / force along
/// the joint axis z on the follower and the opposite on the base.
/// Potential V = F0 (q - q0) + k (q - q0)^2 / 2; dissipated power c q'^2.
///
/// Nonlinear damping (seed 003, issue 16), u = q - q0: structural
/// (hysteretic) damping psi k |u| sgn(u') and dry friction fT sgn(u'), both
/// set-valued at u' = 0 with F_max(u) = psi k |u| + fT: slipping in mode
/// +-1 the element adds -mode F_max to Q (dissipated power mode F_max q');
/// stuck, the System holds q by a driver row (force.h, stick/slip law).
class JointSpringDamper final : public ForceElement {
 public:
  enum class Coordinate { kAngle, kTranslation };
  struct Parameters {
    double stiffness = 0.0;           ///< k >= 0 [N m/rad or N/m]
    double damping = 0.0;             ///< c >= 0 [N m s/rad or N s/m]
    double free_value = 0.0;          ///< q0 [rad or m]
    double preload = 0.0;             ///< F0 [N m or N], load at q = q0
    double structural_damping = 0.0;  ///< psi >= 0 (loss factor)
    double dry_friction = 0.0;        ///< fT >= 0 [N m or N]
  };

  JointSpringDamper(std::string name, std::string joint, Coordinate coordinate, Parameters p,
                    SourceLocation where = {});

  std::string_view kind() const override {
    return coordinate_ == Coordinate::kAngle ? "rotational_spring_damper" : "joint_spring_damper";
  }
  std::unique_ptr<ForceElement> clone() const override;
  void prepare(ForceBuildContext& ctx) override;
  std::vector<BodyIndex> bodies() const override { return {}; }
  ForcePower apply(const ForceContext& ctx, LoadAccumulator& loads) const override;
  double potential_energy(const ForceContext& ctx) const override;
  std::vector<BodyIndex> jacobian_bodies() const override { return {base_, follower_}; }
  /// Analytic: Q = F0 + k (q - q0) + c q' through the derivatives of the
  /// joint coordinate q and its rate, plus Q times the turning of the axis
  /// and lever (docs/theory/jacobians.md); the slip force by the
  /// finite-difference default (piecewise in the mode).
  void add_jacobian(const ForceContext& ctx, ForceJacobian& J) const override;
  std::vector<std::string> channel_names() const override;
  std::string channel_unit(int k) const override;
  double channel_value(int k, const ForceContext& ctx) const override;
  const std::string& joint() const { return joint_; }

  bool has_nonlinear_part() const override { return has_stick_slip(); }
  ForcePower apply_part(const ForceContext& ctx, LoadAccumulator& loads,
                        ForcePart part) const override;
  bool has_stick_slip() const override {
    return p_.structural_damping > 0.0 || p_.dry_friction > 0.0;
  }
  const std::string& hold_joint() const override { return joint_; }
  bool hold_is_angle() const override { return coordinate_ == Coordinate::kAngle; }
  double slip_coordinate(const ForceContext& /*ctx*/) const override { return *q_ - p_.free_value; }
  double slip_rate(const ForceContext& /*ctx*/) const override { return *q_rate_; }
  double slip_limit(const ForceContext& /*ctx*/) const override;
  double slip_limit_floor() const override { return p_.dry_friction; }
  /// F along (about) the joint axis on the follower: minus a load Q.
  void add_slip_load(const ForceContext& ctx, LoadAccumulator& loads, double F) const override {
    add(ctx, loads, -F);
  }

 private:
  double load() const;  // linear part: F0 + k (q - q0) + c q'
  void add(const ForceContext& ctx, LoadAccumulator& loads, double q_load) const;

  std::string joint_;
  Coordinate coordinate_;
  Parameters p_;
  // resolved by prepare()
  BodyIndex base_ = kGround;
  BodyIndex follower_ = kGround;
  // The System's joint, read at every use: a capture joint retakes its
  // follower frame when it closes, and the spring acts in the new frame.
  const Joint* joint_frames_ = nullptr;
  Vec3 axis_base() const { return joint_frames_->frame_base.axes.col(2); }
  const Vec3& origin_follower() const { return joint_frames_->frame_follower.origin; }
  const Mat3& axes_base() const { return joint_frames_->frame_base.axes; }  // base coordinates
  const Mat3& axes_follower() const { return joint_frames_->frame_follower.axes; }
  const Vec3& origin_base() const { return joint_frames_->frame_base.origin; }
  const double* q_ = nullptr;
  const double* q_rate_ = nullptr;
};

}  // namespace ictus
