// The friction pyramid's complementarity problem (friction_pyramid.h).
#include "friction_pyramid.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lexicographic_lemke.h"

namespace ictus::internal {

void assemble_friction_pyramid(const MatX& W, const VecX& q, Eigen::Index sides,
                               std::span<const int> normal, std::span<const int> friction,
                               std::span<const double> mu, MatX& L, VecX& lq) {
  const auto na = static_cast<Eigen::Index>(normal.size());
  const auto nf = static_cast<Eigen::Index>(friction.size());
  const Eigen::Index n = na + 5 * nf;
  // the H row and sign of each unknown's rate: a normal impulse, a direction
  auto row_of = [&](Eigen::Index i, double* sign) -> Eigen::Index {
    *sign = 1.0;
    if (i < na) return normal[static_cast<std::size_t>(i)];
    const Eigen::Index j = (i - na) / 4, d = (i - na) % 4;
    *sign = d % 2 == 0 ? 1.0 : -1.0;
    return sides + 2 * friction[static_cast<std::size_t>(j)] + d / 2;
  };
  auto block = L.topLeftCorner(n, n);
  block.setZero();
  for (Eigen::Index i = 0; i < na + 4 * nf; ++i) {
    double si = 1.0;
    const Eigen::Index ri = row_of(i, &si);
    for (Eigen::Index k = 0; k < na + 4 * nf; ++k) {
      double sk = 1.0;
      const Eigen::Index rk = row_of(k, &sk);
      L(i, k) = si * sk * W(ri, rk);
    }
    lq(i) = si * q(ri);
  }
  for (Eigen::Index j = 0; j < nf; ++j) {
    const int side = friction[static_cast<std::size_t>(j)];
    const Eigen::Index lambda = na + 4 * nf + j;
    const auto at =
        static_cast<Eigen::Index>(std::find(normal.begin(), normal.end(), side) - normal.begin());
    for (Eigen::Index d = 0; d < 4; ++d) {
      L(na + 4 * j + d, lambda) = 1.0;
      L(lambda, na + 4 * j + d) = -1.0;
    }
    L(lambda, at) = mu[static_cast<std::size_t>(j)];
    lq(lambda) = 0.0;
  }
}

void friction_pyramid_impulses(const VecX& z, Eigen::Index sides, std::span<const int> normal,
                               std::span<const int> friction, Eigen::Ref<VecX> impulse) {
  const auto na = static_cast<Eigen::Index>(normal.size());
  impulse.setZero();
  for (Eigen::Index i = 0; i < na; ++i) impulse(normal[static_cast<std::size_t>(i)]) = z(i);
  for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(friction.size()); ++j) {
    const int side = friction[static_cast<std::size_t>(j)];
    for (Eigen::Index axis = 0; axis < 2; ++axis)
      impulse(sides + 2 * side + axis) = z(na + 4 * j + 2 * axis) - z(na + 4 * j + 2 * axis + 1);
  }
}

namespace {

// z >= 0, w = M z + q >= 0 and min(w_i, |M| z_i) = 0 to 1e-9 of |q|
bool complementary(const MatX& M, const VecX& q, const VecX& z) {
  if (!z.allFinite()) return false;
  const VecX w = M * z + q;
  const double m_scale = M.cwiseAbs().maxCoeff();
  double worst = 0.0;
  for (Eigen::Index i = 0; i < z.size(); ++i)
    worst = std::max({worst, -w(i), -z(i), std::min(w(i), m_scale * z(i))});
  return worst <= 1e-9 * q.cwiseAbs().maxCoeff();
}

}  // namespace

bool solve_friction_pyramid_by_sides(const MatX& L, const VecX& lq, std::span<const int> normal,
                                     std::span<const int> friction, Eigen::Ref<VecX> z) {
  const auto na = static_cast<Eigen::Index>(normal.size());
  const auto nf = static_cast<Eigen::Index>(friction.size());
  const Eigen::Index n = na + 5 * nf;
  // the unknowns of each side: its P, then (with friction) its four beta and lambda
  std::vector<std::vector<Eigen::Index>> blocks(static_cast<std::size_t>(na));
  for (Eigen::Index i = 0; i < na; ++i) blocks[static_cast<std::size_t>(i)].push_back(i);
  for (Eigen::Index j = 0; j < nf; ++j) {
    const auto at = static_cast<std::size_t>(
        std::find(normal.begin(), normal.end(), friction[static_cast<std::size_t>(j)]) -
        normal.begin());
    for (Eigen::Index d = 0; d < 4; ++d) blocks[at].push_back(na + 4 * j + d);
    blocks[at].push_back(na + 4 * nf + j);
  }
  VecX x = VecX::Zero(n);
  for (int sweep = 0; sweep < 2000; ++sweep) {
    double change = 0.0;
    for (const std::vector<Eigen::Index>& b : blocks) {
      const auto m = static_cast<Eigen::Index>(b.size());
      MatX Lb(m, m);
      VecX qb(m);
      for (Eigen::Index r = 0; r < m; ++r) {
        const Eigen::Index row = b[static_cast<std::size_t>(r)];
        qb(r) = lq(row) + L.row(row).head(n).dot(x);
        for (Eigen::Index c = 0; c < m; ++c) {
          const Eigen::Index col = b[static_cast<std::size_t>(c)];
          Lb(r, c) = L(row, col);
          qb(r) -= L(row, col) * x(col);
        }
      }
      const LcpSolution local = lexicographic_lemke(Lb, qb);
      if (!local.solved) return false;
      for (Eigen::Index r = 0; r < m; ++r) {
        const Eigen::Index row = b[static_cast<std::size_t>(r)];
        change = std::max(change, std::abs(local.z(r) - x(row)));
        x(row) = local.z(r);
      }
    }
    if (change <= 1e-14 * std::max(1.0, x.cwiseAbs().maxCoeff())) break;
  }
  if (!complementary(L.topLeftCorner(n, n), lq.head(n), x)) return false;
  z.head(n) = x;
  return true;
}

bool solve_degenerate_friction_pyramid(const MatX& L, const VecX& lq, std::span<const int> normal,
                                       std::span<const int> friction, Eigen::Ref<VecX> z) {
  const auto n = static_cast<Eigen::Index>(normal.size() + 5 * friction.size());
  // rates at the round-off of the largest (a resting side's gap and slip
  // rates, 1e-12 where they are zero) are zero: a degenerate vertex then
  // stays one, and its ties go to the lexicographic rule
  VecX q = lq.head(n);
  const double round_off = 1e-10 * q.cwiseAbs().maxCoeff();
  for (Eigen::Index i = 0; i < n; ++i)
    if (std::abs(q(i)) <= round_off) q(i) = 0.0;
  const MatX M = L.topLeftCorner(n, n);
  VecX x(n);
  const LcpSolution whole = lexicographic_lemke(M, q);
  if (whole.solved) {
    x = whole.z;
  } else if (!solve_friction_pyramid_by_sides(M, q, normal, friction, x)) {
    return false;
  }
  // accepted on the problem as given (its round-off included)
  if (!complementary(M, lq.head(n), x)) return false;
  z.head(n) = x;
  return true;
}

}  // namespace ictus::internal
