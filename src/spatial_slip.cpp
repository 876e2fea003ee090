#include "spatial_slip.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace ictus::internal {

namespace {

// a power of two, at least 2
Eigen::Index padded_size(int count) {
  return static_cast<Eigen::Index>(std::bit_ceil(static_cast<unsigned>(std::max(count, 2))));
}

// the residual at which N counts as solved, relative to the largest normal
// force or reaction: a few hundred round-offs of the sums in phi
constexpr double kTolerance = 1e-13;
// each iteration shrinks the residual by rho at least, and Newton's by far
// more near the solution; this many are not needed unless rho is close to 1
constexpr int kMaxIterations = 200;

}  // namespace

// The Newton systems are factorised at the next power of two, padded with
// the identity (block diagonal: the padding's steps are zero), one
// decomposition per size made here, so that no set size allocates.
void SpatialSlip::reserve(int capacity) {
  const auto k = static_cast<Eigen::Index>(capacity);
  const Eigen::Index padded = padded_size(capacity);
  joint_.assign(static_cast<std::size_t>(capacity), 0);
  f0_.setZero(3, k);
  T_.setZero(3 * k, k);
  lever_.setZero(k);
  normal_.setZero(k);
  for (Eigen::VectorXd* v : {&trial_, &phi_, &fixed_, &step_, &rhs_}) v->setZero(padded);
  jacobian_.setIdentity(padded, padded);
  lu_.clear();
  for (Eigen::Index size = 2; size <= padded; size *= 2) lu_.emplace_back(size);
}

void SpatialSlip::start(int count) {
  if (count < 0 || count > capacity())
    throw std::logic_error("SpatialSlip: more elements than reserved");
  count_ = count;
  f0_.leftCols(count).setZero();
  T_.topLeftCorner(3 * count, count).setZero();
  lever_.head(count).setZero();
  normal_.head(count).setZero();
  std::fill(joint_.begin(), joint_.begin() + count, char{0});
}

void SpatialSlip::set_element(int i, const Eigen::Vector3d& f0, double lever, bool joint) {
  f0_.col(i) = f0;
  lever_(i) = lever;
  joint_[static_cast<std::size_t>(i)] = joint ? 1 : 0;
}

double SpatialSlip::residual(const Eigen::VectorXd& N, bool with_jacobian) {
  const int n = count_;
  double largest = 0.0;
  for (int i = 0; i < n; ++i) {
    Eigen::Vector3d f = f0_.col(i);
    for (int j = 0; j < n; ++j) f += T_.block<3, 1>(3 * i, j) * (lever_(j) * N(j));
    const bool joint = joint_[static_cast<std::size_t>(i)] != 0;
    const double length = f.norm();
    phi_(i) = joint ? length : f.x();
    largest = std::max(largest, std::abs(N(i) - phi_(i)));
    if (!with_jacobian) continue;
    // d phi_i / dN_j = u_i . t_ij lever_j, u_i the unit reaction (a
    // contact's x); a zero reaction: its subgradient 0
    Eigen::Vector3d u = Eigen::Vector3d::UnitX();
    if (joint) u = length > 0.0 ? Eigen::Vector3d(f / length) : Eigen::Vector3d::Zero();
    for (int j = 0; j < n; ++j)
      jacobian_(i, j) = (i == j ? 1.0 : 0.0) - u.dot(T_.block<3, 1>(3 * i, j)) * lever_(j);
  }
  return largest;
}

SpatialSlip::Result SpatialSlip::solve() {
  Result result;
  const int n = count_;
  for (int i = 0; i < n; ++i) {
    double row = 0.0;
    for (int j = 0; j < n; ++j) row += T_.block<3, 1>(3 * i, j).norm() * std::abs(lever_(j));
    result.contraction = std::max(result.contraction, row);
  }
  if (!(result.contraction < 1.0)) return result;
  const double rho = result.contraction;
  double reactions = 0.0;
  for (int i = 0; i < n; ++i) reactions = std::max(reactions, f0_.col(i).norm());
  const Eigen::Index padded = padded_size(n);
  Eigen::PartialPivLU<Eigen::MatrixXd>& lu =
      lu_[static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(padded)) - 1)];
  jacobian_.topLeftCorner(padded, padded).setIdentity();
  rhs_.setZero();
  trial_.setZero();
  // from N = 0: the first fixed-point step gives the normal forces without
  // the set's friction
  for (; result.iterations < kMaxIterations; ++result.iterations) {
    const double r = residual(normal_, true);
    const double scale = std::max(reactions, normal_.head(n).cwiseAbs().maxCoeff());
    if (!std::isfinite(r)) return result;
    if (r <= kTolerance * scale) {
      result.solved = true;
      return result;
    }
    fixed_.head(n) = phi_.head(n);
    rhs_.head(n) = phi_.head(n) - normal_.head(n);
    lu.compute(jacobian_.topLeftCorner(padded, padded));
    step_.head(padded) = lu.solve(rhs_.head(padded));
    trial_.head(n) = normal_.head(n) + step_.head(n);
    // a fixed-point step would leave at most rho r: Newton's is kept when
    // it does as well
    if (residual(trial_, false) <= rho * r)
      normal_.head(n) = trial_.head(n);
    else
      normal_.head(n) = fixed_.head(n);
  }
  return result;
}

}  // namespace ictus::internal
