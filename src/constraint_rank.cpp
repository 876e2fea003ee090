#include "constraint_rank.h"

#include <algorithm>
#include <cmath>

namespace ictus::internal {

void ConstraintRank::analyse(std::span<const RowBodies> bodies, int body_count) {
  gram_.analyse(bodies, body_count);
  weights_.assign(static_cast<std::size_t>(body_count), InverseMass{});
  flags_.assign(bodies.size(), 0);
}

void ConstraintRank::scale(std::span<const ConstraintRow> rows, std::span<const RowBodies> bodies,
                           std::span<const char> excluded) {
  // lever arms L_b: the largest |J_rot| / |J_trans| of the rows on each body
  // (the angular velocity becomes the velocity L_b w)
  for (InverseMass& w : weights_) w.inv_inertia.setZero();
  double global = 0.0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (excluded[r] != 0) continue;
    for (const auto& [body, j] : {std::pair{bodies[r].base, &rows[r].J_base},
                                  std::pair{bodies[r].follower, &rows[r].J_follower}}) {
      if (body == kGround) continue;
      const double translation = j->head<3>().norm();
      if (translation <= 0.0) continue;
      const double lever = j->tail<3>().norm() / translation;
      Mat3& l = weights_[static_cast<std::size_t>(body)].inv_inertia;
      l(0, 0) = std::max(l(0, 0), lever);
      global = std::max(global, lever);
    }
  }
  if (!(global > 0.0)) global = 1.0;
  for (InverseMass& w : weights_) {
    const double lever = w.inv_inertia(0, 0) > 0.0 ? w.inv_inertia(0, 0) : global;
    w.inv_mass = 1.0;
    w.inv_inertia = Mat3::Identity() / (lever * lever);
  }
}

int ConstraintRank::find_dependent_rows(std::span<const ConstraintRow> rows,
                                        std::span<const RowBodies> bodies,
                                        std::span<const char> excluded, std::span<char> dependent,
                                        double sine) {
  scale(rows, bodies, excluded);
  std::copy(excluded.begin(), excluded.end(), flags_.begin());
  gram_.eliminate_dependent_rows(rows, weights_, flags_, sine * sine);
  int rank = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    dependent[r] = flags_[r] != 0 && excluded[r] == 0 ? 1 : 0;
    rank += flags_[r] == 0 ? 1 : 0;
  }
  condition_ = std::sqrt(gram_.pivot_spread(flags_));
  return rank;
}

bool ConstraintRank::independent(std::span<const ConstraintRow> rows,
                                 std::span<const RowBodies> bodies, std::span<const char> excluded,
                                 double sine) {
  scale(rows, bodies, excluded);
  gram_.assemble(rows, weights_, excluded);
  if (!gram_.factorize()) return false;
  condition_ = std::sqrt(gram_.pivot_spread(excluded));
  return gram_.first_dependent_row(excluded, sine * sine) < 0;
}

double ConstraintRank::smallest_sine(std::span<const ConstraintRow> rows,
                                     std::span<const RowBodies> bodies,
                                     std::span<const char> excluded) {
  scale(rows, bodies, excluded);
  gram_.assemble(rows, weights_, excluded);
  if (!gram_.factorize()) return 0.0;
  return std::sqrt(std::max(gram_.smallest_pivot_ratio(excluded).first, 0.0));
}

}  // namespace ictus::internal
