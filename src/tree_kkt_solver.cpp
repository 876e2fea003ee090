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

bool TreeKktSolver::analyse(std::span<const RowBodies> rows, std::span<const Body> bodies) {
  usable_ = false;
  edges_.clear();
  order_.clear();
  const auto n = bodies.size();
  mass_.assign(n, Mat6::Zero());
  point_mass_.assign(n, 0);
  for (std::size_t b = 0; b < n; ++b) {
    const Body& body = bodies[b];
    mass_[b].topLeftCorner<3, 3>().diagonal().setConstant(body.mass);
    // a point mass's rotation is frozen: identity rows with a zero load (as kkt_solver.h)
    mass_[b].bottomRightCorner<3, 3>() = body.point_mass ? Mat3::Identity() : body.inertia;
    point_mass_[b] = body.point_mass ? 1 : 0;
  }
  body_pivot_.assign(n, Mat6::Zero());
  body_inverse_diagonal_.assign(n, Vec6::Ones());
  body_vector_.assign(n, Vec6::Zero());
  parent_edge_.assign(n, -1);

  // rows between the same two bodies form one edge
  std::map<std::pair<BodyIndex, BodyIndex>, int> edge_of;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto [lo, hi] = std::minmax(rows[r].base, rows[r].follower);
    if (lo == hi) return false;
    const auto [it, added] = edge_of.try_emplace({lo, hi}, static_cast<int>(edges_.size()));
    if (added) edges_.push_back(Edge{.first = lo, .second = hi});
    Edge& edge = edges_[static_cast<std::size_t>(it->second)];
    if (edge.count == kMaxEdgeRows) return false;  // more rows than freedoms: redundant
    edge.rows[edge.count] = static_cast<int>(r);
    edge.row_base[edge.count] = rows[r].base;
    ++edge.count;
  }

  // a forest: no edge joins two bodies already connected (the ground is node n)
  auto node = [n](BodyIndex b) { return b == kGround ? static_cast<int>(n) : b; };
  std::vector<int> set(n + 1);
  std::iota(set.begin(), set.end(), 0);
  std::vector<std::vector<int>> incident(n);
  std::vector<int> ground_edges;
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const int a = find_root(set, node(edges_[e].first));
    const int c = find_root(set, node(edges_[e].second));
    if (a == c) return false;  // a loop
    set[static_cast<std::size_t>(a)] = c;
    for (const BodyIndex b : {edges_[e].first, edges_[e].second})
      if (b == kGround) {
        ground_edges.push_back(static_cast<int>(e));
      } else {
        incident[static_cast<std::size_t>(b)].push_back(static_cast<int>(e));
      }
  }

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

  const auto m = edges_.size();
  edge_child_.assign(m, Mat6::Zero());
  edge_parent_.assign(m, Mat6::Zero());
  edge_pivot_.assign(m, Mat6::Zero());
  edge_inverse_diagonal_.assign(m, Vec6::Ones());
  edge_vector_.assign(m, Vec6::Zero());
  usable_ = true;
  return true;
}

bool TreeKktSolver::factorize(std::span<const ConstraintRow> rows) {
  smallest_ratio_ = std::numeric_limits<double>::infinity();
  for (std::size_t b = 0; b < mass_.size(); ++b) body_pivot_[b] = mass_[b];
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    Mat6& child = edge_child_[e];
    Mat6& parent = edge_parent_[e];
    edge_pivot_[e].setZero();
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
      edge_pivot_[e](k, k) = 1.0;
    }
    // a point mass's rows act on its translation only (its inverse inertia is 0)
    if (point_mass_[static_cast<std::size_t>(edge.child)] != 0) child.rightCols<3>().setZero();
    if (edge.parent == kGround) {
      parent.setZero();
    } else if (point_mass_[static_cast<std::size_t>(edge.parent)] != 0) {
      parent.rightCols<3>().setZero();
    }
  }
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
      edge_pivot_[static_cast<std::size_t>(e)].noalias() +=
          x.transpose() * body_inverse_diagonal_[i].asDiagonal() * x;
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
        y.transpose() * edge_inverse_diagonal_[i].asDiagonal() * y;
  }
  return true;
}

void TreeKktSolver::solve_forward_backward() {
  // L z = r, then z := D^-1 z (Baraff's forward pass, leaves first)
  for (const Node& node : order_) {
    const auto i = static_cast<std::size_t>(node.index);
    if (!node.is_edge) {
      ldlt6_solve(body_pivot_[i], body_inverse_diagonal_[i], body_vector_[i]);
      const int e = parent_edge_[i];
      if (e >= 0)
        edge_vector_[static_cast<std::size_t>(e)].noalias() -=
            edge_child_[static_cast<std::size_t>(e)] * body_vector_[i];
      continue;
    }
    ldlt6_solve(edge_pivot_[i], edge_inverse_diagonal_[i], edge_vector_[i]);
    edge_vector_[i] = -edge_vector_[i];  // D_e = -P_e
    const BodyIndex parent = edges_[i].parent;
    if (parent != kGround)
      body_vector_[static_cast<std::size_t>(parent)].noalias() -=
          edge_parent_[i].transpose() * edge_vector_[i];
  }
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
