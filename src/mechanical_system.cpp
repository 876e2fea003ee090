#include "ictus/mechanical_system.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ictus {

void MechanicalSystem::derivative(double t, const VecX& y, Eigen::Ref<VecX> dy) {
  const StateLayout& l = layout();
  accelerations(t, y, dy.tail(l.velocity_size() + l.audit));
  quaternion_rates(l, l.positions(y), l.velocities(y), dy.head(l.position_size()));
}

std::vector<int> MechanicalSystem::coupling_groups() const {
  return std::vector<int>(static_cast<std::size_t>(layout().bodies), 0);
}

void MechanicalSystem::reserve_jacobian_work() {
  const StateLayout& l = layout();
  y_perturbed_.resize(l.size());
  rates_perturbed_.resize(l.velocity_size() + l.audit);
  increment_.resize(l.velocity_size());
}

void MechanicalSystem::jacobian(double t, const VecX& y, const VecX& rates, MatX& A_q, MatX& A_v) {
  const StateLayout& l = layout();
  const int nv = l.velocity_size();
  y_perturbed_.resize(y.size());
  rates_perturbed_.resize(rates.size());
  increment_.setZero(nv);
  A_q.resize(nv, nv);
  A_v.resize(nv, nv);
  // forward differences with a step scaled to the coordinate (Dennis &
  // Schnabel, sec. 5.4): sqrt(eps) * max(|x|, typical), typical = 1 m, 1 rad, 1 m/s
  const double root_eps = std::sqrt(std::numeric_limits<double>::epsilon());
  for (int j = 0; j < nv; ++j) {
    const int body = j / 6;
    const int k = j % 6;
    const double x = k < 3 ? l.body_position(y, body)(k) : 0.0;
    const double h = root_eps * std::max(std::abs(x), 1.0);
    increment_(j) = h;
    y_perturbed_ = y;
    integrate_positions(l, l.positions(y), increment_, l.positions(y_perturbed_));
    increment_(j) = 0.0;
    accelerations(t, y_perturbed_, rates_perturbed_);
    A_q.col(j) = (rates_perturbed_.head(nv) - rates.head(nv)) / h;
  }
  for (int j = 0; j < nv; ++j) {
    const double v = y(l.velocity_offset() + j);
    const double h = root_eps * std::max(std::abs(v), 1.0);
    y_perturbed_ = y;
    y_perturbed_(l.velocity_offset() + j) += h;
    accelerations(t, y_perturbed_, rates_perturbed_);
    A_v.col(j) = (rates_perturbed_.head(nv) - rates.head(nv)) / h;
  }
}

void MechanicalSystem::add_forces(double t, const VecX& y, double c, Eigen::Ref<VecX> r) {
  // M = I, no constraints: the forces are the accelerations
  const StateLayout& l = layout();
  VecX rates(l.velocity_size() + l.audit);
  accelerations(t, y, rates);
  r += c * rates.head(l.velocity_size());
}

void MechanicalSystem::add_mass_times(double c, Eigen::Ref<const VecX> w,
                                      Eigen::Ref<VecX> r) const {
  r += c * w;
}

void MechanicalSystem::iteration_matrix(double t, const VecX& y, double a, double b, double c,
                                        Eigen::Ref<const VecX> lambda, MatX& G) {
  // central differences of f + D^T lambda (lambda held) along each
  // position increment and each velocity (Dennis & Schnabel, sec. 5.4)
  const StateLayout& l = layout();
  const int nv = l.velocity_size();
  G.setZero(nv, nv);
  VecX unit = VecX::Zero(nv), plus(nv), minus(nv), yp(y.size());
  for (int j = 0; j < nv; ++j) {  // a M, column by column
    unit.setZero();
    unit(j) = 1.0;
    add_mass_times(a, unit, G.col(j));
  }
  const double eps = std::cbrt(std::numeric_limits<double>::epsilon());
  auto generalized = [&](const VecX& state, Eigen::Ref<VecX> out) {
    out.setZero();
    add_forces(t, state, 1.0, out);
    add_constraint_forces(t, state, 1.0, lambda, out);
  };
  for (int j = 0; j < nv; ++j) {
    const int body = j / 6;
    const double h =
        eps * std::max(j % 6 < 3 ? std::abs(l.body_position(y, body)(j % 6)) : 0.0, 1.0);
    for (const double sign : {1.0, -1.0}) {
      unit.setZero();
      unit(j) = sign * h;
      yp = y;
      integrate_positions(l, l.positions(y), unit, l.positions(yp));
      generalized(yp, sign > 0 ? plus : minus);
    }
    G.col(j) -= c * (plus - minus) / (2.0 * h);
    const double hv = eps * std::max(std::abs(y(l.velocity_offset() + j)), 1.0);
    yp = y;
    yp(l.velocity_offset() + j) += hv;
    generalized(yp, plus);
    yp(l.velocity_offset() + j) -= 2.0 * hv;
    generalized(yp, minus);
    G.col(j) -= b * (plus - minus) / (2.0 * hv);
  }
}

}  // namespace ictus
