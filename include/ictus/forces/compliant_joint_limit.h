// A compliant joint limit: the stop of a joint coordinate as a stiff force
// on the same gap as the impulsive joint limit (contact.h), for a stiff
// integrator (CVODE). Per side, the normal force of a CompliantLaw
// (compliant_law.h) on the penetration d = max(0, -g) and its rate d' = -g'
// (docs/theory/contact.md, "Compliant contact"); it pushes the follower out
// of the stop along the coordinate.
#pragma once

#include <optional>

#include "ictus/force.h"
#include "ictus/forces/compliant_law.h"

namespace ictus {

class CompliantJointLimit final : public ForceElement {
 public:
  using Law = CompliantLaw::Law;
  enum class Coordinate { kAngle, kTranslation };
  /// The law and the limits.
  struct Parameters : CompliantLaw {
    std::optional<double> lower, upper;  ///< limits [m or rad]
  };
  CompliantJointLimit(std::string name, std::string joint, Coordinate coordinate, Parameters p,
                      SourceLocation where = {});

  static double hunt_crossley_damping(Law law, double restitution, double speed) {
    return CompliantLaw::hunt_crossley_damping(law, restitution, speed);
  }
  static double hunt_crossley_restitution(Law law, double beta, double speed) {
    return CompliantLaw::hunt_crossley_restitution(law, beta, speed);
  }

  std::string_view kind() const override { return "compliant_joint_limit"; }
  std::unique_ptr<ForceElement> clone() const override;
  void prepare(ForceBuildContext& ctx) override;
  std::vector<BodyIndex> bodies() const override { return {}; }
  std::vector<BodyIndex> jacobian_bodies() const override { return {base_, follower_}; }
  ForcePower apply(const ForceContext& ctx, LoadAccumulator& loads) const override;
  double potential_energy(const ForceContext& ctx) const override;
  std::vector<std::string> channel_names() const override;
  std::string channel_unit(int k) const override;
  double channel_value(int k, const ForceContext& ctx) const override;
  const Parameters& parameters() const { return p_; }
  /// The restitution the law gives at parameters().impact_speed (0 if none given).
  double restitution_at_impact_speed() const { return p_.restitution_at_impact_speed(); }

 private:
  struct Side {
    double sign;  // +1 lower, -1 upper
    double limit;
    std::string prefix;  // "" or "lower." / "upper."
  };
  double gap(const Side& s) const { return s.sign * (*q_ - s.limit); }

  std::string joint_;
  Coordinate coordinate_;
  Parameters p_;
  std::vector<Side> sides_;
  BodyIndex base_ = kGround;
  BodyIndex follower_ = kGround;
  Vec3 axis_base_ = Vec3::UnitZ();
  Vec3 origin_follower_ = Vec3::Zero();
  const double* q_ = nullptr;
  const double* q_rate_ = nullptr;
};

}  // namespace ictus
