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
//
// A program solved again with slightly different data (at the next
// evaluation of the same motion) has, as a rule, the same optimal basis: the
// unknowns x_B that are positive and the constraints Y that bind with
// multipliers y_Y. A `Start` keeps that basis; the next solve first tries
// it, solving the square A_YB x_B = b_Y and A_YB^T y_Y = c_B, and accepts it
// by the complementarity test of Lemke's result (the optimality conditions
// above), to 1e-12 where the pivoting's is 1e-9, so a basis that no longer
// fits costs one small solve and the pivoting runs as before.
// Used for the split of stuck holds dependent among themselves
// (system_dependent_holds.cpp).
#pragma once

#include <vector>

#include <Eigen/LU>

#include "ictus/math.h"
#include "lexicographic_lemke.h"

namespace ictus::internal {

class LinearProgram {
 public:
  /// Bases of up to this many unknowns are kept (a solve of that size on
  /// the object itself, not on the heap).
  static constexpr int kMaxStart = 120;
  /// The optimal basis of an earlier solve, to start the next one from.
  class Start {
   public:
    /// Sizes it for programs of up to `variables` unknowns (allocates).
    void reserve(int variables);
    /// Forgets the basis.
    void clear() { variables_ = constraints_ = -1; }

   private:
    friend class LinearProgram;
    int variables_ = -1, constraints_ = -1;  // the program's shape
    std::vector<int> basic_, binding_;       // B and Y, of equal size
  };
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
  /// With `start`: tried first from its basis (when the shape is the
  /// same), and given the optimal basis found.
  bool solve(int variables, int constraints, Eigen::Ref<VecX> x, Start* start = nullptr);

 private:
  using SmallMatrix =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxStart, kMaxStart>;
  using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxStart, 1>;
  /// x (and the multipliers) at start's basis, if they solve the program.
  bool solve_at(const Start& start, int variables, int constraints, Eigen::Ref<VecX> x);
  /// Whether [x; y] with w = M [x; y] + q passes the complementarity test
  /// of lexicographic_lemke.h with `tolerance` relative to |q|.
  bool complementary(int variables, int constraints, Eigen::Ref<const VecX> x,
                     Eigen::Ref<const VecX> y, double tolerance) const;

  MatX A_, M_;
  VecX b_, c_, q_, y_;
  LexicographicLemke lemke_;
  SmallMatrix basis_matrix_;
  Eigen::PartialPivLU<SmallMatrix> basis_lu_;
  SmallVector basic_values_, binding_values_;
};

}  // namespace ictus::internal
