#include "coupled_slip.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "padded_size.h"

namespace ictus::internal {

// The decomposition of a set of `count` elements is made at the size
// P = bit_ceil(count), the matrix padded with s I (s a power of two):
// block diagonal, so full pivoting leaves the set's block as it would be
// alone (the padding's pivots have zeros beside them), the padding's forces
// are exactly zero and the determinant is the set's times s^(P - count). One decomposition per
// power of two, all made here, so no set size allocates; they take at most 8/3 (2 capacity)^2
// numbers.
void CoupledSlip::reserve(int capacity) {
  const auto k = static_cast<Eigen::Index>(capacity);
  const Eigen::Index padded = padded_size(capacity);
  joint_.assign(static_cast<std::size_t>(capacity), 0);
  joint_index_.assign(static_cast<std::size_t>(capacity), 0);
  T_.setZero(k, k);
  A_.setZero(padded, padded);
  for (Eigen::VectorXd* v : {&y0_, &lever_, &g_, &reaction_, &solution_}) v->setZero(k);
  for (Eigen::VectorXd* v : {&rhs_, &work_, &F_}) v->setZero(padded);
  lu_by_size_.clear();
  for (Eigen::Index size = 2; size <= padded; size *= 2) lu_by_size_.emplace_back(size, size);
}

void CoupledSlip::start(int count) {
  if (count < 0 || count > capacity())
    throw std::logic_error("CoupledSlip: more elements than reserved");
  count_ = count;
  T_.topLeftCorner(count, count).setZero();
  y0_.head(count).setZero();
  lever_.head(count).setZero();
  std::fill(joint_.begin(), joint_.begin() + count, char{0});
}

void CoupledSlip::set_element(int i, double y0, double lever, bool joint) {
  y0_(i) = y0;
  lever_(i) = lever;
  joint_[static_cast<std::size_t>(i)] = joint ? 1 : 0;
}

void CoupledSlip::solve_with(const Eigen::FullPivLU<Eigen::MatrixXd>& lu) {
  const Eigen::Index size = lu.rows();
  auto b = work_.head(size);
  const auto& p = lu.permutationP().indices();
  const auto& q = lu.permutationQ().indices();
  for (Eigen::Index i = 0; i < size; ++i) b(p(i)) = rhs_(i);
  const Eigen::Index rank = lu.rank();
  if (rank > 0) {
    lu.matrixLU().triangularView<Eigen::UnitLower>().solveInPlace(b);
    lu.matrixLU()
        .topLeftCorner(rank, rank)
        .triangularView<Eigen::Upper>()
        .solveInPlace(b.head(rank));
  }
  for (Eigen::Index i = 0; i < size; ++i) F_(q(i)) = i < rank ? b(i) : 0.0;
}

CoupledSlip::Result CoupledSlip::solve() {
  Result result;
  const int c = count_;
  const Eigen::Index n = c;
  int joints = 0;
  for (int i = 0; i < c; ++i)
    if (joint_[static_cast<std::size_t>(i)] != 0)
      joint_index_[static_cast<std::size_t>(joints++)] = i;
  const auto T = T_.topLeftCorner(n, n);
  const auto y0 = y0_.head(n);
  const auto lever = lever_.head(n);
  // y = y0 + T G |y| (|y_i| read as y_i for a contact) is a contraction in
  // the max norm while max_i sum_j |T_ij lever_j| < 1: then it has exactly
  // one solution (Banach), which is also the only consistent side pattern,
  // and det(I - G T) > 0. The pattern of y0 (the normal forces without
  // friction) is tried first; it is the solution's unless friction turns a
  // normal force over. A stack of sixteen guides has T = 0: one solve
  // instead of 2^16.
  double contraction = 0.0;
  for (Eigen::Index i = 0; i < n; ++i)
    contraction = std::max(contraction, T.row(i).cwiseProduct(lever.transpose()).cwiseAbs().sum());
  const bool unique = contraction < 1.0;
  int first_pattern = 0;
  if (unique)
    for (int b = 0; b < joints; ++b)
      if (y0(joint_index_[static_cast<std::size_t>(b)]) < 0.0) first_pattern |= 1 << b;
  const Eigen::Index padded = padded_size(c);
  Eigen::FullPivLU<Eigen::MatrixXd>& lu =
      lu_by_size_[static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(padded)) - 1)];
  auto g = g_.head(n);
  auto A = A_.topLeftCorner(padded, padded);
  rhs_.head(padded).setZero();
  const auto F = F_.head(n);
  auto reaction = reaction_.head(n);
  auto solution = solution_.head(n);
  for (int trial = 0; trial < (1 << joints); ++trial) {
    // the first pattern, then the others in order (trial 0 and the first swap places)
    const int pattern = trial == 0 ? first_pattern : trial == first_pattern ? 0 : trial;
    g = lever;
    for (int b = 0; b < joints; ++b)
      if ((pattern >> b & 1) != 0) g(joint_index_[static_cast<std::size_t>(b)]) *= -1.0;
    A.setZero();
    A.topLeftCorner(n, n).setIdentity();
    A.topLeftCorner(n, n).noalias() -= g.asDiagonal() * T;
    // the padding s I, s a power of two at most the set's largest entry:
    // the set's pivots come first (ties: they come first in the scan) and
    // the rank threshold is the set's own (eps n of its largest pivot)
    int exponent = 0;
    const double largest = A.topLeftCorner(n, n).cwiseAbs().maxCoeff();
    if (largest > 0.0 && std::isfinite(largest)) exponent = std::ilogb(largest);
    A.diagonal().tail(padded - n).setConstant(std::ldexp(1.0, exponent));
    lu.setThreshold(std::numeric_limits<double>::epsilon() * static_cast<double>(n));
    lu.compute(A);
    rhs_.head(n) = g.cwiseProduct(y0);
    solve_with(lu);
    reaction = y0;
    reaction.noalias() += T * F;
    // with contacts (normal forces of one sign), a singular system has
    // none or infinitely many solutions (Painleve)
    bool consistent = F.allFinite() && (joints == c || lu.isInvertible());
    for (int b = 0; b < joints && consistent; ++b) {
      const int i = joint_index_[static_cast<std::size_t>(b)];
      const double sigma = (pattern >> b & 1) != 0 ? -1.0 : 1.0;
      consistent = sigma * reaction(i) >= -1e-12 * (std::abs(y0(i)) + 1e-300);
    }
    if (!consistent) continue;
    if (result.found > 0 && (F - solution).norm() <= 1e-9 * (1.0 + solution.norm())) continue;
    solution = F;
    result.determinant = std::ldexp(lu.determinant(), -exponent * static_cast<int>(padded - n));
    if (++result.found == 2 || unique) break;
  }
  return result;
}

}  // namespace ictus::internal
