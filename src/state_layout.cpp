#include "ictus/state_layout.h"

#include <cmath>

namespace ictus {

namespace {
Quat quaternion_at(Eigen::Ref<const VecX> q, int b) {
  return Quat(q(7 * b + 3), q(7 * b + 4), q(7 * b + 5), q(7 * b + 6));
}
}  // namespace

void integrate_positions(const StateLayout& layout, Eigen::Ref<const VecX> q,
                         Eigen::Ref<const VecX> dq, Eigen::Ref<VecX> q_out) {
  for (int b = 0; b < layout.bodies; ++b) {
    q_out.segment<3>(7 * b) = q.segment<3>(7 * b) + dq.segment<3>(6 * b);
    // the product of unit quaternions is unit up to round-off; normalising
    // here keeps it so over millions of steps (part of the group operation)
    const Quat r = (quaternion_at(q, b) * quat_exp(dq.segment<3>(6 * b + 3))).normalized();
    q_out(7 * b + 3) = r.w();
    q_out(7 * b + 4) = r.x();
    q_out(7 * b + 5) = r.y();
    q_out(7 * b + 6) = r.z();
  }
}

void position_difference(const StateLayout& layout, Eigen::Ref<const VecX> q0,
                         Eigen::Ref<const VecX> q1, Eigen::Ref<VecX> dq) {
  for (int b = 0; b < layout.bodies; ++b) {
    dq.segment<3>(6 * b) = q1.segment<3>(7 * b) - q0.segment<3>(7 * b);
    Quat r = quaternion_at(q0, b).conjugate() * quaternion_at(q1, b);
    if (r.w() < 0.0) r.coeffs() = -r.coeffs();  // the shorter way round
    const double s = r.vec().norm();
    const double angle = 2.0 * std::atan2(s, r.w());
    dq.segment<3>(6 * b + 3) = s > 1e-300 ? Vec3(r.vec() * (angle / s)) : Vec3(2.0 * r.vec());
  }
}

Mat3 so3_right_jacobian_inverse(const Vec3& theta) {
  // J_r^-1 = I + [theta]/2 + (1/a^2 - (1 + cos a)/(2 a sin a)) [theta]^2,
  // a = |theta|; the coefficient is 1/12 + a^2/720 + O(a^4) near 0
  const double a2 = theta.squaredNorm();
  double c = 0.0;
  if (a2 < 1e-8) {
    c = 1.0 / 12.0 + a2 / 720.0;
  } else {
    const double a = std::sqrt(a2);
    c = 1.0 / a2 - (1.0 + std::cos(a)) / (2.0 * a * std::sin(a));
  }
  const Mat3 k = skew(theta);
  return Mat3::Identity() + 0.5 * k + c * k * k;
}

void increment_rate(const StateLayout& layout, Eigen::Ref<const VecX> dq, Eigen::Ref<const VecX> v,
                    Eigen::Ref<VecX> rate) {
  for (int b = 0; b < layout.bodies; ++b) {
    rate.segment<3>(6 * b) = v.segment<3>(6 * b);
    const Vec3 theta = dq.segment<3>(6 * b + 3);
    const Vec3 w = v.segment<3>(6 * b + 3);
    rate.segment<3>(6 * b + 3) =
        theta.isZero(0.0) ? w : Vec3(so3_right_jacobian_inverse(theta) * w);
  }
}

void quaternion_rates(const StateLayout& layout, Eigen::Ref<const VecX> q, Eigen::Ref<const VecX> v,
                      Eigen::Ref<VecX> q_rate) {
  for (int b = 0; b < layout.bodies; ++b) {
    q_rate.segment<3>(7 * b) = v.segment<3>(6 * b);
    // q' = q (x) (0, w_B) / 2, with the quaternion as stored
    const Quat qb = quaternion_at(q, b);
    const Vec3 w = v.segment<3>(6 * b + 3);
    q_rate(7 * b + 3) = -0.5 * (qb.x() * w.x() + qb.y() * w.y() + qb.z() * w.z());
    q_rate(7 * b + 4) = 0.5 * (qb.w() * w.x() + qb.y() * w.z() - qb.z() * w.y());
    q_rate(7 * b + 5) = 0.5 * (qb.w() * w.y() + qb.z() * w.x() - qb.x() * w.z());
    q_rate(7 * b + 6) = 0.5 * (qb.w() * w.z() + qb.x() * w.y() - qb.y() * w.x());
  }
}

}  // namespace ictus
