#include "spatial_slip.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "padded_size.h"

namespace ictus::internal {

namespace {

// the error at which N counts as solved, relative to the largest normal
// force or reaction: a few hundred round-offs of the sums in phi
constexpr double kTolerance = 1e-13;
// each iteration shrinks the residual by q at least, and Newton's by far
// more near the solution; this many are not needed unless q is close to 1
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
  weight_.setOnes(k);
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
    largest = std::max(largest, std::abs(N(i) - phi_(i)) / weight_(i));
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

std::string SpatialSlip::Result::why_not_solved() const {
  if (!unique)
    return fmt::format(
        "the friction changes the normal forces as much as they are (the spectral radius of "
        "K = mu |df_i/dF_j|, mu r for a pin or ball, is 1 or more; K's largest row sum is "
        "{:.6g}): the solution need not be unique, Painleve's paradox is possible",
        contraction);
  return fmt::format(
      "the fixed point of the normal forces did not converge in {} iterations (contraction {:.6g})",
      iterations, contraction);
}

SpatialSlip::Result SpatialSlip::solve() {
  Result result;
  const int n = count_;
  if (n == 0) {
    result.unique = result.solved = true;
    return result;
  }
  const Eigen::Index padded = padded_size(n);
  Eigen::PartialPivLU<Eigen::MatrixXd>& lu =
      lu_[static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(padded)) - 1)];
  // K_ij = |t_ij| |lever_j| bounds phi's changes. (I - K) w = 1 has a
  // solution w >= 1 exactly when K's spectral radius is below 1 (K >= 0:
  // then w = sum_m K^m 1, and conversely K w = w - 1 < w bounds it,
  // Collatz-Wielandt); phi is then a contraction by q = 1 - 1 / max w in
  // the weighted norm max_i |x_i| / w_i.
  auto K = [&](int i, int j) { return T_.block<3, 1>(3 * i, j).norm() * std::abs(lever_(j)); };
  jacobian_.topLeftCorner(padded, padded).setIdentity();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) jacobian_(i, j) -= K(i, j);
  rhs_.setZero();
  rhs_.head(n).setOnes();
  lu.compute(jacobian_.topLeftCorner(padded, padded));
  step_.head(padded) = lu.solve(rhs_.head(padded));
  weight_.head(n) = step_.head(n);
  if (!weight_.head(n).allFinite() || weight_.head(n).minCoeff() < 1.0 - 1e-12) {
    // not unique: K's largest row sum, for the message (its spectral
    // radius, at least 1 here, is at most that)
    for (int i = 0; i < n; ++i) {
      double row = 0.0;
      for (int j = 0; j < n; ++j) row += K(i, j);
      result.contraction = std::max(result.contraction, row);
    }
    return result;
  }
  result.unique = true;
  const double largest_weight = weight_.head(n).maxCoeff();
  const double q = 1.0 - 1.0 / largest_weight;
  result.contraction = q;
  double reactions = 0.0;
  for (int i = 0; i < n; ++i) reactions = std::max(reactions, f0_.col(i).norm());
  // the error is at most the weighted residual / (1 - q)
  const double tolerance =
      std::max(kTolerance * (1.0 - q), 4.0 * std::numeric_limits<double>::epsilon());
  jacobian_.topLeftCorner(padded, padded).setIdentity();
  rhs_.setZero();
  trial_.setZero();
  // from N = 0: the first fixed-point step gives the normal forces without
  // the set's friction
  for (;; ++result.iterations) {
    const double r = residual(normal_, true);
    const double scale = std::max(reactions, normal_.head(n).cwiseAbs().maxCoeff());
    if (!std::isfinite(r)) return result;
    if (largest_weight * r <= tolerance * scale) {
      result.solved = true;
      return result;
    }
    if (result.iterations == kMaxIterations) return result;
    fixed_.head(n) = phi_.head(n);
    rhs_.head(n) = phi_.head(n) - normal_.head(n);
    lu.compute(jacobian_.topLeftCorner(padded, padded));
    step_.head(padded) = lu.solve(rhs_.head(padded));
    trial_.head(n) = normal_.head(n) + step_.head(n);
    // a fixed-point step would leave at most q r: Newton's is kept when it
    // does as well
    if (residual(trial_, false) <= q * r)
      normal_.head(n) = trial_.head(n);
    else
      normal_.head(n) = fixed_.head(n);
  }
}

}  // namespace ictus::internal
