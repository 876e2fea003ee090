#include "ictus/orientation_angles.h"

#include <cmath>

namespace ictus {

namespace {

Quat about(const Vec3& axis, double angle) {
  return Quat(Eigen::AngleAxisd(angle, axis));
}

}  // namespace

Quat quat_from_bryant(const Vec3& angles) {
  return about(Vec3::UnitX(), angles[0]) * about(Vec3::UnitY(), angles[1]) *
         about(Vec3::UnitZ(), angles[2]);
}

Quat quat_from_euler_zxz(const Vec3& angles) {
  return about(Vec3::UnitZ(), angles[0]) * about(Vec3::UnitX(), angles[1]) *
         about(Vec3::UnitZ(), angles[2]);
}

// R = Rx(a) Ry(b) Rz(c): R(0,2) = sin b, R(1,2) = -sin a cos b, R(2,2) = cos a cos b,
// R(0,1) = -cos b sin c, R(0,0) = cos b cos c. Eigen's eulerAngles(0, 1, 2)
// gives the same rotation but restricts a to [0, pi], which is not continuous.
Vec3 bryant_angles(const Mat3& R) {
  const double cos_b = std::hypot(R(0, 0), R(0, 1));
  const double b = std::atan2(R(0, 2), cos_b);
  if (cos_b < kGimbalLock) {
    // with c = 0: R(2,1) = sin a, R(1,1) = cos a
    return {std::atan2(R(2, 1), R(1, 1)), b, 0.0};
  }
  return {std::atan2(-R(1, 2), R(2, 2)), b, std::atan2(-R(0, 1), R(0, 0))};
}

// R = Rz(phi) Rx(theta) Rz(psi): R(2,2) = cos theta, R(0,2) = sin phi sin theta,
// R(1,2) = -cos phi sin theta, R(2,0) = sin theta sin psi, R(2,1) = sin theta cos psi.
Vec3 euler_zxz_angles(const Mat3& R) {
  const double sin_theta = std::hypot(R(2, 0), R(2, 1));
  const double theta = std::atan2(sin_theta, R(2, 2));
  if (sin_theta < kGimbalLock) {
    // with psi = 0: R(1,0) = sin phi, R(0,0) = cos phi (theta = 0 or pi)
    return {std::atan2(R(1, 0), R(0, 0)), theta, 0.0};
  }
  return {std::atan2(R(0, 2), -R(1, 2)), theta, std::atan2(R(2, 0), R(2, 1))};
}

Vec3 unwrap_outer_angles(const Vec3& angles, const Vec3& reference) {
  Vec3 out = angles;
  for (int k : {0, 2}) out[k] = reference[k] + wrap_to_pi(angles[k] - reference[k]);
  return out;
}

}  // namespace ictus
