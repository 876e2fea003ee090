// Linear-time solve of the equations of motion of a mechanism whose
// body/joint graph is a tree (or a forest), without forming S = D M^-1 D^T:
// Baraff's block factorisation of the saddle-point (KKT) system
// (D. Baraff, "Linear-time dynamics using Lagrange multipliers",
// SIGGRAPH 1996, sections 4-5). With mu = -p the system
//
//     [ M   D^T ] [ a  ]   [ f ]         M u' - D^T p = f,
//     [ D    0  ] [ mu ] = [ b ],        D u' = b,
//
// is symmetric; its graph has one node per body (a 6x6 block of M) and one
// per *edge* (the rows between one pair of bodies, or a body and the ground,
// at most 6), and it is a tree when the body/joint graph is one. Eliminated
// leaves first, a tree has no fill (Baraff eq. 11): H = L D L^T with
//
//     D_i = H_ii - sum over children c of H_ic D_c^-1 H_ci,   L_pi = H_pi D_i^-1,
//
// so a body's pivot is its articulated inertia M_b + sum J_c^T P_c^-1 J_c
// and an edge's pivot is -P_e, P_e = J_eb D_b^-1 J_eb^T for its child body
// b. Every block is a fixed-size 6x6 Eigen matrix (edges of m < 6 rows are
// padded with identity rows that carry nothing; LDL^T of each, ldlt6.h),
// so the numeric work is
// O(bodies), vectorised and allocation-free. The symbolic work (grouping
// rows into edges, the forest check, the elimination order) is done once
// per structure by analyse().
//
// Loops and redundant rows are the general sparse path's (schur_solver.h):
// analyse() reports a graph with a cycle (a loop closed by joints, two
// edges of one tree to the ground) or an edge of more than 6 rows as not
// usable, and the System then solves by S. In a tree, rows can depend on
// each other only within one edge (D is block triangular in the
// elimination order), so the pivots of an edge's P_e against its diagonal
// measure the dependency; when one is small the System hands the
// evaluation to the sparse path, which decides the rank.
#pragma once

#include <span>
#include <vector>

#include "constraint_jacobian.h"
#include "ictus/body.h"
#include "ldlt6.h"

namespace ictus::internal {

class TreeKktSolver {
 public:
  static constexpr int kMaxEdgeRows = 6;

  /// Groups the rows into edges, checks that the graph is a forest and sets
  /// the elimination order (allocates). Returns usable().
  bool analyse(std::span<const RowBodies> rows, std::span<const Body> bodies);

  /// The graph of the last analyse() is a forest with edges of at most 6 rows.
  bool usable() const { return usable_; }

  /// Numeric factorisation for the current rows. Returns false if a pivot
  /// block is not positive definite. Allocation-free.
  bool factorize(std::span<const ConstraintRow> rows);

  /// Smallest ratio d_k / P_kk of an edge's pivot to its diagonal entry
  /// after factorize(): the squared sine of the angle between a row and the
  /// span of the edge's rows before it (in the metric of the articulated
  /// inertia), as SchurSolver::smallest_pivot_ratio measures it on S.
  double smallest_pivot_ratio() const { return smallest_ratio_; }

  /// Solves with body b's load(b) = [force_W; torque_B] and the rows'
  /// right-hand side b. Writes accelerations[b] = [a_W; alpha_B] and the
  /// multipliers p (M u' - D^T p = f). Allocation-free.
  template <class Load>
  void solve(Load&& load, const VecX& b, std::span<Vec6> accelerations, VecX& multipliers);

 private:
  struct Edge {
    int rows[kMaxEdgeRows] = {};
    BodyIndex row_base[kMaxEdgeRows] = {};  // each row's base body (rows may face either way)
    int count = 0;
    BodyIndex first = kGround;  // the two bodies, first < second
    BodyIndex second = kGround;
    BodyIndex child = kGround;   // eliminated before the edge
    BodyIndex parent = kGround;  // eliminated after it (kGround: the edge is a root)
  };
  // one node of the elimination order: a body (index >= 0) or an edge (~index)
  struct Node {
    int index;
    bool is_edge;
  };

  void solve_forward_backward();

  bool usable_ = false;
  std::vector<Edge> edges_;
  std::vector<Node> order_;       // children before parents
  std::vector<int> parent_edge_;  // per body: the edge above it, or -1
  std::vector<Mat6> mass_;        // per body: M_b (identity rotation for a point mass)
  std::vector<char> point_mass_;  // per body
  std::vector<Mat6> body_pivot_;  // per body: D_b (the articulated inertia), then its factor
  std::vector<Vec6> body_inverse_diagonal_;
  std::vector<Mat6> edge_child_;   // per edge: J_eb on the child body (rows padded with 0)
  std::vector<Mat6> edge_parent_;  // per edge: J_ep on the parent body
  std::vector<Mat6> edge_pivot_;   // per edge: P_e = -D_e, then its factor
  std::vector<Vec6> edge_inverse_diagonal_;
  std::vector<Vec6> body_vector_;  // per body: right-hand side, then solution
  std::vector<Vec6> edge_vector_;  // per edge
  double smallest_ratio_ = 1.0;
};

template <class Load>
void TreeKktSolver::solve(Load&& load, const VecX& b, std::span<Vec6> accelerations,
                          VecX& multipliers) {
  for (std::size_t body = 0; body < body_vector_.size(); ++body) {
    body_vector_[body] = load(static_cast<BodyIndex>(body));
    if (point_mass_[body] != 0) body_vector_[body].tail<3>().setZero();
  }
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    edge_vector_[e].setZero();
    for (int k = 0; k < edge.count; ++k) edge_vector_[e](k) = b(edge.rows[k]);
  }
  solve_forward_backward();
  for (std::size_t body = 0; body < body_vector_.size(); ++body)
    accelerations[body] = body_vector_[body];
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    for (int k = 0; k < edge.count; ++k) multipliers(edge.rows[k]) = -edge_vector_[e](k);
  }
}

}  // namespace ictus::internal
