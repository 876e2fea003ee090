// Where things sit in a state vector, and the group operation on positions.
//
//   y = [ q (7 per body) | v (6 per body) | audit (energy quadratures) ]
//   q per body: [ p_WB (3), quaternion q_WB (w, x, y, z) ]
//   v per body: [ v_WB (3, world), w_B (3, body frame) ]
//
// Positions live on (R^3 x SO(3))^n, not in a vector space. A position
// increment dq has 6 entries per body, [dp_W (3), dtheta_B (3)], and is
// applied by q (+) dq:  p <- p + dp,  q_WB <- q_WB * exp(dtheta_B)
// (right trivialisation, the convention of the body-frame angular velocity).
// With it the velocity v *is* the rate of the increment, and every stepper
// moves positions through integrate_positions(): quaternions stay unit by
// construction and no stepper renormalises by hand (Brüls, Cardona & Arnold,
// "Lie group generalized-alpha time integration of constrained flexible
// multibody systems", Mech. Mach. Theory 48, 2012).
#pragma once

#include "ictus/math.h"

namespace ictus {

/// Named segments of the state vector; no code outside this struct does
/// index arithmetic on a state.
struct StateLayout {
  int bodies = 0;
  int audit = 0;  ///< energy-audit quadratures (outside error norms and Newton)

  int position_size() const { return 7 * bodies; }
  int velocity_size() const { return 6 * bodies; }  ///< also the size of a position increment
  int size() const { return 13 * bodies + audit; }
  int velocity_offset() const { return 7 * bodies; }
  int audit_offset() const { return 13 * bodies; }

  template <class V>
  auto positions(V&& y) const {
    return y.segment(0, position_size());
  }
  template <class V>
  auto velocities(V&& y) const {
    return y.segment(velocity_offset(), velocity_size());
  }
  template <class V>
  auto audit_entries(V&& y) const {
    return y.segment(audit_offset(), audit);
  }
  /// Body b's position p_WB, quaternion (w, x, y, z) and twist [v_WB, w_B].
  template <class V>
  auto body_position(V&& y, int b) const {
    return y.template segment<3>(7 * b);
  }
  template <class V>
  auto body_quaternion(V&& y, int b) const {
    return y.template segment<4>(7 * b + 3);
  }
  /// Body b's orientation q_WB as stored (not renormalised).
  template <class V>
  Quat body_orientation(const V& y, int b) const {
    return Quat(y(7 * b + 3), y(7 * b + 4), y(7 * b + 5), y(7 * b + 6));
  }
  template <class V>
  auto body_velocity(V&& y, int b) const {
    return y.template segment<6>(velocity_offset() + 6 * b);
  }
};

/// The cubic Hermite basis on s in [0, 1] (the dense output of rk4, rkf45
/// and the structural steppers): p(s) = h00 p0 + h10 h p0' + h01 p1 + h11 h p1'.
struct HermiteBasis {
  double h00, h10, h01, h11;
  explicit HermiteBasis(double s)
      : h00((1.0 + 2.0 * s) * (1.0 - s) * (1.0 - s)),
        h10(s * (1.0 - s) * (1.0 - s)),
        h01(s * s * (3.0 - 2.0 * s)),
        h11(s * s * (s - 1.0)) {}
};

/// q_out = q (+) dq (see the file comment). q_out may alias q.
void integrate_positions(const StateLayout& layout, Eigen::Ref<const VecX> q,
                         Eigen::Ref<const VecX> dq, Eigen::Ref<VecX> q_out);

/// The increment dq with q1 = q0 (+) dq (rotation angles below pi).
void position_difference(const StateLayout& layout, Eigen::Ref<const VecX> q0,
                         Eigen::Ref<const VecX> q1, Eigen::Ref<VecX> dq);

/// Inverse of the right Jacobian of SO(3): if R(t) = R0 exp(theta(t)) and
/// the body angular velocity is w, then theta' = J_r^-1(theta) w.
Mat3 so3_right_jacobian_inverse(const Vec3& theta);

/// Rate of the position increment in the chart centred at q0 when the
/// increment is dq and the velocities are v: translations move with v_WB,
/// rotation increments with J_r^-1(dtheta) w_B.
void increment_rate(const StateLayout& layout, Eigen::Ref<const VecX> dq, Eigen::Ref<const VecX> v,
                    Eigen::Ref<VecX> rate);

/// Quaternion time derivative q' = q (x) (0, w_B) / 2, per body (for steppers
/// that integrate the first-order form, e.g. CVODE).
void quaternion_rates(const StateLayout& layout, Eigen::Ref<const VecX> q, Eigen::Ref<const VecX> v,
                      Eigen::Ref<VecX> q_rate);

}  // namespace ictus
