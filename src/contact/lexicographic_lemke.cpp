#include "lexicographic_lemke.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ictus::internal {

void LexicographicLemke::reserve(Eigen::Index n) {
  if (n <= z_.size()) return;
  tableau_ = MatX::Zero(n, 2 * n + 2);
  basis_.resize(static_cast<std::size_t>(n));
  z_ = VecX::Zero(n);
  w_ = VecX::Zero(n);
}

bool LexicographicLemke::solve(const Eigen::Ref<const MatX>& M, const Eigen::Ref<const VecX>& q) {
  const Eigen::Index n = q.size();
  reserve(n);
  n_ = n;
  error_ = 0.0;
  auto z = z_.head(n);
  auto w = w_.head(n);
  z.setZero();
  w = q;
  for (Eigen::Index i = 0; i < n; ++i) basis_[static_cast<std::size_t>(i)] = i;
  if (n == 0 || q.minCoeff() >= 0.0) return true;
  // The tableau [B^-1 | B^-1 column of z0 ... ]: columns 0..n-1 are w (B^-1
  // starts as the identity), n..2n-1 are z, 2n is z0, 2n+1 the basic values.
  // Variable v's complement: w_i <-> z_i.
  const Eigen::Index z0 = 2 * n, rhs = 2 * n + 1;
  auto tableau = tableau_.topLeftCorner(n, 2 * n + 2);
  tableau.setZero();
  tableau.leftCols(n).setIdentity();
  tableau.middleCols(n, n) = -M;
  tableau.col(z0).setConstant(-1.0);
  tableau.col(rhs) = q;
  std::vector<Eigen::Index>& basis = basis_;
  const double scale = q.cwiseAbs().maxCoeff();  // > 0: some q_i < 0
  const double zero = 1e-12 * scale;
  // the size of the unknowns, for the tie of z0's ratio and the error
  const double m_scale = std::max(M.cwiseAbs().maxCoeff(), 1e-300);
  const double z_scale = scale / m_scale;
  auto pivot = [&](Eigen::Index row, Eigen::Index column) {
    tableau.row(row) /= tableau(row, column);
    for (Eigen::Index i = 0; i < n; ++i)
      if (i != row && tableau(i, column) != 0.0)
        tableau.row(i) -= tableau(i, column) * tableau.row(row);
    // values at the round-off of q are zero: a degenerate vertex stays one
    // (its ties then go to the lexicographic rule, not to round-off); only
    // where the row stays lexicographically positive, its B^-1 part
    // starting positive
    for (Eigen::Index i = 0; i < n; ++i) {
      if (tableau(i, rhs) == 0.0 || std::abs(tableau(i, rhs)) > zero) continue;
      Eigen::Index c = 0;
      while (c < n && tableau(i, c) == 0.0) ++c;
      if (c < n && tableau(i, c) > 0.0) tableau(i, rhs) = 0.0;
    }
    const Eigen::Index left = basis[static_cast<std::size_t>(row)];
    basis[static_cast<std::size_t>(row)] = column;
    return left;
  };
  // z0 enters where q is most negative; of equal ones the last, which is
  // the lexicographic choice (B^-1 = I: each other tied row then keeps a
  // leading positive entry)
  Eigen::Index row = 0;
  for (Eigen::Index i = 1; i < n; ++i)
    if (q(i) <= q(row)) row = i;
  Eigen::Index leaving = pivot(row, z0);
  for (Eigen::Index iteration = 0; iteration < 50 * n; ++iteration) {
    const Eigen::Index entering = leaving < n ? leaving + n : leaving - n;
    const double largest = tableau.col(entering).cwiseAbs().maxCoeff();
    const double tolerance = 1e-12 * std::max(largest, 1e-300);
    // the lexicographic minimum of (value, B^-1 row) / pivot over the rows
    // whose pivot is positive; z0 leaves at once when its ratio ties
    auto ratio = [&](Eigen::Index i) { return tableau(i, rhs) / tableau(i, entering); };
    auto less = [&](Eigen::Index a, Eigen::Index b) {
      if (ratio(a) != ratio(b)) return ratio(a) < ratio(b);
      for (Eigen::Index c = 0; c < n; ++c) {
        const double ca = tableau(a, c) / tableau(a, entering);
        const double cb = tableau(b, c) / tableau(b, entering);
        if (ca != cb) return ca < cb;
      }
      return false;
    };
    Eigen::Index best = -1, z0_row = -1;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!(tableau(i, entering) > tolerance)) continue;
      if (basis[static_cast<std::size_t>(i)] == z0) z0_row = i;
      if (best < 0 || less(i, best)) best = i;
    }
    if (best < 0) return false;  // a ray: no solution found
    if (z0_row >= 0 && ratio(z0_row) <= ratio(best) + 1e-12 * z_scale) best = z0_row;
    leaving = pivot(best, entering);
    if (leaving != z0) continue;
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index v = basis[static_cast<std::size_t>(i)];
      if (v >= n && v < 2 * n) z(v - n) = std::max(tableau(i, rhs), 0.0);
    }
    w.noalias() = M * z;
    w += q;
    // complementarity: w >= 0, and min(w_i, |M| z_i) = 0, relative to |q|
    double worst = 0.0;
    for (Eigen::Index i = 0; i < n; ++i)
      worst = std::max({worst, -w(i), std::min(w(i), m_scale * z(i))});
    error_ = worst / scale;
    return z.allFinite() && error_ <= 1e-9;
  }
  return false;
}

LcpSolution lexicographic_lemke(const MatX& M, const VecX& q) {
  LexicographicLemke lemke;
  LcpSolution out;
  out.solved = lemke.solve(M, q);
  out.z = lemke.z();
  out.w = lemke.w();
  out.error = lemke.error();
  return out;
}

}  // namespace ictus::internal
