// STAND-IN, to be merged with the lead's src/mechanical_system.cpp and
// src/state_layout.cpp: the first-order form y' = F(t, y) that the SUNDIALS
// steppers integrate, and the default finite-difference Jacobian (which is
// the key function of MechanicalSystem: without a definition no subclass
// links). Same conventions as state_layout.h; when the lead's files land,
// delete this file and its line in src/CMakeLists.txt.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ictus/mechanical_system.h"
#include "ictus/state_layout.h"

namespace ictus {

void quaternion_rates(const StateLayout& layout, Eigen::Ref<const VecX> q, Eigen::Ref<const VecX> v,
                      Eigen::Ref<VecX> q_rate) {
  for (int b = 0; b < layout.bodies; ++b) {
    q_rate.segment<3>(7 * b) = v.segment<3>(6 * b);
    // q' = q (x) (0, w_B) / 2, with the quaternion as stored (w, x, y, z)
    const double qw = q(7 * b + 3), qx = q(7 * b + 4), qy = q(7 * b + 5), qz = q(7 * b + 6);
    const Vec3 w = v.segment<3>(6 * b + 3);
    q_rate(7 * b + 3) = -0.5 * (qx * w.x() + qy * w.y() + qz * w.z());
    q_rate(7 * b + 4) = 0.5 * (qw * w.x() + qy * w.z() - qz * w.y());
    q_rate(7 * b + 5) = 0.5 * (qw * w.y() + qz * w.x() - qx * w.z());
    q_rate(7 * b + 6) = 0.5 * (qw * w.z() + qx * w.y() - qy * w.x());
  }
}

void MechanicalSystem::derivative(double t, const VecX& y, Eigen::Ref<VecX> dy) {
  const StateLayout& l = layout();
  accelerations(t, y, dy.tail(l.velocity_size() + l.audit));
  quaternion_rates(l, l.positions(y), l.velocities(y), dy.head(l.position_size()));
}

void MechanicalSystem::jacobian(double t, const VecX& y, const VecX& rates, MatX& A_q, MatX& A_v) {
  const StateLayout& l = layout();
  const int nv = l.velocity_size();
  y_perturbed_.resize(y.size());
  rates_perturbed_.resize(rates.size());
  A_q.resize(nv, nv);
  A_v.resize(nv, nv);
  // forward differences, step sqrt(eps) * max(|x|, 1) (Dennis & Schnabel, sec. 5.4)
  const double root_eps = std::sqrt(std::numeric_limits<double>::epsilon());
  for (int j = 0; j < nv; ++j) {
    const int body = j / 6;
    const int k = j % 6;
    y_perturbed_ = y;
    double h = root_eps;
    if (k < 3) {  // p <- p + dp
      h *= std::max(std::abs(y(7 * body + k)), 1.0);
      y_perturbed_(7 * body + k) += h;
    } else {  // q_WB <- q_WB * exp(dtheta_B)
      Vec3 theta = Vec3::Zero();
      theta(k - 3) = h;
      const Quat q0(y(7 * body + 3), y(7 * body + 4), y(7 * body + 5), y(7 * body + 6));
      const Quat q1 = q0 * quat_exp(theta);
      y_perturbed_.segment<4>(7 * body + 3) << q1.w(), q1.x(), q1.y(), q1.z();
    }
    accelerations(t, y_perturbed_, rates_perturbed_);
    A_q.col(j) = (rates_perturbed_.head(nv) - rates.head(nv)) / h;
  }
  for (int j = 0; j < nv; ++j) {
    const double h = root_eps * std::max(std::abs(y(l.velocity_offset() + j)), 1.0);
    y_perturbed_ = y;
    y_perturbed_(l.velocity_offset() + j) += h;
    accelerations(t, y_perturbed_, rates_perturbed_);
    A_v.col(j) = (rates_perturbed_.head(nv) - rates.head(nv)) / h;
  }
}

}  // namespace ictus
