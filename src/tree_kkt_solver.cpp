#include "tree_kkt_solver.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

namespace ictus::internal {

namespace {

using Mat6Rows = Eigen::Matrix<double, 6, 6, Eigen::RowMajor>;

// union-find root with path halving
int find_root(std::vector<int>& parent, int i) {
  while (parent[static_cast<std::size_t>(i)] != i) {
    parent[static_cast<std::size_t>(i)] =
        parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(i)])];
    i = parent[static_cast<std::size_t>(i)];
  }
  return i;
}

}  // namespace

bool TreeKktSolver::analyse(std::span<const RowBodies> rows, std::span<const Body> bodies,
                            std::span<const char> dropped) {
  usable_ = false;
  factorized_ = false;
  edges_.clear();
  order_.clear();
  cut_rows_.clear();
  cut_bodies_.clear();
  analysed_dropped_.assign(dropped.begin(), dropped.end());
  dropped_rows_.clear();
  const auto n = bodies.size();
  mass_.assign(n, Mat6::Zero());
  inverse_mass_.assign(n, Mat6::Zero());
  point_mass_.assign(n, 0);
  for (std::size_t b = 0; b < n; ++b) {
    const Body& body = bodies[b];
    mass_[b].topLeftCorner<3, 3>().diagonal().setConstant(body.mass);
    // a point mass's rotation is frozen: identity rows with a zero load (as kkt_solver.h)
    mass_[b].bottomRightCorner<3, 3>() = body.point_mass ? Mat3::Identity() : body.inertia;
    inverse_mass_[b].topLeftCorner<3, 3>().diagonal().setConstant(1.0 / body.mass);
    if (!body.point_mass) inverse_mass_[b].bottomRightCorner<3, 3>() = body.inertia.inverse();
    point_mass_[b] = body.point_mass ? 1 : 0;
  }
  body_pivot_.assign(n, Mat6::Zero());
  body_inverse_diagonal_.assign(n, Vec6::Ones());
  body_vector_.assign(n, Vec6::Zero());
  body_load_.assign(n, Vec6::Zero());
  parent_edge_.assign(n, -1);

  // the rows that are not dropped between the same two bodies form one edge
  std::vector<Edge> candidates;
  std::vector<std::vector<int>> candidate_rows;
  std::map<std::pair<BodyIndex, BodyIndex>, int> edge_of;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (dropped[r] != 0) {
      dropped_rows_.push_back(static_cast<int>(r));
      continue;
    }
    const auto [lo, hi] = std::minmax(rows[r].base, rows[r].follower);
    if (lo == hi) return false;
    const auto [it, added] = edge_of.try_emplace({lo, hi}, static_cast<int>(candidates.size()));
    if (added) {
      candidates.push_back(Edge{.first = lo, .second = hi});
      candidate_rows.emplace_back();
    }
    candidate_rows[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(r));
  }

  // a spanning forest, edges of more rows first (fewer cut rows): an edge
  // that joins two bodies already connected (the ground is node n) closes a
  // loop and its rows are cut, as are the rows beyond 6 of one edge
  std::vector<int> by_rows(candidates.size());
  std::iota(by_rows.begin(), by_rows.end(), 0);
  std::stable_sort(by_rows.begin(), by_rows.end(), [&](int a, int b) {
    return candidate_rows[static_cast<std::size_t>(a)].size() >
           candidate_rows[static_cast<std::size_t>(b)].size();
  });
  auto node = [n](BodyIndex b) { return b == kGround ? static_cast<int>(n) : b; };
  std::vector<int> set(n + 1);
  std::iota(set.begin(), set.end(), 0);
  std::vector<std::vector<int>> incident(n);
  std::vector<int> ground_edges;
  auto cut = [&](int r) { cut_rows_.push_back(r); };
  for (const int c : by_rows) {
    Edge edge = candidates[static_cast<std::size_t>(c)];
    const std::vector<int>& edge_rows = candidate_rows[static_cast<std::size_t>(c)];
    const int a = find_root(set, node(edge.first));
    const int z = find_root(set, node(edge.second));
    if (a == z) {
      for (const int r : edge_rows) cut(r);
      continue;
    }
    set[static_cast<std::size_t>(a)] = z;
    for (const int r : edge_rows) {
      if (edge.count == kMaxEdgeRows) {
        cut(r);
        continue;
      }
      edge.rows[edge.count] = r;
      edge.row_base[edge.count] = rows[static_cast<std::size_t>(r)].base;
      ++edge.count;
    }
    const int e = static_cast<int>(edges_.size());
    edges_.push_back(edge);
    for (const BodyIndex b : {edge.first, edge.second})
      if (b == kGround) {
        ground_edges.push_back(e);
      } else {
        incident[static_cast<std::size_t>(b)].push_back(e);
      }
  }
  // rows in their order in D (the order of K)
  std::sort(cut_rows_.begin(), cut_rows_.end());
  for (const int r : cut_rows_) cut_bodies_.push_back(rows[static_cast<std::size_t>(r)]);
  const auto cuts = static_cast<Eigen::Index>(cut_rows_.size());
  cut_base_.assign(cut_rows_.size(), Vec6::Zero());
  cut_follower_.assign(cut_rows_.size(), Vec6::Zero());
  schur_ = Eigen::MatrixXd::Zero(cuts, cuts);
  // sizes the factor's storage (factorize() then allocates nothing); not
  // LLT(cuts), whose status is left uninitialised until a compute()
  schur_factor_.compute(Eigen::MatrixXd::Identity(cuts, cuts));
  cut_vector_ = VecX::Zero(cuts);

  // breadth first from the ground, then from any body not reached (a free
  // tree): parents before children; the elimination order is the reverse
  std::vector<Node> breadth_first;
  std::vector<char> reached(n, 0);
  std::vector<BodyIndex> queue;
  auto descend = [&](int e, BodyIndex parent, BodyIndex child) {
    Edge& edge = edges_[static_cast<std::size_t>(e)];
    edge.parent = parent;
    edge.child = child;
    parent_edge_[static_cast<std::size_t>(child)] = e;
    reached[static_cast<std::size_t>(child)] = 1;
    breadth_first.push_back({e, true});
    breadth_first.push_back({child, false});
    queue.push_back(child);
  };
  for (const int e : ground_edges) descend(e, kGround, edges_[static_cast<std::size_t>(e)].second);
  for (std::size_t root = 0; root <= n; ++root) {
    if (root < n && reached[root] == 0) {
      reached[root] = 1;
      breadth_first.push_back({static_cast<int>(root), false});
      queue.push_back(static_cast<BodyIndex>(root));
    }
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const BodyIndex b = queue[q];
      for (const int e : incident[static_cast<std::size_t>(b)]) {
        if (e == parent_edge_[static_cast<std::size_t>(b)]) continue;
        const Edge& edge = edges_[static_cast<std::size_t>(e)];
        descend(e, b, edge.first == b ? edge.second : edge.first);
      }
    }
    queue.clear();
  }
  order_.assign(breadth_first.rbegin(), breadth_first.rend());

  // each cut row's path: its bodies and all nodes above them
  std::vector<int> body_position(n);
  std::vector<int> edge_position(edges_.size());
  for (std::size_t p = 0; p < order_.size(); ++p)
    (order_[p].is_edge ? edge_position : body_position)[static_cast<std::size_t>(order_[p].index)] =
        static_cast<int>(p);
  path_begin_.assign(1, 0);
  path_node_.clear();
  for (std::size_t first = 0; first < cut_bodies_.size(); first += kCutBlock) {
    // the union of the group's paths
    std::vector<int> path;
    for (std::size_t k = first; k < std::min(first + kCutBlock, cut_bodies_.size()); ++k)
      for (BodyIndex b : {cut_bodies_[k].base, cut_bodies_[k].follower})
        while (b != kGround) {
          path.push_back(body_position[static_cast<std::size_t>(b)]);
          const int e = parent_edge_[static_cast<std::size_t>(b)];
          if (e < 0) break;
          path.push_back(edge_position[static_cast<std::size_t>(e)]);
          b = edges_[static_cast<std::size_t>(e)].parent;
        }
    std::sort(path.begin(), path.end());
    path.erase(std::unique(path.begin(), path.end()), path.end());
    path_node_.insert(path_node_.end(), path.begin(), path.end());
    path_begin_.push_back(static_cast<int>(path_node_.size()));
  }
  path_y_.assign(path_node_.size(), CutBlock::Zero());
  path_w_.assign(path_node_.size(), CutBlock::Zero());
  body_block_.assign(n, CutBlock::Zero());

  const auto m = edges_.size();
  edge_child_.assign(m, Mat6::Zero());
  edge_parent_.assign(m, Mat6::Zero());
  edge_pivot_.assign(m, Mat6::Zero());
  edge_inverse_diagonal_.assign(m, Vec6::Ones());
  edge_vector_.assign(m, Vec6::Zero());
  edge_block_.assign(m, CutBlock::Zero());
  usable_ = true;
  return true;
}

bool TreeKktSolver::factorize(std::span<const ConstraintRow> rows) {
  // the edges' blocks from the rows, compared with those of the last
  // factorisation as they are written (exactly: a NaN never matches)
  bool kept = factorized_;
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    Mat6 child, parent;
    for (int k = 0; k < edge.count; ++k) {
      const ConstraintRow& row = rows[static_cast<std::size_t>(edge.rows[k])];
      const bool child_is_base = edge.row_base[k] == edge.child;
      child.row(k) = (child_is_base ? row.J_base : row.J_follower).transpose();
      parent.row(k) = (child_is_base ? row.J_follower : row.J_base).transpose();
    }
    for (int k = edge.count; k < kMaxEdgeRows; ++k) {
      // padding: a row of its own that nothing loads
      child.row(k).setZero();
      parent.row(k).setZero();
    }
    // a point mass's rows act on its translation only (its inverse inertia is 0)
    if (point_mass_[static_cast<std::size_t>(edge.child)] != 0) child.rightCols<3>().setZero();
    if (edge.parent == kGround) {
      parent.setZero();
    } else if (point_mass_[static_cast<std::size_t>(edge.parent)] != 0) {
      parent.rightCols<3>().setZero();
    }
    kept = kept && (child.array() == edge_child_[e].array()).all() &&
           (parent.array() == edge_parent_[e].array()).all();
    edge_child_[e] = child;
    edge_parent_[e] = parent;
  }
  for (std::size_t k = 0; k < cut_rows_.size() && kept; ++k) {
    const ConstraintRow& row = rows[static_cast<std::size_t>(cut_rows_[k])];
    kept =
        (row_on_body(row.J_base, cut_bodies_[k].base).array() == cut_base_[k].array()).all() &&
        (row_on_body(row.J_follower, cut_bodies_[k].follower).array() == cut_follower_[k].array())
            .all();
  }
  if (kept) return true;  // the factor and smallest_ratio_ are those of these rows
  factorized_ = false;
  ++factorizations_;
  smallest_ratio_ = std::numeric_limits<double>::infinity();
  for (std::size_t b = 0; b < mass_.size(); ++b) body_pivot_[b] = mass_[b];
  for (const Node& node : order_) {
    const auto i = static_cast<std::size_t>(node.index);
    if (!node.is_edge) {
      // D_b is complete (its child edges are eliminated): P_e += J D_b^-1 J^T
      if (ldlt6(body_pivot_[i], body_inverse_diagonal_[i]) == 0.0) return false;
      const int e = parent_edge_[i];
      if (e < 0) continue;
      // row-major: the substitution's row operations are contiguous (vectorised)
      Mat6Rows x = edge_child_[static_cast<std::size_t>(e)].transpose();
      forward_substitute6(body_pivot_[i], x);
      // the edge's only contribution (its child body): assigned, and the
      // padding rows, which nothing loads, get a pivot of their own
      const auto ei = static_cast<std::size_t>(e);
      edge_pivot_[ei].noalias() =
          x.transpose() * (body_inverse_diagonal_[i].asDiagonal() * x).eval();
      for (int k = edges_[ei].count; k < kMaxEdgeRows; ++k) edge_pivot_[ei](k, k) = 1.0;
      continue;
    }
    // dependency within the edge: a pivot small against its diagonal entry
    // (in a tree, rows can depend on each other only within one edge)
    const double ratio = ldlt6(edge_pivot_[i], edge_inverse_diagonal_[i]);
    if (ratio == 0.0) return false;
    smallest_ratio_ = std::min(smallest_ratio_, ratio);
    const BodyIndex parent = edges_[i].parent;
    if (parent == kGround) continue;
    // D_p += J_ep^T P_e^-1 J_ep
    Mat6Rows y = edge_parent_[i];
    forward_substitute6(edge_pivot_[i], y);
    body_pivot_[static_cast<std::size_t>(parent)].noalias() +=
        y.transpose() * (edge_inverse_diagonal_[i].asDiagonal() * y).eval();
  }
  factorized_ = cut_rows_.empty() || factorize_cut_rows(rows);
  return factorized_;
}

bool TreeKktSolver::factorize_cut_rows(std::span<const ConstraintRow> rows) {
  const std::size_t cuts = cut_rows_.size();
  for (std::size_t k = 0; k < cuts; ++k) {
    const ConstraintRow& row = rows[static_cast<std::size_t>(cut_rows_[k])];
    cut_base_[k] = row_on_body(row.J_base, cut_bodies_[k].base);
    cut_follower_[k] = row_on_body(row.J_follower, cut_bodies_[k].follower);
  }
  // K = Y^T D^-1 Y with Y = L^-1 [D_c^T; 0] (H = L D L^T): column k of Y
  // is non-zero only on the paths from cut row k's bodies to their roots
  const std::size_t groups = cut_groups();
  for (std::size_t g = 0; g < groups; ++g) forward_on_path(g);
  for (std::size_t h = 0; h < groups; ++h)
    for (std::size_t g = h; g < groups; ++g) {
      const auto block = path_product(g, h);
      for (std::size_t a = 0; a < kCutBlock; ++a)
        for (std::size_t c = 0; c < kCutBlock; ++c) {
          const std::size_t j = kCutBlock * g + a;
          const std::size_t k = kCutBlock * h + c;
          if (j < cuts && j >= k)
            schur_(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(k)) =
                block(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(c));
        }
    }
  schur_factor_.compute(schur_);
  if (schur_factor_.info() != Eigen::Success) return false;
  // K's pivots against S's diagonal (D M^-1 D^T)_kk: squared sines
  const auto& l = schur_factor_.matrixLLT();
  for (std::size_t k = 0; k < cuts; ++k) {
    double s_kk = 0.0;
    for (const auto& [body, j] : {std::pair{cut_bodies_[k].base, &cut_base_[k]},
                                  std::pair{cut_bodies_[k].follower, &cut_follower_[k]}})
      if (body != kGround) s_kk += j->dot(inverse_mass_[static_cast<std::size_t>(body)] * *j);
    const auto i = static_cast<Eigen::Index>(k);
    if (!(s_kk > 0.0)) return false;
    smallest_ratio_ = std::min(smallest_ratio_, l(i, i) * l(i, i) / s_kk);
  }
  return true;
}

Vec6 TreeKktSolver::row_on_body(const Vec6& j, BodyIndex body) const {
  if (body == kGround) return Vec6::Zero();
  Vec6 out = j;
  // a point mass's rows act on its translation only (its inverse inertia is 0)
  if (point_mass_[static_cast<std::size_t>(body)] != 0) out.tail<3>().setZero();
  return out;
}

void TreeKktSolver::add_cut_row_transpose(std::size_t k, int c) {
  const RowBodies& rb = cut_bodies_[k];
  if (rb.base != kGround) body_block_[static_cast<std::size_t>(rb.base)].col(c) += cut_base_[k];
  if (rb.follower != kGround)
    body_block_[static_cast<std::size_t>(rb.follower)].col(c) += cut_follower_[k];
}

Vec6& TreeKktSolver::node_vector(const Node& node) {
  const auto i = static_cast<std::size_t>(node.index);
  return node.is_edge ? edge_vector_[i] : body_vector_[i];
}

template <class Block>
void TreeKktSolver::forward_node(const Node& node, std::vector<Block>& body,
                                 std::vector<Block>& edge) {
  const auto i = static_cast<std::size_t>(node.index);
  if (!node.is_edge) {
    ldlt6_solve(body_pivot_[i], body_inverse_diagonal_[i], body[i]);
    const int e = parent_edge_[i];
    if (e >= 0)
      edge[static_cast<std::size_t>(e)].noalias() -=
          edge_child_[static_cast<std::size_t>(e)] * body[i];
    return;
  }
  ldlt6_solve(edge_pivot_[i], edge_inverse_diagonal_[i], edge[i]);
  edge[i] = -edge[i];  // D_e = -P_e
  const BodyIndex parent = edges_[i].parent;
  if (parent != kGround)
    body[static_cast<std::size_t>(parent)].noalias() -= edge_parent_[i].transpose() * edge[i];
}

void TreeKktSolver::forward_on_path(std::size_t g) {
  const auto begin = static_cast<std::size_t>(path_begin_[g]);
  const auto end = static_cast<std::size_t>(path_begin_[g + 1]);
  auto block = [this](const Node& node) -> CutBlock& {
    const auto i = static_cast<std::size_t>(node.index);
    return node.is_edge ? edge_block_[i] : body_block_[i];
  };
  for (std::size_t p = begin; p < end; ++p)
    block(order_[static_cast<std::size_t>(path_node_[p])]).setZero();
  for (int c = 0; c < kCutBlock; ++c) {
    const std::size_t k = kCutBlock * g + static_cast<std::size_t>(c);
    if (k < cut_rows_.size()) add_cut_row_transpose(k, c);
  }
  // the path in elimination order: each node's parent is on it
  for (std::size_t p = begin; p < end; ++p) {
    const Node& node = order_[static_cast<std::size_t>(path_node_[p])];
    path_y_[p] = block(node);
    forward_node(node, body_block_, edge_block_);
    path_w_[p] = block(node);
  }
}

Eigen::Matrix<double, TreeKktSolver::kCutBlock, TreeKktSolver::kCutBlock>
TreeKktSolver::path_product(std::size_t g, std::size_t h) const {
  // Y_g^T D^-1 Y_h over the nodes the two paths share (sorted positions)
  auto p = static_cast<std::size_t>(path_begin_[g]);
  auto q = static_cast<std::size_t>(path_begin_[h]);
  const auto p_end = static_cast<std::size_t>(path_begin_[g + 1]);
  const auto q_end = static_cast<std::size_t>(path_begin_[h + 1]);
  Eigen::Matrix<double, kCutBlock, kCutBlock> sum =
      Eigen::Matrix<double, kCutBlock, kCutBlock>::Zero();
  while (p < p_end && q < q_end) {
    if (path_node_[p] < path_node_[q]) {
      ++p;
    } else if (path_node_[q] < path_node_[p]) {
      ++q;
    } else {
      sum.noalias() += path_y_[p].transpose() * path_w_[q];
      ++p;
      ++q;
    }
  }
  return sum;
}

void TreeKktSolver::set_tree_rhs(const VecX& b) {
  for (std::size_t body = 0; body < body_vector_.size(); ++body)
    body_vector_[body] = body_load_[body];
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    edge_vector_[e].setZero();
    for (int k = 0; k < edge.count; ++k) edge_vector_[e](k) = b(edge.rows[k]);
  }
}

void TreeKktSolver::solve_loaded(const VecX& b, std::span<Vec6> accelerations, VecX& multipliers) {
  set_tree_rhs(b);
  // L z = r, z := D^-1 z
  for (const Node& node : order_) forward_node(node, body_vector_, edge_vector_);
  const std::size_t cuts = cut_rows_.size();
  if (cuts > 0) {
    using GroupVector = Eigen::Matrix<double, kCutBlock, 1>;
    // K mu_c = D_c H^-1 r - b_c = Y^T z - b_c; then z := z - D^-1 Y mu_c
    for (std::size_t g = 0; g < cut_groups(); ++g) {
      GroupVector value = GroupVector::Zero();
      for (auto p = static_cast<std::size_t>(path_begin_[g]);
           p < static_cast<std::size_t>(path_begin_[g + 1]); ++p)
        value.noalias() +=
            path_y_[p].transpose() * node_vector(order_[static_cast<std::size_t>(path_node_[p])]);
      for (std::size_t c = 0; c < kCutBlock && kCutBlock * g + c < cuts; ++c) {
        const std::size_t k = kCutBlock * g + c;
        cut_vector_(static_cast<Eigen::Index>(k)) =
            value(static_cast<Eigen::Index>(c)) - b(cut_rows_[k]);
      }
    }
    schur_factor_.solveInPlace(cut_vector_);
    for (std::size_t g = 0; g < cut_groups(); ++g) {
      GroupVector mu = GroupVector::Zero();  // 0 for a group's missing last column
      for (std::size_t c = 0; c < kCutBlock && kCutBlock * g + c < cuts; ++c) {
        const std::size_t k = kCutBlock * g + c;
        mu(static_cast<Eigen::Index>(c)) = cut_vector_(static_cast<Eigen::Index>(k));
        multipliers(cut_rows_[k]) = -mu(static_cast<Eigen::Index>(c));
      }
      for (auto p = static_cast<std::size_t>(path_begin_[g]);
           p < static_cast<std::size_t>(path_begin_[g + 1]); ++p)
        node_vector(order_[static_cast<std::size_t>(path_node_[p])]).noalias() -= path_w_[p] * mu;
    }
  }
  solve_backward();
  for (std::size_t body = 0; body < body_vector_.size(); ++body)
    accelerations[body] = body_vector_[body];
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    for (int k = 0; k < edge.count; ++k) multipliers(edge.rows[k]) = -edge_vector_[e](k);
  }
  for (const int r : dropped_rows_) multipliers(r) = 0.0;
}

void TreeKktSolver::solve_backward() {
  // L^T x = z (backward pass, root first): x_i = z_i - D_i^-1 H_ip x_p
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const auto i = static_cast<std::size_t>(it->index);
    if (!it->is_edge) {
      const int e = parent_edge_[i];
      if (e < 0) continue;
      Vec6 w = edge_child_[static_cast<std::size_t>(e)].transpose() *
               edge_vector_[static_cast<std::size_t>(e)];
      ldlt6_solve(body_pivot_[i], body_inverse_diagonal_[i], w);
      body_vector_[i] -= w;
      continue;
    }
    const BodyIndex parent = edges_[i].parent;
    if (parent == kGround) continue;
    Vec6 w = edge_parent_[i] * body_vector_[static_cast<std::size_t>(parent)];
    ldlt6_solve(edge_pivot_[i], edge_inverse_diagonal_[i], w);
    edge_vector_[i] += w;  // -D_e^-1 = P_e^-1
  }
}

}  // namespace ictus::internal
