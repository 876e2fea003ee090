#include "kkt_solver.h"

namespace ictus::internal {

void KktSolver::resize(std::span<const Body> bodies, int rows) {
  bodies_ = static_cast<int>(bodies.size());
  inertia_.clear();
  mass_.clear();
  point_mass_.clear();
  for (const Body& b : bodies) {
    // a point mass's frozen rotation: identity rows with a zero load keep its
    // angular acceleration zero (no constraint row acts on it, model.cpp)
    inertia_.push_back(b.point_mass ? Mat3::Identity() : b.inertia);
    point_mass_.push_back(b.point_mass ? 1 : 0);
    mass_.push_back(b.mass);
  }
  const Eigen::Index size = 6 * bodies_ + rows;
  matrix_.setZero(size, size);
  rhs_.setZero(size);
  solution_.setZero(size);
  lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(size);
}

bool KktSolver::factorise_and_solve(const ConstraintJacobian& D, std::span<const char> dropped) {
  const int m = D.rows();
  const int offset = 6 * bodies_;
  matrix_.setZero();
  for (int b = 0; b < bodies_; ++b) {
    const auto i = static_cast<std::size_t>(b);
    matrix_.block<3, 3>(6 * b, 6 * b).diagonal().setConstant(mass_[i]);
    matrix_.block<3, 3>(6 * b + 3, 6 * b + 3) = inertia_[i];
  }
  for (int r = 0; r < m; ++r) {
    const int row = offset + r;
    if (dropped[static_cast<std::size_t>(r)] != 0) {
      matrix_(row, row) = 1.0;  // p_r = 0
      continue;
    }
    // D_r in row `row`, -D_r^T in column `row`
    for (const auto& [body, j] : {std::pair{D.bodies(r).base, &D.row(r).J_base},
                                  std::pair{D.bodies(r).follower, &D.row(r).J_follower}}) {
      if (body == kGround) continue;
      matrix_.block<1, 6>(row, 6 * body) += j->transpose();
      matrix_.block<6, 1>(6 * body, row) -= *j;
    }
  }
  lu_.compute(matrix_);
  solution_ = lu_.solve(rhs_);
  return solution_.allFinite();
}

}  // namespace ictus::internal
