// A compliant joint limit: the stop of a joint coordinate as a stiff force
// on the same gap as the impulsive joint limit (contact.h), for a stiff
// integrator (CVODE). Per side, with the penetration d = max(0, -g) and its
// rate d' = -g' (docs/theory/contact.md, "Compliant contact"):
//   Kelvin-Voigt:           N = k d + c d'
//   Hunt-Crossley, linear:  N = k d (1 + beta d')          (seed 001)
//   Hunt-Crossley, Hertz:   N = k d^(3/2) (1 + beta d')
// clipped at N >= 0 by default (a contact does not pull; issue 16 item 5:
// Hunt-Crossley's force turns tensile when d' < -1/beta). The normal force
// pushes the follower out of the stop along the coordinate.
//
// Damping from a wanted restitution e at an impact speed v (issue 16 item 4):
//   linear Hunt-Crossley, exact:  a (1 + e) = ln((1 + a)/(1 - a e)), a = beta v
//   Hertz, Flores et al. (2011):  beta = 8 (1 - e) / (5 e v)  (an approximation;
//   the restitution it actually gives is computed and reported)
// For both Hunt-Crossley laws e depends on beta v only (without other forces).
#pragma once

#include <optional>

#include "ictus/force.h"

namespace ictus {

class CompliantJointLimit final : public ForceElement {
 public:
  enum class Law { kKelvinVoigt, kHuntCrossley, kHertz };
  enum class Coordinate { kAngle, kTranslation };
  struct Parameters {
    std::optional<double> lower, upper;  ///< limits [m or rad]
    Law law = Law::kHuntCrossley;
    double stiffness = 0.0;  ///< k > 0 [N/m, N/m^1.5, N m/rad]
    double damping = 0.0;    ///< c [N s/m] (Kelvin-Voigt) or beta [s/m] (Hunt-Crossley)
    bool clip = true;        ///< N >= 0
    /// The restitution the law gives at `impact_speed` (reported; for the
    /// linear law exactly the wanted one when the damping was derived).
    double impact_speed = 0.0;
  };
  CompliantJointLimit(std::string name, std::string joint, Coordinate coordinate, Parameters p,
                      SourceLocation where = {});

  /// beta for the wanted restitution e at impact speed v: exact for the
  /// linear law, Flores et al.'s approximation for Hertz.
  static double hunt_crossley_damping(Law law, double restitution, double speed);
  /// The restitution a Hunt-Crossley law gives at impact speed v (no other
  /// forces): the closed form for the linear law, a quadrature for Hertz.
  static double hunt_crossley_restitution(Law law, double beta, double speed);

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
  double restitution_at_impact_speed() const;

 private:
  struct Side {
    double sign;  // +1 lower, -1 upper
    double limit;
    std::string prefix;  // "" or "lower." / "upper."
  };
  double gap(const Side& s) const { return s.sign * (*q_ - s.limit); }
  /// Normal force and its elastic part at penetration d, rate d'.
  void normal(double d, double d_rate, double* N, double* elastic) const;

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
