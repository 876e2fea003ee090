// Cholesky factorisation and triangular solves of 6x6 blocks, written out
// with fixed trip counts so that the compiler unrolls them: Eigen's LLT on a
// fixed 6x6 matrix still goes through its general blocked triangular solver,
// which costs several times more at this size (the tree solver,
// tree_kkt_solver.h, does a few of these per body and evaluation).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "ictus/math.h"

namespace ictus::internal {

using Mat6 = Eigen::Matrix<double, 6, 6>;

/// a = L L^T in place (L in the lower triangle, the upper is not read);
/// inverse_diagonal = 1 / L_kk. Returns the smallest pivot ratio
/// L_kk^2 / a_kk (the squared sine of the angle between row k and the rows
/// before it), or 0 if a is not positive definite.
inline double cholesky6(Mat6& a, Vec6& inverse_diagonal) {
  double smallest = std::numeric_limits<double>::infinity();
  for (int j = 0; j < 6; ++j) {
    double d = a(j, j);
    for (int k = 0; k < j; ++k) d -= a(j, k) * a(j, k);
    if (!(d > 0.0)) return 0.0;
    smallest = std::min(smallest, d / a(j, j));
    const double l = std::sqrt(d);
    a(j, j) = l;
    inverse_diagonal(j) = 1.0 / l;
    for (int i = j + 1; i < 6; ++i) {
      double s = a(i, j);
      for (int k = 0; k < j; ++k) s -= a(i, k) * a(j, k);
      a(i, j) = s * inverse_diagonal(j);
    }
  }
  return smallest;
}

/// b := L^-1 b for the factor of cholesky6 (b: 6 rows, any columns).
template <class Matrix>
void forward_substitute6(const Mat6& l, const Vec6& inverse_diagonal, Matrix& b) {
  for (int i = 0; i < 6; ++i) {
    for (int k = 0; k < i; ++k) b.row(i) -= l(i, k) * b.row(k);
    b.row(i) *= inverse_diagonal(i);
  }
}

/// b := L^-T b for the factor of cholesky6.
template <class Matrix>
void backward_substitute6(const Mat6& l, const Vec6& inverse_diagonal, Matrix& b) {
  for (int i = 5; i >= 0; --i) {
    for (int k = i + 1; k < 6; ++k) b.row(i) -= l(k, i) * b.row(k);
    b.row(i) *= inverse_diagonal(i);
  }
}

/// b := (L L^T)^-1 b.
template <class Matrix>
void cholesky6_solve(const Mat6& l, const Vec6& inverse_diagonal, Matrix& b) {
  forward_substitute6(l, inverse_diagonal, b);
  backward_substitute6(l, inverse_diagonal, b);
}

}  // namespace ictus::internal
