#include "linear_program.h"

#include <algorithm>
#include <cmath>

namespace ictus::internal {

void LinearProgram::Start::reserve(int variables) {
  const auto most = static_cast<std::size_t>(std::min(variables, kMaxStart));
  basic_.reserve(most);
  binding_.reserve(most);
}

void LinearProgram::reserve(int variables, int constraints) {
  if (variables <= A_.cols() && constraints <= A_.rows()) return;
  variables = std::max(variables, static_cast<int>(A_.cols()));
  constraints = std::max(constraints, static_cast<int>(A_.rows()));
  const int n = variables + constraints;
  A_ = MatX::Zero(constraints, variables);
  b_ = VecX::Zero(constraints);
  c_ = VecX::Zero(variables);
  y_ = VecX::Zero(constraints);
  M_ = MatX::Zero(n, n);
  q_ = VecX::Zero(n);
  lemke_.reserve(n);
}

bool LinearProgram::solve(int variables, int constraints, Eigen::Ref<VecX> x, Start* start) {
  x.setZero();
  if (variables > A_.cols() || constraints > A_.rows()) return false;
  if (start != nullptr && start->variables_ == variables && start->constraints_ == constraints &&
      solve_at(*start, variables, constraints, x))
    return true;
  const int n = variables + constraints;
  auto M = M_.topLeftCorner(n, n);
  M.setZero();
  M.topRightCorner(variables, constraints) = A_.topLeftCorner(constraints, variables).transpose();
  M.bottomLeftCorner(constraints, variables) = -A_.topLeftCorner(constraints, variables);
  q_.head(variables) = -c_.head(variables);
  q_.segment(variables, constraints) = b_.head(constraints);
  if (!lemke_.solve(M, q_.head(n))) {
    x.setZero();
    if (start != nullptr) start->clear();
    return false;
  }
  x.head(variables) = lemke_.z().head(variables);
  if (start == nullptr) return true;
  // the basic z: unknowns x_j (j < variables) and multipliers y_i
  start->clear();
  std::size_t basic = 0, binding = 0;
  for (const Eigen::Index v : lemke_.basis()) {
    if (v < n) continue;
    if (v - n < variables)
      ++basic;
    else
      ++binding;
  }
  if (basic != binding || basic > start->basic_.capacity()) return true;
  start->basic_.clear();
  start->binding_.clear();
  for (const Eigen::Index v : lemke_.basis()) {
    if (v < n) continue;
    const auto j = static_cast<int>(v - n);
    if (j < variables)
      start->basic_.push_back(j);
    else
      start->binding_.push_back(j - variables);
  }
  start->variables_ = variables;
  start->constraints_ = constraints;
  return true;
}

bool LinearProgram::solve_at(const Start& start, int variables, int constraints,
                             Eigen::Ref<VecX> x) {
  const auto k = static_cast<Eigen::Index>(start.basic_.size());
  if (k > kMaxStart) return false;
  auto y = y_.head(constraints);
  y.setZero();
  if (k > 0) {
    // A_YB x_B = b_Y (the binding constraints hold with equality) and
    // A_YB^T y_Y = c_B (the basic unknowns' reduced costs vanish)
    basis_matrix_.resize(k, k);
    basic_values_.resize(k);
    binding_values_.resize(k);
    for (Eigen::Index r = 0; r < k; ++r) {
      const auto row = start.binding_[static_cast<std::size_t>(r)];
      for (Eigen::Index c = 0; c < k; ++c)
        basis_matrix_(r, c) = A_(row, start.basic_[static_cast<std::size_t>(c)]);
      basic_values_(r) = b_(row);
      binding_values_(r) = c_(start.basic_[static_cast<std::size_t>(r)]);
    }
    basis_lu_.compute(basis_matrix_);
    basic_values_ = basis_lu_.solve(basic_values_);
    binding_values_ = basis_lu_.transpose().solve(binding_values_);
    if (!basic_values_.allFinite() || !binding_values_.allFinite()) return false;
    for (Eigen::Index r = 0; r < k; ++r) {
      x(start.basic_[static_cast<std::size_t>(r)]) = std::max(basic_values_(r), 0.0);
      y(start.binding_[static_cast<std::size_t>(r)]) = std::max(binding_values_(r), 0.0);
    }
  }
  if (complementary(variables, constraints, x.head(variables), y, 1e-12)) return true;
  x.setZero();
  return false;
}

bool LinearProgram::complementary(int variables, int constraints, Eigen::Ref<const VecX> x,
                                  Eigen::Ref<const VecX> y, double tolerance) const {
  const auto A = A_.topLeftCorner(constraints, variables);
  double scale = 0.0, worst = 0.0;
  if (variables > 0) scale = c_.head(variables).cwiseAbs().maxCoeff();
  if (constraints > 0) scale = std::max(scale, b_.head(constraints).cwiseAbs().maxCoeff());
  const double m_scale = variables > 0 && constraints > 0 ? A.cwiseAbs().maxCoeff() : 0.0;
  // w = A^T y - c along x, b - A x along y; each w >= 0 and w z = 0
  for (Eigen::Index j = 0; j < variables; ++j) {
    const double w = A.col(j).dot(y) - c_(j);
    worst = std::max({worst, -w, std::min(w, m_scale * x(j))});
  }
  for (Eigen::Index i = 0; i < constraints; ++i) {
    const double w = b_(i) - A.row(i).dot(x);
    worst = std::max({worst, -w, std::min(w, m_scale * y(i))});
  }
  return worst <= tolerance * scale;
}

}  // namespace ictus::internal
