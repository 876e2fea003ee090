#include "tangent.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>

namespace ictus::internal {

ConstrainedTangent::ConstrainedTangent(System& system, double t, const VecX& y)
    : system_(system), t_(t), n_(system.body_count()) {
  const Model& model = system.model();
  mass_ = MatX::Zero(6 * n_, 6 * n_);
  double radius = 0.0;
  length_ = 0.0;
  for (int b = 0; b < n_; ++b) {
    const Body& body = model.bodies()[static_cast<std::size_t>(b)];
    mass_.block<3, 3>(6 * b, 6 * b) = body.mass * Mat3::Identity();
    // a point mass's frozen rotation: a unit block keeps M regular; its
    // directions are removed from the null space (null_space)
    mass_.block<3, 3>(6 * b + 3, 6 * b + 3) = body.point_mass ? Mat3::Identity() : body.inertia;
    radius = std::max(radius, std::sqrt(body.inertia.trace() / body.mass));
    length_ = std::max(length_, y.segment<3>(7 * b).norm());
  }
  // a floor for a model whose bodies all sit at the origin
  length_ = std::max({length_, radius, 1e-3});
  dy_.resize(system.state_size());
}

void ConstrainedTangent::retract(VecX& y, const VecX& xi) const {
  const StateLayout& l = system_.layout();
  integrate_positions(l, l.positions(y), xi, l.positions(y));  // the group operation
}

VecX ConstrainedTangent::move(const VecX& y, const VecX& xi) {
  VecX out = y;
  retract(out, xi);
  out.segment(7 * n_, 6 * n_).setZero();
  system_.project(t_, out, 0.0);
  out.segment(7 * n_, 6 * n_).setZero();  // at rest (a driver's rate is not held)
  return out;
}

MatX ConstrainedTangent::null_space(const VecX& y) {
  const int m = 6 * n_;
  // P e_i - P 0: the projection is affine (u -> P u + particular(h))
  VecX base = y;
  base.segment(7 * n_, m).setZero();
  system_.project(t_, base, 0.0);
  MatX projector(m, m);
  for (int i = 0; i < m; ++i) {
    VecX yi = y;
    yi.segment(7 * n_, m).setZero();
    yi(7 * n_ + i) = 1.0;
    system_.project(t_, yi, 0.0);
    projector.col(i) = yi.segment(7 * n_, m) - base.segment(7 * n_, m);
  }
  // a point mass does not rotate: its angular velocity is no degree of freedom
  for (int b = 0; b < n_; ++b)
    if (system_.model().bodies()[static_cast<std::size_t>(b)].point_mass) {
      projector.middleRows<3>(6 * b + 3).setZero();
      projector.middleCols<3>(6 * b + 3).setZero();
    }
  const Eigen::LLT<MatX> llt(mass_);
  const MatX lower = llt.matrixL();
  // L^T P L^-T: symmetric projector (up to round-off)
  MatX sym = lower.transpose() * projector;
  sym = lower.triangularView<Eigen::Lower>().solve(sym.transpose()).transpose();
  sym = 0.5 * (sym + sym.transpose()).eval();
  const Eigen::SelfAdjointEigenSolver<MatX> eig(sym);
  std::vector<int> keep;
  for (int i = 0; i < m; ++i)
    if (eig.eigenvalues()(i) > 0.5) keep.push_back(i);
  MatX w(m, static_cast<Eigen::Index>(keep.size()));
  for (std::size_t c = 0; c < keep.size(); ++c)
    w.col(static_cast<Eigen::Index>(c)) = eig.eigenvectors().col(keep[c]);
  if (keep.empty()) return MatX(m, 0);  // no degree of freedom (Eigen's solve wants columns)
  return lower.transpose().triangularView<Eigen::Upper>().solve(w);
}

VecX ConstrainedTangent::acceleration(const VecX& y) {
  system_.derivative(t_, y, dy_);
  return dy_.segment(7 * n_, 6 * n_);
}

double ConstrainedTangent::stiffness_floor() const {
  return 1e-8 * std::max(system_.model().gravity().norm(), 1.0) / length_;
}

double ConstrainedTangent::physical_size(const VecX& xi) const {
  double size = 0.0;
  for (int b = 0; b < n_; ++b)
    size = std::max({size, xi.segment<3>(6 * b).norm() / length_, xi.segment<3>(6 * b + 3).norm()});
  return size;
}

void ConstrainedTangent::coordinates(const VecX& y, const MatX& basis, double step,
                                     std::vector<NamedCoordinate>& names, MatX& map) {
  const Model& model = system_.model();
  const auto dof = basis.cols();
  // joint coordinate channels
  std::vector<int> channels;
  std::vector<NamedCoordinate> candidates;
  for (const Joint& j : model.joints()) {
    for (const auto& [suffix, unit] : {std::pair{".angle", "rad"}, std::pair{".x", "m"}}) {
      const int k = system_.find_channel(j.name + suffix);
      if (k < 0) continue;
      channels.push_back(k);
      candidates.push_back({j.name + suffix, unit});
    }
  }
  const auto k = static_cast<Eigen::Index>(channels.size());
  MatX joint_map = MatX::Zero(k, dof);
  for (Eigen::Index c = 0; c < dof; ++c) {
    const double h = step / std::max(physical_size(basis.col(c)), 1e-300);
    VecX values[2];
    for (int side = 0; side < 2; ++side) {
      const VecX ys = move(y, (side == 0 ? h : -h) * basis.col(c));
      system_.evaluate(t_, ys, Stage::kKinematics);
      values[side].resize(k);
      for (Eigen::Index i = 0; i < k; ++i)
        values[side](i) = system_.channel_value(channels[static_cast<std::size_t>(i)]);
    }
    joint_map.col(c) = (values[0] - values[1]) / (2 * h);
  }
  // body coordinates: exact from the tangent (rotations in world axes)
  MatX body_map(6 * n_, dof);
  std::vector<NamedCoordinate> body_names;
  for (int b = 0; b < n_; ++b) {
    const Quat q(y(7 * b + 3), y(7 * b + 4), y(7 * b + 5), y(7 * b + 6));
    const Mat3 r = q.normalized().toRotationMatrix();
    body_map.middleRows<3>(6 * b) = basis.middleRows<3>(6 * b);
    body_map.middleRows<3>(6 * b + 3) = r * basis.middleRows<3>(6 * b + 3);
    const std::string& name = model.bodies()[static_cast<std::size_t>(b)].name;
    for (const char* axis : {".x", ".y", ".z"}) body_names.push_back({name + axis, "m"});
    for (const char* axis : {".rx", ".ry", ".rz"}) body_names.push_back({name + axis, "rad"});
  }
  // keep the coordinates that move: sensitivity per unit physical size
  auto significant = [&](const Eigen::Ref<const MatX>& row, const std::string& unit) {
    double s = 0.0;
    for (Eigen::Index c = 0; c < dof; ++c)
      s = std::max(s, std::abs(row(0, c)) / (unit == "m" ? length_ : 1.0) /
                          std::max(physical_size(basis.col(c)), 1e-300));
    return s > 1e-7;
  };
  names.clear();
  std::vector<Eigen::Index> rows;
  for (Eigen::Index i = 0; i < k; ++i)
    if (significant(joint_map.row(i), candidates[static_cast<std::size_t>(i)].unit)) {
      rows.push_back(i);
      names.push_back(candidates[static_cast<std::size_t>(i)]);
    }
  map.resize(static_cast<Eigen::Index>(rows.size()), dof);
  for (std::size_t r = 0; r < rows.size(); ++r)
    map.row(static_cast<Eigen::Index>(r)) = joint_map.row(rows[r]);
  // the joint coordinates do not describe every direction: add body coordinates
  if (dof > 0 && (map.rows() == 0 || Eigen::ColPivHouseholderQR<MatX>(map).rank() < dof)) {
    for (Eigen::Index i = 0; i < body_map.rows(); ++i) {
      if (!significant(body_map.row(i), body_names[static_cast<std::size_t>(i)].unit)) continue;
      map.conservativeResize(map.rows() + 1, dof);
      map.row(map.rows() - 1) = body_map.row(i);
      names.push_back(body_names[static_cast<std::size_t>(i)]);
    }
  }
  system_.evaluate(t_, y, Stage::kKinematics);
}

VecX ConstrainedTangent::generalised_forces(const MatX& map, const VecX& r) {
  if (map.rows() == 0) return VecX();
  return map.transpose().completeOrthogonalDecomposition().solve(r);
}

}  // namespace ictus::internal
