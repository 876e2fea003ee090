// Lemke's complementary pivoting with the lexicographic rule, on a dense
// tableau (Cottle, Pang & Stone 1992, sec. 4.4 and 4.9):
//   w = M z + q,   0 <= z  _|_  w >= 0,
// with the covering vector e (all ones). The lexicographic minimum-ratio
// test (ties of the ratio broken by the rows of B^-1 scaled the same way)
// keeps the pivoting from cycling in a degenerate problem, and it terminates
// with a solution for a copositive-plus M whenever the problem is feasible.
//
// Why ictus has its own: the friction pyramid of an impact where a face lands
// on corners that rest and stick (dependent rows, rates exactly zero; the
// example is box_tilted.yaml with friction) is that degenerate problem.
// siconos-numerics' lcp_pivot and lcp_lexicolemke both end on a ray there
// when M carries its round-off (1e-12 relative), where this tableau, with
// its pivot tolerance relative to the column, finds the solution. It runs
// only after lcp_pivot has failed, at event-driven impacts and in a
// Moreau-Jean step (it allocates).
#pragma once

#include <span>
#include <vector>

#include "ictus/math.h"
#include "lcp.h"

namespace ictus::internal {

/// The pivoting on a workspace: allocates only when a problem is larger
/// than any before (reserve), so that a caller in the step loop does not.
class LexicographicLemke {
 public:
  void reserve(Eigen::Index n);
  /// Solves (M, q): false when the pivoting ends on a ray or runs past
  /// 50 n pivots, or the result misses complementarity by more than 1e-9
  /// relative to |q|.
  bool solve(const Eigen::Ref<const MatX>& M, const Eigen::Ref<const VecX>& q);
  /// The last solve's z and w = M z + q, and its complementarity error.
  auto z() const { return z_.head(n_); }
  auto w() const { return w_.head(n_); }
  double error() const { return error_; }
  /// The last solve's basic variables, one per row: w_i is i, z_i is n + i
  /// (a complementary basis once it has succeeded).
  std::span<const Eigen::Index> basis() const {
    return {basis_.data(), static_cast<std::size_t>(n_)};
  }

 private:
  MatX tableau_;
  std::vector<Eigen::Index> basis_;
  VecX z_, w_;
  Eigen::Index n_ = 0;
  double error_ = 0.0;
};

/// Solves (M, q); `solved` false when the pivoting ends on a ray or runs
/// past 50 n pivots, or the result misses complementarity by more than 1e-9
/// relative to |q|.
LcpSolution lexicographic_lemke(const MatX& M, const VecX& q);

}  // namespace ictus::internal
