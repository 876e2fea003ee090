#include "linear_program.h"

#include <algorithm>

namespace ictus::internal {

void LinearProgram::reserve(int variables, int constraints) {
  if (variables <= A_.cols() && constraints <= A_.rows()) return;
  variables = std::max(variables, static_cast<int>(A_.cols()));
  constraints = std::max(constraints, static_cast<int>(A_.rows()));
  const int n = variables + constraints;
  A_ = MatX::Zero(constraints, variables);
  b_ = VecX::Zero(constraints);
  c_ = VecX::Zero(variables);
  M_ = MatX::Zero(n, n);
  q_ = VecX::Zero(n);
  lemke_.reserve(n);
}

bool LinearProgram::solve(int variables, int constraints, Eigen::Ref<VecX> x) {
  x.setZero();
  if (variables > A_.cols() || constraints > A_.rows()) return false;
  const int n = variables + constraints;
  auto M = M_.topLeftCorner(n, n);
  M.setZero();
  M.topRightCorner(variables, constraints) = A_.topLeftCorner(constraints, variables).transpose();
  M.bottomLeftCorner(constraints, variables) = -A_.topLeftCorner(constraints, variables);
  q_.head(variables) = -c_.head(variables);
  q_.segment(variables, constraints) = b_.head(constraints);
  if (!lemke_.solve(M, q_.head(n))) return false;
  x.head(variables) = lemke_.z().head(variables);
  return true;
}

}  // namespace ictus::internal
