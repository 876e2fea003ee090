// The accelerations and multipliers from the saddle-point (KKT) system,
//
//     [ M   -D^T ] [ a ]   [ f ]
//     [ D    0   ] [ p ] = [ b ],        b = gamma - Baumgarte terms,
//
// factorised densely with partial pivoting (LU). The Schur complement route
// (schur_solver.h) computes a = M^-1 (f + D^T p): for a body of tiny inertia
// (a slender rod about its axis, a small bob) the torques of the multipliers
// nearly cancel and are divided by the inertia, so round-off of eps |D^T p|
// becomes an angular acceleration of eps |D^T p| / J. The KKT system keeps
// M on the left: those rotations are fixed by the constraint rows D a = b,
// whose entries are of order one, and no division by J takes place
// (issue 13: slender bodies at normal cost). It is used only when the pivots
// of S are small while D is geometrically of full rank (constraint_rank.h),
// i.e. when the inertia, not the geometry, makes S ill-conditioned; its cost
// is (6n + m)^3 / 3 per evaluation, paid only then.
#pragma once

#include <Eigen/LU>

#include <span>
#include <vector>

#include "constraint_jacobian.h"
#include "ictus/body.h"

namespace ictus::internal {

class KktSolver {
 public:
  /// Sizes the matrix for these bodies' masses and inertias and m rows
  /// (allocates).
  void resize(std::span<const Body> bodies, int rows);

  /// Solves for the rows not flagged in `dropped` (their multipliers are 0).
  /// load(b) is body b's [force_W; torque_B], b the right-hand side of each
  /// row. Writes accelerations[b] = [a_W; alpha_B] and multipliers. Returns
  /// false if the matrix is singular. Allocation-free.
  template <class Load>
  bool solve(const ConstraintJacobian& D, Load&& load, const VecX& b, std::span<const char> dropped,
             std::span<Vec6> accelerations, VecX& multipliers);

 private:
  bool factorise_and_solve(const ConstraintJacobian& D, std::span<const char> dropped);

  std::vector<Mat3> inertia_;
  std::vector<double> mass_;
  std::vector<char> point_mass_;
  int bodies_ = 0;
  Eigen::MatrixXd matrix_;
  VecX rhs_;
  VecX solution_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

template <class Load>
bool KktSolver::solve(const ConstraintJacobian& D, Load&& load, const VecX& b,
                      std::span<const char> dropped, std::span<Vec6> accelerations,
                      VecX& multipliers) {
  const int m = D.rows();
  for (int body = 0; body < bodies_; ++body) {
    rhs_.segment<6>(6 * body) = load(body);
    if (point_mass_[static_cast<std::size_t>(body)] != 0) rhs_.segment<3>(6 * body + 3).setZero();
  }
  for (int r = 0; r < m; ++r)
    rhs_(6 * bodies_ + r) = dropped[static_cast<std::size_t>(r)] != 0 ? 0.0 : b(r);
  if (!factorise_and_solve(D, dropped)) return false;
  for (int body = 0; body < bodies_; ++body)
    accelerations[static_cast<std::size_t>(body)] = solution_.segment<6>(6 * body);
  multipliers = solution_.tail(m);
  return solution_.allFinite();
}

}  // namespace ictus::internal
