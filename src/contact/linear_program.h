// A small dense linear program, solved as a linear complementarity problem:
//   maximise c^T x   subject to   A x <= b,  x >= 0.
// Its optimality conditions (Karush-Kuhn-Tucker, with y >= 0 the
// multipliers of A x <= b) are the LCP
//   w = [[0, A^T], [-A, 0]] [x; y] + [-c; b],   0 <= [x; y]  _|_  w >= 0
// (Cottle, Pang & Stone 1992, sec. 1.2), whose matrix is skew-symmetric,
// hence positive semidefinite and copositive-plus: Lemke's method ends on a
// solution whenever the program is feasible and bounded (ibid., sec. 4.4).
// The programs here are degenerate as a rule (a box flat on four rough
// corners ties their margins at one vertex), where siconos-numerics'
// pivoting prints to stdout and may cycle: Lemke's lexicographic rule
// (lexicographic_lemke.h) solves them, on a workspace reserved beforehand.
// Used for the split of stuck holds dependent among themselves
// (system_dependent_holds.cpp).
#pragma once

#include "ictus/math.h"
#include "lexicographic_lemke.h"

namespace ictus::internal {

class LinearProgram {
 public:
  /// Sizes the buffers for up to `variables` unknowns and `constraints`
  /// rows (allocates when they grow; the solves then do not).
  void reserve(int variables, int constraints);
  /// The program's A (constraints x variables), b and c, filled by the
  /// caller in their leading blocks before solve.
  MatX& A() { return A_; }
  VecX& b() { return b_; }
  VecX& c() { return c_; }
  /// Maximises c^T x over the first `variables` unknowns and `constraints`
  /// rows of A, b; x gets the optimum. False when no solution was found
  /// (x is then zero).
  bool solve(int variables, int constraints, Eigen::Ref<VecX> x);

 private:
  MatX A_, M_;
  VecX b_, c_, q_;
  LexicographicLemke lemke_;
};

}  // namespace ictus::internal
