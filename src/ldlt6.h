// LDL^T factorisation and triangular solves of 6x6 blocks, written out with
// fixed trip counts so that the compiler unrolls them: Eigen's LLT on a
// fixed 6x6 matrix still goes through its general blocked triangular
// solver, which costs several times more at this size (the tree solver,
// tree_kkt_solver.h, does a few of these per body and evaluation). LDL^T
// rather than L L^T: no square roots, so that a block that is diagonal
// (a body's mass matrix, a leaf) is factorised exactly, as the sparse LDL^T
// of S does (schur_solver.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "ictus/math.h"

namespace ictus::internal {

using Mat6 = Eigen::Matrix<double, 6, 6>;

namespace detail {

// column j of ldlt6 (compile-time j: every loop has a fixed trip count
// and unrolls), with w_k = L_jk d_k formed once for the whole column
template <int j>
inline bool ldlt6_column(Mat6& a, Vec6& inverse_pivots, double& smallest) {
  double w[j + 1];
  double d = a(j, j);
  for (int k = 0; k < j; ++k) {
    w[k] = a(j, k) * a(k, k);
    d -= a(j, k) * w[k];
  }
  if (!(d > 0.0)) return false;
  // a division only where the ratio falls (the divisions were the
  // factorisation's critical path)
  if (d < smallest * a(j, j)) smallest = d / a(j, j);
  a(j, j) = d;
  inverse_pivots(j) = 1.0 / d;
  for (int i = j + 1; i < 6; ++i) {
    double s = a(i, j);
    for (int k = 0; k < j; ++k) s -= a(i, k) * w[k];
    a(i, j) = s * inverse_pivots(j);
  }
  return true;
}

}  // namespace detail

/// a = L D L^T in place (unit L strictly below the diagonal, D on it; the
/// upper triangle is not read); inverse_pivots = 1 / D. Returns the
/// smallest pivot ratio D_k / a_kk (the squared sine of the angle between
/// row k and the rows before it), or 0 if a is not positive definite.
inline double ldlt6(Mat6& a, Vec6& inverse_pivots) {
  double smallest = std::numeric_limits<double>::infinity();
  const bool positive = detail::ldlt6_column<0>(a, inverse_pivots, smallest) &&
                        detail::ldlt6_column<1>(a, inverse_pivots, smallest) &&
                        detail::ldlt6_column<2>(a, inverse_pivots, smallest) &&
                        detail::ldlt6_column<3>(a, inverse_pivots, smallest) &&
                        detail::ldlt6_column<4>(a, inverse_pivots, smallest) &&
                        detail::ldlt6_column<5>(a, inverse_pivots, smallest);
  return positive ? smallest : 0.0;
}

/// b := L^-1 b for the unit L of ldlt6 (b: 6 rows, any columns).
template <class Matrix>
void forward_substitute6(const Mat6& l, Matrix& b) {
  for (int i = 1; i < 6; ++i)
    for (int k = 0; k < i; ++k) b.row(i) -= l(i, k) * b.row(k);
}

/// b := L^-T b for the unit L of ldlt6.
template <class Matrix>
void backward_substitute6(const Mat6& l, Matrix& b) {
  for (int i = 4; i >= 0; --i)
    for (int k = i + 1; k < 6; ++k) b.row(i) -= l(k, i) * b.row(k);
}

/// b := (L D L^T)^-1 b.
template <class Matrix>
void ldlt6_solve(const Mat6& l, const Vec6& inverse_pivots, Matrix& b) {
  forward_substitute6(l, b);
  for (int i = 0; i < 6; ++i) b.row(i) *= inverse_pivots(i);
  backward_substitute6(l, b);
}

/// b := (L D L^T)^-1 b for one vector: the same operations in the same
/// order as above, on plain scalars (Eigen's 1x1 row blocks of a vector are
/// not reduced to them: this solve was a fifth of a slider-crank run).
inline void ldlt6_solve(const Mat6& l, const Vec6& inverse_pivots, Vec6& b) {
  double x[6] = {b(0), b(1), b(2), b(3), b(4), b(5)};
  for (int i = 1; i < 6; ++i)
    for (int k = 0; k < i; ++k) x[i] -= l(i, k) * x[k];
  for (int i = 0; i < 6; ++i) x[i] *= inverse_pivots(i);
  for (int i = 4; i >= 0; --i)
    for (int k = i + 1; k < 6; ++k) x[i] -= l(k, i) * x[k];
  for (int i = 0; i < 6; ++i) b(i) = x[i];
}

}  // namespace ictus::internal
