// Sparse solver for the Schur complement S = D M^-1 D^T.
//
// One linear solve per right-hand-side evaluation (DESIGN.md): the
// multipliers of  M u' - D^T p = f,  D u' = rhs  satisfy
//
//     S p = rhs - D M^-1 f,       S = D M^-1 D^T,
//
// and S is symmetric positive definite unless rows are dependent. The
// fill-reducing ordering and the symbolic factorisation are computed once per
// structure (analyse); each evaluation only refills the values of S and
// refactorises numerically (no allocation).
//
// Redundant rows. A row whose LDL^T pivot is tiny compared with its diagonal
// entry of S lies (numerically) in the span of the rows eliminated before it:
// it is dependent. Such rows are "dropped": their row and column of S are
// replaced by the identity, so their multiplier is zero and the others carry
// the load. The sparsity pattern does not change, so the symbolic analysis
// stays valid. Whether the dropped rows are consistent (satisfied by the
// motion) is checked by the caller.
#pragma once

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <span>
#include <vector>

#include "ictus/body.h"
#include "ictus/constraint.h"

namespace ictus::internal {

/// Which bodies a row touches (kGround for none).
struct RowBodies {
  BodyIndex base = kGround;
  BodyIndex follower = kGround;
};

/// Inverse mass of one body: 1/m and J^-1 (body frame).
struct InverseMass {
  double inv_mass = 1.0;
  Mat3 inv_inertia = Mat3::Identity();
};

/// result = M^-1 * J for one body's 6-vector block.
inline Vec6 apply_inverse_mass(const InverseMass& w, const Vec6& j) {
  Vec6 out;
  out.head<3>() = w.inv_mass * j.head<3>();
  out.tail<3>() = w.inv_inertia * j.tail<3>();
  return out;
}

class SchurSolver {
 public:
  /// Relative pivot threshold below which a row counts as dependent.
  static constexpr double kDependencyTolerance = 1e-10;

  /// Builds the sparsity pattern of S for these rows, the fill-reducing
  /// ordering and the symbolic factorisation. Allocates.
  void analyse(std::span<const RowBodies> rows, int body_count);

  /// Fills S from the current rows. Rows flagged in `dropped` get identity.
  /// Where the rows' Jacobians, the inverse masses and `dropped` are those of
  /// the last assembly (bit for bit: only the velocities moved, as in the
  /// velocity columns of a difference-quotient Jacobian), S is kept as it is.
  void assemble(std::span<const ConstraintRow> rows, std::span<const InverseMass> inverse_mass,
                std::span<const char> dropped);

  /// Numerical LDL^T factorisation. Returns false if a pivot is exactly
  /// zero or not finite (S not representable in double precision: masses,
  /// inertias or lengths far out of range); first_unusable_row() names it.
  /// After an assembly that kept S, the last successful factor is kept.
  bool factorize();

  /// Numerical factorisations computed (not kept) since construction.
  long factorizations() const { return factorizations_; }

  /// Solves S x = b in place (b and x in the original row order). After a
  /// failed factorize() x is all NaN: Eigen leaves the factor half built.
  void solve_in_place(Eigen::Ref<VecX> b) const;

  /// After a failed factorize(): the first row not dropped, in elimination
  /// order, whose pivot is zero or not finite.
  int first_unusable_row(std::span<const char> dropped) const;

  /// Smallest pivot ratio d_k / S_kk over rows not dropped, and its row.
  /// A ratio below kDependencyTolerance signals a (new) dependent row.
  std::pair<double, int> smallest_pivot_ratio(std::span<const char> dropped) const;

  /// First row, in elimination order, whose pivot ratio is below the
  /// threshold (-1 if none). Rows after a tiny pivot are unreliable, so
  /// redundancy detection drops one row at a time.
  /// `tolerance` is the pivot ratio (a squared sine) at or below which a
  /// row counts as dependent.
  int first_dependent_row(std::span<const char> dropped,
                          double tolerance = kDependencyTolerance) const;

  /// Assembles and factorises, dropping dependent rows one at a time (the
  /// pivots after a tiny one are unreliable) until none is left; the rows
  /// found are flagged in `dropped`. Allocation-free.
  void eliminate_dependent_rows(std::span<const ConstraintRow> rows,
                                std::span<const InverseMass> inverse_mass, std::span<char> dropped,
                                double tolerance = kDependencyTolerance);

  /// Spread of the LDL^T pivots, max d / min d over rows not dropped: the
  /// condition estimate of seed 000.
  double pivot_spread(std::span<const char> dropped) const;

  int size() const { return size_; }
  /// Non-zeros of the factor L (for cost-structure tests and reports).
  Eigen::Index factor_nonzeros() const;
  /// S(i, i) as last assembled.
  double diagonal(int i) const { return diagonal_[static_cast<std::size_t>(i)]; }

 private:
  // Exposes the numeric factorisation of an already permuted matrix, which
  // Eigen keeps protected; calling it directly avoids the copy (and the
  // allocation) that SimplicialLDLT::factorize makes on every call.
  class Factor : public Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Upper,
                                              Eigen::AMDOrdering<int>> {
   public:
    void factorize_permuted(const Eigen::SparseMatrix<double>& upper_permuted) {
      this->template factorize_preordered<true>(upper_permuted);
    }
    // vectorD() returns a copy; the pivots are read in place instead
    const VecX& pivots() const { return this->m_diag; }
  };

  // One contribution J_a . M^-1 J_b of a shared body to an entry of S.
  struct Contribution {
    int row_a;
    int row_b;
    int body;  // body index (not ground)
    bool a_is_follower;
    bool b_is_follower;
    int value_index;  // into permuted_.valuePtr()
  };

  // the inputs of the last assembly: S depends on nothing else
  bool same_inputs(std::span<const ConstraintRow> rows, std::span<const InverseMass> inverse_mass,
                   std::span<const char> dropped) const;

  int size_ = 0;
  bool factorized_ = false;  // the last factorize() succeeded
  bool assembled_ = false;   // the key below holds the inputs of the values in permuted_
  bool kept_ = false;        // the last assemble() kept S
  long factorizations_ = 0;
  std::vector<RowBodies> pattern_;   // per row: its bodies (a ground side is never read)
  std::vector<Vec6> key_jacobians_;  // per row: J_base, J_follower
  std::vector<InverseMass> key_inverse_mass_;
  std::vector<char> key_dropped_;
  Factor factor_;
  Eigen::SparseMatrix<double> permuted_;  // upper triangle of P S P^T, fixed pattern
  std::vector<int> permutation_;          // original row -> permuted index
  std::vector<int> inverse_permutation_;  // permuted index -> original row
  std::vector<int> diagonal_index_;       // original row -> value index of its diagonal
  std::vector<Contribution> contributions_;
  std::vector<double> diagonal_;
  mutable VecX work_;
};

}  // namespace ictus::internal
