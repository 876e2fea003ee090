// Small fixed-size linear algebra used throughout ictus.
//
// Notation (Drake-style monograms, see docs/notation.md):
//   p_WB   position of point B measured from the world origin, expressed in W
//   R_WB   rotation matrix taking vectors expressed in B to W
//   w_B    angular velocity of a body expressed in its own frame B
// Every body's frame B sits at its centre of mass.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <cmath>
#include <numbers>

namespace ictus {

using Vec3 = Eigen::Vector3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;
using VecX = Eigen::VectorXd;

inline constexpr double kPi = std::numbers::pi;

/// Cross-product matrix: skew(a) * b == a.cross(b).
inline Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return m;
}

/// Inverse of skew() for the skew-symmetric part of m: vee(m - m^T) / 2.
/// For a rotation matrix close to identity this is the small rotation vector.
inline Vec3 vee_skew_part(const Mat3& m) {
  return 0.5 * Vec3(m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1));
}

/// Wraps an angle to (-pi, pi].
inline double wrap_to_pi(double angle) {
  double a = std::remainder(angle, 2.0 * kPi);
  if (a <= -kPi) a += 2.0 * kPi;
  return a;
}

/// Unit quaternion for a rotation by `angle` [rad] about the unit `axis`.
inline Quat quat_from_axis_angle(const Vec3& axis, double angle) {
  return Quat(Eigen::AngleAxisd(angle, axis));
}

/// Exponential map: the unit quaternion of the rotation vector `theta` [rad].
inline Quat quat_exp(const Vec3& theta) {
  const double angle = theta.norm();
  if (angle < 1e-12) {
    Quat q(1.0, 0.5 * theta.x(), 0.5 * theta.y(), 0.5 * theta.z());
    return q.normalized();
  }
  return Quat(Eigen::AngleAxisd(angle, theta / angle));
}

/// A unit vector perpendicular to the unit vector `n` (deterministic choice).
inline Vec3 any_perpendicular(const Vec3& n) {
  const Vec3 trial = std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  return (trial - trial.dot(n) * n).normalized();
}

/// Right-handed orthonormal frame whose third column is the unit vector `z`.
/// `x_hint` (need not be unit or perpendicular) picks the first axis; if it is
/// zero or parallel to z a deterministic perpendicular is chosen.
inline Mat3 frame_from_z(const Vec3& z, const Vec3& x_hint = Vec3::Zero()) {
  Vec3 x = x_hint - x_hint.dot(z) * z;
  if (x.norm() < 1e-9) x = any_perpendicular(z);
  x.normalize();
  Mat3 axes;
  axes.col(0) = x;
  axes.col(1) = z.cross(x);
  axes.col(2) = z;
  return axes;
}

}  // namespace ictus
