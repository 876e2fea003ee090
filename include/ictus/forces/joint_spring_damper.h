// Spring-damper acting on a joint coordinate: a torsion spring about a
// revolute (or cylindrical) joint axis, or a linear spring along a prismatic
// (or cylindrical) joint axis.
#pragma once

#include "ictus/force.h"

namespace ictus {

/// Generalised force Q = -(F0 + k (q - q0) + c q') on the joint coordinate q
/// (angle [rad] or translation [m]), applied as a torque about / force along
/// the joint axis z on the follower and the opposite on the base.
/// Potential V = F0 (q - q0) + k (q - q0)^2 / 2; dissipated power c q'^2.
class JointSpringDamper final : public ForceElement {
 public:
  enum class Coordinate { kAngle, kTranslation };
  struct Parameters {
    double stiffness = 0.0;   ///< k >= 0 [N m/rad or N/m]
    double damping = 0.0;     ///< c >= 0 [N m s/rad or N s/m]
    double free_value = 0.0;  ///< q0 [rad or m]
    double preload = 0.0;     ///< F0 [N m or N], load at q = q0
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
  std::vector<std::string> channel_names() const override { return {"load"}; }
  std::string channel_unit(int) const override {
    return coordinate_ == Coordinate::kAngle ? "N m" : "N";
  }
  double channel_value(int k, const ForceContext& ctx) const override;
  const std::string& joint() const { return joint_; }

 private:
  double load() const;

  std::string joint_;
  Coordinate coordinate_;
  Parameters p_;
  // resolved by prepare()
  BodyIndex base_ = kGround;
  BodyIndex follower_ = kGround;
  Vec3 axis_base_ = Vec3::UnitZ();
  Vec3 origin_follower_ = Vec3::Zero();
  const double* q_ = nullptr;
  const double* q_rate_ = nullptr;
};

}  // namespace ictus
