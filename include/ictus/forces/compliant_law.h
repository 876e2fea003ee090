// The normal-force laws of compliant contact (docs/theory/contact.md,
// "Compliant contact"), shared by every compliant contact element: a joint
// limit (compliant_joint_limit.h) and a contact between shapes
// (compliant_shape_contact.h). With the penetration d = max(0, -g) and its
// rate d' = -g':
//   Kelvin-Voigt:           N = k d + c d'
//   Hunt-Crossley, linear:  N = k d (1 + beta d')          (seed 001)
//   Hunt-Crossley, Hertz:   N = k d^(3/2) (1 + beta d')
// clipped at N >= 0 by default (a contact does not pull; issue 16 item 5:
// Hunt-Crossley's force turns tensile when d' < -1/beta).
//
// Damping from a wanted restitution e at an impact speed v (issue 16 item 4):
//   linear Hunt-Crossley, exact:  a (1 + e) = ln((1 + a)/(1 - a e)), a = beta v
//   Hertz, Flores et al. (2011):  beta = 8 (1 - e) / (5 e v)  (an approximation;
//   the restitution it actually gives is computed and reported)
// For both Hunt-Crossley laws e depends on beta v only (without other forces).
#pragma once

#include <string>

#include "ictus/error.h"

namespace ictus {

struct CompliantLaw {
  enum class Law { kKelvinVoigt, kHuntCrossley, kHertz };
  Law law = Law::kHuntCrossley;
  double stiffness = 0.0;  ///< k > 0 [N/m, N/m^1.5, N m/rad]
  double damping = 0.0;    ///< c [N s/m] (Kelvin-Voigt) or beta [s/m] (Hunt-Crossley)
  bool clip = true;        ///< N >= 0
  /// The restitution the law gives at `impact_speed` (reported; for the
  /// linear law exactly the wanted one when the damping was derived).
  double impact_speed = 0.0;

  /// Throws ModelError unless k > 0 and the damping >= 0 (both finite).
  void validate(const SourceLocation& where, const std::string& element) const;
  /// Normal force N and its elastic part at penetration d > 0, rate d'.
  void normal(double d, double d_rate, double* N, double* elastic) const;
  /// Elastic potential at penetration d > 0: k d^2 / 2 or 2/5 k d^(5/2).
  double potential(double d) const;
  /// The restitution the law gives at impact_speed (0 if none given or
  /// Kelvin-Voigt).
  double restitution_at_impact_speed() const;

  /// beta for the wanted restitution e at impact speed v: exact for the
  /// linear law, Flores et al.'s approximation for Hertz.
  static double hunt_crossley_damping(Law law, double restitution, double speed);
  /// The restitution a Hunt-Crossley law gives at impact speed v (no other
  /// forces): the closed form for the linear law, a quadrature for Hertz.
  static double hunt_crossley_restitution(Law law, double beta, double speed);
};

}  // namespace ictus
