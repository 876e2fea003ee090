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
// rows into edges, the spanning forest, the elimination order) is done once
// per structure by analyse().
//
// Loops are closed by a small Schur complement on cut rows. analyse()
// chooses a spanning forest of the graph (edges with more rows first, so
// that few rows are cut) and moves the rows of every edge that closes a
// cycle (a four-bar's last joint, a second edge of one tree to the ground,
// rows beyond 6 in one edge) to the cut rows D_c. With H = L D L^T the
// tree's KKT matrix, r = [f; b_t] and mu_c the cut rows' multipliers,
//
//     H x = r - [D_c^T; 0] mu_c,     D_c a = b_c     (x = [a; mu_t]),
//
// so that with Y = L^-1 [D_c^T; 0] and z = D^-1 L^-1 r (the forward pass)
//
//     K mu_c = Y^T z - b_c,   K = Y^T D^-1 Y,   x = L^-T (z - D^-1 Y mu_c).
//
// Column k of Y is non-zero only on the path from cut row k's two bodies
// to their roots (a forward pass on that path alone), so K costs a few
// path products and an evaluation one forward and one backward pass, as on
// a tree, plus the small dense solve. The columns go through the forward
// pass two at a time (a 6x2 block per node on the union of their paths,
// one SIMD register per row): the rows of one cut joint share their path. K = D_c W D_c^T, W the
// inverse mass of the mechanism cut open, is symmetric positive definite when the kept rows are
// independent (a dense Cholesky factorises it). Its pivots against the diagonal of S, L_kk^2 / (D
// M^-1 D^T)_kk, are the squared sines of the angles between a cut row and the span of the rows
// before it, as the pivots of S measure them (schur_solver.h).
//
// Redundant rows are the general sparse path's to find (constraint_rank.h):
// analyse() leaves the dropped rows out (the sparse path gives them no
// multiplier), and the remaining rows are independent, so the solution is
// unique and both paths agree. In the tree, rows can depend on each other
// only within one edge (D is block triangular in the elimination order), so
// the pivots of an edge's P_e against its diagonal measure the dependency;
// with the pivots of K they are the whole test: when one is small the
// System hands the evaluation to the sparse path, which decides the rank.
#pragma once

#include <Eigen/Cholesky>
#include <algorithm>
#include <span>
#include <vector>

#include "constraint_jacobian.h"
#include "ictus/body.h"
#include "ldlt6.h"

namespace ictus::internal {

class TreeKktSolver {
 public:
  static constexpr int kMaxEdgeRows = 6;
  // cut-row columns of Y that share a forward pass
  static constexpr int kCutBlock = 2;

  /// Groups the rows that are not dropped into edges, chooses the spanning
  /// forest and the cut rows and sets the elimination order (allocates).
  /// Returns usable().
  bool analyse(std::span<const RowBodies> rows, std::span<const Body> bodies,
               std::span<const char> dropped);

  /// The last analyse() found no row on one body only (the graph is usable).
  bool usable() const { return usable_; }

  /// The last analyse() was for this set of dropped rows.
  bool analysed_for(std::span<const char> dropped) const {
    return std::equal(dropped.begin(), dropped.end(), analysed_dropped_.begin(),
                      analysed_dropped_.end());
  }

  /// Rows that close loops (solved by the Schur complement K).
  int cut_row_count() const { return static_cast<int>(cut_rows_.size()); }

  /// Numeric factorisation for the current rows, with K of the cut rows.
  /// Returns false if a pivot block (or K) is not positive definite.
  /// Where the rows' Jacobians are those of the last successful
  /// factorisation (bit for bit: only the velocities moved, as in the
  /// velocity columns of a difference-quotient Jacobian), it is kept.
  /// Allocation-free.
  bool factorize(std::span<const ConstraintRow> rows);

  /// Numerical factorisations computed (not kept) since construction.
  long factorizations() const { return factorizations_; }

  /// Smallest ratio d_k / P_kk of an edge's pivot to its diagonal entry,
  /// and of K's pivots to S's diagonal, after factorize(): the squared sine
  /// of the angle between a row and the span of the rows before it (in the
  /// metric of the articulated inertia), as SchurSolver::smallest_pivot_ratio
  /// measures it on S.
  double smallest_pivot_ratio() const { return smallest_ratio_; }

  /// Solves with body b's load(b) = [force_W; torque_B] and the rows'
  /// right-hand side b. Writes accelerations[b] = [a_W; alpha_B] and the
  /// multipliers p (M u' - D^T p = f; 0 for a dropped row). Allocation-free.
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

  // kCutBlock columns of Y (row-major: a row is one SIMD register)
  using CutBlock = Eigen::Matrix<double, 6, kCutBlock, Eigen::RowMajor>;

  Vec6& node_vector(const Node& node);
  // one node of the forward pass L z = r, z := D^-1 z (Baraff's, leaves
  // first) on per-body and per-edge vectors (Vec6) or column blocks
  template <class Block>
  void forward_node(const Node& node, std::vector<Block>& body, std::vector<Block>& edge);
  // L^T x = z (root first)
  void solve_backward();
  // columns kCutBlock g .. of Y = L^-1 [D_c^T; 0] and of D^-1 Y on their path
  void forward_on_path(std::size_t g);
  // the block (Y^T D^-1 Y) of column groups g and h
  Eigen::Matrix<double, kCutBlock, kCutBlock> path_product(std::size_t g, std::size_t h) const;
  std::size_t cut_groups() const { return path_begin_.size() - 1; }
  // solve with body_load_ as the load
  void solve_loaded(const VecX& b, std::span<Vec6> accelerations, VecX& multipliers);
  void set_tree_rhs(const VecX& b);
  bool factorize_cut_rows(std::span<const ConstraintRow> rows);
  Vec6 row_on_body(const Vec6& j, BodyIndex body) const;
  // column c of block[body] += D_c^T e_k
  void add_cut_row_transpose(std::size_t k, int c);

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
  std::vector<Vec6> body_vector_;   // per body: right-hand side, then solution
  std::vector<Vec6> edge_vector_;   // per edge
  std::vector<Vec6> body_load_;     // per body: the load of solve()
  std::vector<Mat6> inverse_mass_;  // per body: M_b^-1 (0 rotation block for a point mass)
  std::vector<char> analysed_dropped_;
  std::vector<int> dropped_rows_;
  // cut rows: index, bodies, and their Jacobians (0 on the ground and on a
  // point mass's rotation), copied by factorize()
  std::vector<int> cut_rows_;
  std::vector<RowBodies> cut_bodies_;
  std::vector<Vec6> cut_base_;
  std::vector<Vec6> cut_follower_;
  Eigen::MatrixXd schur_;  // K = D_c H^-1 D_c^T (lower triangle)
  Eigen::LLT<Eigen::MatrixXd> schur_factor_;
  VecX cut_vector_;
  // per group g of kCutBlock cut rows (kCutBlock g ..): the nodes
  // (positions in order_, ascending) from their bodies to their roots,
  // path_begin_[g] .. path_begin_[g + 1], with Y's columns there (path_y_)
  // and D^-1 of them (path_w_)
  std::vector<int> path_begin_;
  std::vector<int> path_node_;
  std::vector<CutBlock> path_y_;
  std::vector<CutBlock> path_w_;
  std::vector<CutBlock> body_block_;  // per body and edge: the forward pass of a group
  std::vector<CutBlock> edge_block_;
  double smallest_ratio_ = 1.0;
  // the last factorize() succeeded: edge_child_, edge_parent_, cut_base_
  // and cut_follower_ hold the Jacobians it factorised
  bool factorized_ = false;
  long factorizations_ = 0;
};

template <class Load>
void TreeKktSolver::solve(Load&& load, const VecX& b, std::span<Vec6> accelerations,
                          VecX& multipliers) {
  for (std::size_t body = 0; body < body_load_.size(); ++body) {
    body_load_[body] = load(static_cast<BodyIndex>(body));
    if (point_mass_[body] != 0) body_load_[body].tail<3>().setZero();
  }
  solve_loaded(b, accelerations, multipliers);
}

}  // namespace ictus::internal
