// The rank of the constraint Jacobian D, decided on its geometry.
//
// Which rows of D are dependent is a property of the constraints alone; it
// must not depend on the inertia of the bodies (issue 13). The pivots of
// S = D M^-1 D^T mix the rows in the metric of M^-1: a slender rod (axial
// inertia 1e-9) or a small bob makes S ill-conditioned by 1/inertia, and a
// test on those pivots then calls independent rows dependent, or the
// reverse. Here D itself is factorised, scaled to be free of units:
//
//   columns: body b's rotational columns are multiplied by 1/L_b, L_b the
//            largest lever arm |J_rot| / |J_trans| of the rows on body b
//            (the angular velocity becomes a velocity L_b w), so that the
//            translational and rotational entries are both of order one;
//   rows:    each scaled row is normalised to unit length.
//
// On the scaled D the rows are eliminated in the order of a sparse LDL^T
// of its Gram matrix G = D_s D_s^T (the same pattern as S = D M^-1 D^T, so
// the same SchurSolver serves with the weights diag(1, 1/L_b^2) in place of
// M^-1): the pivot of row k over its diagonal entry, d_k / G_kk, is the
// squared sine of the angle between the row and the span of the rows
// eliminated before it, in the geometry of D alone. A row counts as
// dependent when that sine is at most kTolerance = 1e-5 (d_k / G_kk <=
// 1e-10, SchurSolver::kDependencyTolerance), i.e. when it lies within 1e-5
// rad of the span of the others; S of the kept rows then has a geometric
// condition of at most about 1e10 and only the inertia adds to it
// (kkt_solver.h takes over when that spoils it). Sparse, so long chains
// cost what their factorisation costs; it runs when the structure changes
// and when the pivots of S signal a possible rank change
// (docs/theory/constraints.md, "Rank").
#pragma once

#include <span>
#include <vector>

#include "ictus/constraint.h"
#include "schur_solver.h"

namespace ictus::internal {

class ConstraintRank {
 public:
  /// Largest sine of the angle between a row and the span of the others at
  /// which the row still counts as dependent.
  static constexpr double kTolerance = 1e-5;

  /// The sparsity pattern of G for these rows (allocates; once per structure).
  void analyse(std::span<const RowBodies> bodies, int body_count);

  /// Flags in `dependent` (size m) the rows that depend on the others; rows
  /// flagged in `excluded` take no part and are not flagged. Returns the
  /// number of independent rows.
  /// `sine` is the largest sine at which a row counts as dependent.
  int find_dependent_rows(std::span<const ConstraintRow> rows, std::span<const RowBodies> bodies,
                          std::span<const char> excluded, std::span<char> dependent,
                          double sine = kTolerance);

  /// True if the rows not flagged in `excluded` are independent.
  /// Allocation-free.
  bool independent(std::span<const ConstraintRow> rows, std::span<const RowBodies> bodies,
                   std::span<const char> excluded, double sine = kTolerance);

  /// The smallest sine between a row and the span of the others (the rows
  /// not flagged in `excluded`), from the same factorisation as
  /// independent(); 0 when they are dependent. Allocation-free.
  double smallest_sine(std::span<const ConstraintRow> rows, std::span<const RowBodies> bodies,
                       std::span<const char> excluded);

  /// The condition of the scaled D of the rows left in by the last call:
  /// the square root of the spread of the pivots of G.
  double condition() const { return condition_; }

 private:
  // the weights diag(1, 1/L_b^2) of the body columns
  void scale(std::span<const ConstraintRow> rows, std::span<const RowBodies> bodies,
             std::span<const char> excluded);

  SchurSolver gram_;
  std::vector<InverseMass> weights_;
  std::vector<char> flags_;
  double condition_ = 1.0;
};

}  // namespace ictus::internal
