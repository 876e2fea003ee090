// The complementarity problem of one Moreau-Jean step, solved without
// allocating (the step loop does not allocate, docs/architecture.md):
//   w = W z + q,   0 <= z  _|_  w >= 0,
// over a subset of the contact sides (the index set of the step). W and q
// are given for every side; the subset's block is packed into buffers sized
// once by reserve(). Solved by siconos-numerics' pivoting solver
// (lcp_pivot, Lemke's rule, Acary & Brogliato 2008, sec. 12.4.4) with its
// work arrays preallocated (SICONOS_IPARAM_PREALLOC); a relative 1e-12 on
// the diagonal makes a redundant set (a box flat on four corners, W
// singular) solvable. On the active set Lemke finds, the multipliers are
// then solved again exactly, least-norm where W is singular (symmetric
// where the contacts are), as lcp.cpp does with a complete orthogonal
// decomposition; here, without allocating, by iterated Tikhonov
// regularisation (z_{j+1} = (W_aa + d I)^-1 (-q_a + d z_j), z_0 = 0, which
// converges to the least-norm solution of W_aa z = -q_a; Engl, Hanke and
// Neubauer, Regularization of Inverse Problems, 1996, sec. 5.1) with an
// in-place Cholesky factor. When the pivoting fails, the allocating
// solve_lcp (Lemke with the enumerative fallback) is tried before giving up.
#pragma once

#include <span>
#include <vector>

#include "ictus/math.h"
#include "ictus/mechanical_system.h"

struct LinearComplementarityProblem;
struct SolverOptions;

namespace ictus::internal {

class PivotingLcp {
 public:
  PivotingLcp() = default;
  ~PivotingLcp();
  PivotingLcp(const PivotingLcp&) = delete;
  PivotingLcp& operator=(const PivotingLcp&) = delete;

  /// Sizes the buffers for problems of up to `n` unknowns (allocates when n
  /// grows; later calls with n no larger do nothing).
  void reserve(int n);
  /// Solves the problem restricted to the sides `subset` of (W, q); z gets
  /// the multipliers of those sides and zero elsewhere. False if no solution
  /// was found (z is then zero). Allocates only when the pivoting fails.
  /// `least_norm`: W is symmetric (normal contacts only) and the active
  /// set's multipliers are refined to the least-norm ones; false for a
  /// problem that is not (Coulomb friction's, whose matrix is not symmetric).
  bool solve(const MatX& W, const VecX& q, std::span<const int> subset, Eigen::Ref<VecX> z,
             bool least_norm = true);
  /// Complementarity error of the last solve (relative, 0 when trivial).
  double error() const { return error_; }

 private:
  void release();

  int capacity_ = 0;
  LinearComplementarityProblem* problem_ = nullptr;
  SolverOptions* options_ = nullptr;
  /// Least-norm multipliers on the active set of z_ (into z_); false if
  /// they are not admissible (Lemke's are kept).
  bool refine(const MatX& W, const VecX& q, std::span<const int> subset);

  VecX z_, w_;
  MatX factor_;              // capacity x capacity: W_aa + d I, factorised in place
  VecX za_, zb_, rhs_;       // capacity
  std::vector<int> active_;  // capacity
  double error_ = 0.0;
};

}  // namespace ictus::internal
