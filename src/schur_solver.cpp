#include "schur_solver.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace ictus::internal {

void SchurSolver::analyse(std::span<const RowBodies> rows, int body_count) {
  size_ = static_cast<int>(rows.size());
  assembled_ = false;
  kept_ = false;
  factorized_ = false;
  pattern_.assign(rows.begin(), rows.end());
  key_jacobians_.assign(2 * rows.size(), Vec6::Zero());
  key_inverse_mass_.assign(static_cast<std::size_t>(body_count), InverseMass{});
  key_dropped_.assign(rows.size(), 0);
  contributions_.clear();
  diagonal_.assign(rows.size(), 0.0);
  work_.resize(size_);

  // rows touching each body: (row, touches as follower)
  std::vector<std::vector<std::pair<int, bool>>> by_body(static_cast<std::size_t>(body_count));
  for (int r = 0; r < size_; ++r) {
    const RowBodies& rb = rows[static_cast<std::size_t>(r)];
    if (rb.base != kGround) by_body[static_cast<std::size_t>(rb.base)].emplace_back(r, false);
    if (rb.follower != kGround)
      by_body[static_cast<std::size_t>(rb.follower)].emplace_back(r, true);
  }

  // pattern of S (upper triangle, original order); every row has a diagonal
  std::vector<Eigen::Triplet<double, int>> upper;
  for (int r = 0; r < size_; ++r) upper.emplace_back(r, r, 1.0);
  for (int b = 0; b < body_count; ++b) {
    const auto& list = by_body[static_cast<std::size_t>(b)];
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t k = i; k < list.size(); ++k) {
        const auto [ra, fa] = list[i];
        const auto [rb, fb] = list[k];
        contributions_.push_back(
            {std::min(ra, rb), std::max(ra, rb), b, ra <= rb ? fa : fb, ra <= rb ? fb : fa, -1});
        if (ra != rb) upper.emplace_back(std::min(ra, rb), std::max(ra, rb), 1.0);
      }
  }
  Eigen::SparseMatrix<double> pattern(size_, size_);
  pattern.setFromTriplets(upper.begin(), upper.end(), [](double a, double) { return a; });

  // fill-reducing ordering (AMD), computed by Eigen
  factor_.analyzePattern(pattern);
  const auto& p = factor_.permutationP().indices();
  permutation_.assign(p.data(), p.data() + size_);
  inverse_permutation_.assign(static_cast<std::size_t>(size_), 0);
  for (int i = 0; i < size_; ++i)
    inverse_permutation_[static_cast<std::size_t>(permutation_[static_cast<std::size_t>(i)])] = i;

  // the permuted upper triangle, assembled in place on every evaluation;
  // Eigen's symbolic analysis above was done on exactly this pattern
  // (built from triplets so that row indices are sorted within each column)
  std::vector<Eigen::Triplet<double, int>> permuted;
  permuted.reserve(upper.size());
  for (const auto& t : upper) {
    const int a = permutation_[static_cast<std::size_t>(t.row())];
    const int b = permutation_[static_cast<std::size_t>(t.col())];
    permuted.emplace_back(std::min(a, b), std::max(a, b), 0.0);
  }
  permuted_.resize(size_, size_);
  permuted_.setFromTriplets(permuted.begin(), permuted.end());
  permuted_.makeCompressed();

  auto value_index = [&](int a, int b) {
    const int pa = permutation_[static_cast<std::size_t>(a)];
    const int pb = permutation_[static_cast<std::size_t>(b)];
    const int row = std::min(pa, pb);
    const int col = std::max(pa, pb);
    const int* inner = permuted_.innerIndexPtr();
    const int begin = permuted_.outerIndexPtr()[col];
    const int end = permuted_.outerIndexPtr()[col + 1];
    const int* it = std::lower_bound(inner + begin, inner + end, row);
    assert(it != inner + end && *it == row);
    return static_cast<int>(it - inner);
  };
  for (Contribution& c : contributions_) c.value_index = value_index(c.row_a, c.row_b);
  diagonal_index_.resize(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) diagonal_index_[static_cast<std::size_t>(r)] = value_index(r, r);
}

}  // namespace ictus::internal

namespace ictus::internal {

bool SchurSolver::same_inputs(std::span<const ConstraintRow> rows,
                              std::span<const InverseMass> inverse_mass,
                              std::span<const char> dropped) const {
  if (!assembled_ || rows.size() != static_cast<std::size_t>(size_) ||
      inverse_mass.size() != key_inverse_mass_.size() || dropped.size() != key_dropped_.size())
    return false;
  // exact comparison (a NaN never matches): the same inputs give the same S
  for (std::size_t r = 0; r < rows.size(); ++r)
    if ((pattern_[r].base != kGround &&
         (rows[r].J_base.array() != key_jacobians_[2 * r].array()).any()) ||
        (pattern_[r].follower != kGround &&
         (rows[r].J_follower.array() != key_jacobians_[2 * r + 1].array()).any()))
      return false;
  for (std::size_t b = 0; b < inverse_mass.size(); ++b)
    if (inverse_mass[b].inv_mass != key_inverse_mass_[b].inv_mass ||
        (inverse_mass[b].inv_inertia.array() != key_inverse_mass_[b].inv_inertia.array()).any())
      return false;
  return std::equal(dropped.begin(), dropped.end(), key_dropped_.begin());
}

void SchurSolver::assemble(std::span<const ConstraintRow> rows,
                           std::span<const InverseMass> inverse_mass,
                           std::span<const char> dropped) {
  kept_ = same_inputs(rows, inverse_mass, dropped);
  if (kept_) return;
  // the key, where the inputs have the sizes of the analysis (always, but
  // for a caller that passes fewer bodies: then nothing is kept)
  assembled_ = rows.size() == static_cast<std::size_t>(size_) &&
               inverse_mass.size() == key_inverse_mass_.size() &&
               dropped.size() == key_dropped_.size();
  if (assembled_) {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      key_jacobians_[2 * r] = rows[r].J_base;
      key_jacobians_[2 * r + 1] = rows[r].J_follower;
    }
    std::copy(inverse_mass.begin(), inverse_mass.end(), key_inverse_mass_.begin());
    std::copy(dropped.begin(), dropped.end(), key_dropped_.begin());
  }
  double* values = permuted_.valuePtr();
  std::fill(values, values + permuted_.nonZeros(), 0.0);
  for (const Contribution& c : contributions_) {
    const auto a = static_cast<std::size_t>(c.row_a);
    const auto b = static_cast<std::size_t>(c.row_b);
    if (dropped[a] != 0 || dropped[b] != 0) continue;
    const Vec6& ja = c.a_is_follower ? rows[a].J_follower : rows[a].J_base;
    const Vec6& jb = c.b_is_follower ? rows[b].J_follower : rows[b].J_base;
    values[c.value_index] +=
        ja.dot(apply_inverse_mass(inverse_mass[static_cast<std::size_t>(c.body)], jb));
  }
  for (int r = 0; r < size_; ++r) {
    const auto ri = static_cast<std::size_t>(r);
    if (dropped[ri] != 0) values[diagonal_index_[ri]] = 1.0;
    diagonal_[ri] = values[diagonal_index_[ri]];
  }
}

bool SchurSolver::factorize() {
  if (size_ == 0) return factorized_ = true;
  if (kept_ && factorized_) return true;  // S unchanged since its last factor
  ++factorizations_;
  factor_.factorize_permuted(permuted_);
  // Eigen stops at an exact zero pivot (leaving L half built) but carries
  // on through inf and NaN
  factorized_ = factor_.info() == Eigen::Success && factor_.pivots().allFinite();
  return factorized_;
}

void SchurSolver::solve_in_place(Eigen::Ref<VecX> b) const {
  if (size_ == 0) return;
  if (!factorized_) {
    b.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  for (int i = 0; i < size_; ++i) work_(permutation_[static_cast<std::size_t>(i)]) = b(i);
  factor_.matrixL().solveInPlace(work_);
  work_.array() /= factor_.pivots().array();
  factor_.matrixU().solveInPlace(work_);
  for (int i = 0; i < size_; ++i) b(i) = work_(permutation_[static_cast<std::size_t>(i)]);
}

namespace {
// Scale-free: the pivot against the row's own diagonal entry (sin^2 of the
// angle, in the M^-1 metric, between the row and the rows before it). A row
// whose diagonal is zero is empty (a degenerate constraint). Comparing with
// other rows' diagonals would mix 1/mass and 1/inertia of different bodies.
bool dependent(double pivot, double diagonal, double tolerance) {
  return !(diagonal > 0.0) || pivot <= tolerance * diagonal;
}
}  // namespace

int SchurSolver::first_dependent_row(std::span<const char> dropped, double tolerance) const {
  const auto& d = factor_.pivots();
  for (int k = 0; k < size_; ++k) {
    const auto r = static_cast<std::size_t>(inverse_permutation_[static_cast<std::size_t>(k)]);
    if (dropped[r] != 0) continue;
    if (dependent(d(k), diagonal_[r], tolerance) || !std::isfinite(d(k)))
      return static_cast<int>(r);
  }
  return -1;
}

int SchurSolver::first_unusable_row(std::span<const char> dropped) const {
  const auto& d = factor_.pivots();
  for (int k = 0; k < size_; ++k) {
    const auto r = static_cast<std::size_t>(inverse_permutation_[static_cast<std::size_t>(k)]);
    if (dropped[r] == 0 && !(std::isfinite(d(k)) && d(k) != 0.0 && std::isfinite(diagonal_[r])))
      return static_cast<int>(r);
  }
  // not reached after a failed factorize(); the first kept row keeps callers simple
  for (int r = 0; r < size_; ++r)
    if (dropped[static_cast<std::size_t>(r)] == 0) return r;
  return 0;
}

std::pair<double, int> SchurSolver::smallest_pivot_ratio(std::span<const char> dropped) const {
  double smallest = std::numeric_limits<double>::infinity();
  int row = -1;
  const auto& d = factor_.pivots();
  for (int k = 0; k < size_; ++k) {
    const auto r = static_cast<std::size_t>(inverse_permutation_[static_cast<std::size_t>(k)]);
    if (dropped[r] != 0) continue;
    const double ratio = diagonal_[r] > 0.0 ? d(k) / diagonal_[r] : 0.0;
    if (!(ratio >= smallest)) {
      smallest = ratio;
      row = static_cast<int>(r);
    }
  }
  return {smallest, row};
}

double SchurSolver::pivot_spread(std::span<const char> dropped) const {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0.0;
  const auto& d = factor_.pivots();
  for (int k = 0; k < size_; ++k) {
    const auto r = static_cast<std::size_t>(inverse_permutation_[static_cast<std::size_t>(k)]);
    if (dropped[r] != 0) continue;
    lo = std::min(lo, d(k));
    hi = std::max(hi, d(k));
  }
  return hi > 0.0 && lo > 0.0 ? hi / lo
                              : (hi > 0.0 ? std::numeric_limits<double>::infinity() : 1.0);
}

void SchurSolver::eliminate_dependent_rows(std::span<const ConstraintRow> rows,
                                           std::span<const InverseMass> inverse_mass,
                                           std::span<char> dropped, double tolerance) {
  for (;;) {
    assemble(rows, inverse_mass, dropped);
    factorize();
    const int r = first_dependent_row(dropped, tolerance);
    if (r < 0) return;
    dropped[static_cast<std::size_t>(r)] = 1;
  }
}

Eigen::Index SchurSolver::factor_nonzeros() const {
  return size_ == 0 ? 0 : factor_.matrixL().nestedExpression().nonZeros();
}

}  // namespace ictus::internal
