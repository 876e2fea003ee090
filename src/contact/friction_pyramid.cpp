// The friction pyramid's complementarity problem (friction_pyramid.h).
#include "friction_pyramid.h"

#include <algorithm>

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

}  // namespace ictus::internal
