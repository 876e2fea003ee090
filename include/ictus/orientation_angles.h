// Orientation as angles (seed 002): Bryant (Cardan) angles x-y-z and Euler
// angles z-x-z, both of rotating axes, R = Rx(a) Ry(b) Rz(c) and
// R = Rz(phi) Rx(theta) Rz(psi). docs/channels.md states the ranges and what
// happens at the singular configurations (gimbal lock).
#pragma once

#include "ictus/math.h"

namespace ictus {

/// Below this |cos b| (Bryant) or |sin theta| (Euler) the first and third
/// axes coincide (gimbal lock) and the third angle is set to 0.
inline constexpr double kGimbalLock = 1e-12;

/// R = Rx(a) Ry(b) Rz(c), angles (a, b, c) [rad].
Quat quat_from_bryant(const Vec3& angles);
/// R = Rz(phi) Rx(theta) Rz(psi), angles (phi, theta, psi) [rad].
Quat quat_from_euler_zxz(const Vec3& angles);

/// Bryant angles of R: a, c in (-pi, pi], b in [-pi/2, pi/2]. At gimbal lock
/// (|cos b| below 1e-12, where only a + c or a - c is defined) c = 0.
Vec3 bryant_angles(const Mat3& R);
/// Euler z-x-z angles of R: phi, psi in (-pi, pi], theta in [0, pi]. At
/// gimbal lock (|sin theta| below 1e-12, where only phi + psi or phi - psi is
/// defined) psi = 0.
Vec3 euler_zxz_angles(const Mat3& R);

/// `angles` with its first and third components moved by whole turns to
/// lie within half a turn of `reference`'s (continuity through full turns
/// about the first and third axes).
Vec3 unwrap_outer_angles(const Vec3& angles, const Vec3& reference);

}  // namespace ictus
