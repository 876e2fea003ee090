// The constraint Jacobian D as one object: each row touches at most two
// bodies (its base and follower) with a 6-vector per body, so D is stored by
// rows as (J_base, J_follower, bodies). Every product with D in the engine
// goes through here: D x (velocities, accelerations, displacements), the
// impulses' and reactions' M^-1 D^T p, and entries of S = D M^-1 D^T (the
// Schur solver assembles S from its own precomputed pattern of the same
// rows, schur_solver.h).
//
// A 6-per-body quantity is passed as a function body -> 6-vector (a
// segment of a state, an entry of a per-body array), so one implementation
// serves every layout.
#pragma once

#include <span>

#include "ictus/constraint.h"
#include "schur_solver.h"

namespace ictus::internal {

class ConstraintJacobian {
 public:
  ConstraintJacobian() = default;
  ConstraintJacobian(std::span<const ConstraintRow> rows, std::span<const RowBodies> bodies)
      : rows_(rows), bodies_(bodies) {}

  int rows() const { return static_cast<int>(rows_.size()); }
  const RowBodies& bodies(int r) const { return bodies_[static_cast<std::size_t>(r)]; }
  const ConstraintRow& row(int r) const { return rows_[static_cast<std::size_t>(r)]; }

  /// (D x)_r; x(b) is body b's 6-vector (the ground's is zero).
  template <class PerBody>
  double row_times(int r, PerBody&& x) const {
    const ConstraintRow& row = rows_[static_cast<std::size_t>(r)];
    const RowBodies& rb = bodies_[static_cast<std::size_t>(r)];
    double sum = 0.0;
    if (rb.base != kGround) sum += row.J_base.dot(x(rb.base));
    if (rb.follower != kGround) sum += row.J_follower.dot(x(rb.follower));
    return sum;
  }

  /// x(b) += D_r^T p for the bodies of row r (a constraint force).
  template <class PerBody>
  void add_transpose(int r, double p, PerBody&& x) const {
    const ConstraintRow& row = rows_[static_cast<std::size_t>(r)];
    const RowBodies& rb = bodies_[static_cast<std::size_t>(r)];
    if (rb.base != kGround) x(rb.base) += p * row.J_base;
    if (rb.follower != kGround) x(rb.follower) += p * row.J_follower;
  }

  /// x(b) += M_b^-1 D_r^T p for the bodies of row r.
  template <class PerBody>
  void add_inverse_mass_transpose(int r, double p, std::span<const InverseMass> inverse_mass,
                                  PerBody&& x) const {
    const ConstraintRow& row = rows_[static_cast<std::size_t>(r)];
    const RowBodies& rb = bodies_[static_cast<std::size_t>(r)];
    if (rb.base != kGround)
      x(rb.base) +=
          apply_inverse_mass(inverse_mass[static_cast<std::size_t>(rb.base)], p * row.J_base);
    if (rb.follower != kGround)
      x(rb.follower) += apply_inverse_mass(inverse_mass[static_cast<std::size_t>(rb.follower)],
                                           p * row.J_follower);
  }

  /// x += M^-1 D^T p over all rows not marked in `skip`.
  template <class PerBody>
  void add_inverse_mass_transpose(const VecX& p, std::span<const InverseMass> inverse_mass,
                                  std::span<const char> skip, PerBody&& x) const {
    for (int r = 0; r < rows(); ++r)
      if (skip[static_cast<std::size_t>(r)] == 0)
        add_inverse_mass_transpose(r, p(r), inverse_mass, x);
  }

  /// S_kr = D_k M^-1 D_r^T: the Schur-complement entry of two rows.
  double schur_entry(int k, int r, std::span<const InverseMass> inverse_mass) const {
    const ConstraintRow& row_k = rows_[static_cast<std::size_t>(k)];
    const ConstraintRow& row_r = rows_[static_cast<std::size_t>(r)];
    const RowBodies& bk = bodies_[static_cast<std::size_t>(k)];
    const RowBodies& br = bodies_[static_cast<std::size_t>(r)];
    double s = 0.0;
    for (const auto& [body_r, j_r] :
         {std::pair{br.base, &row_r.J_base}, {br.follower, &row_r.J_follower}}) {
      if (body_r == kGround) continue;
      const InverseMass& w = inverse_mass[static_cast<std::size_t>(body_r)];
      if (bk.base == body_r) s += row_k.J_base.dot(apply_inverse_mass(w, *j_r));
      if (bk.follower == body_r) s += row_k.J_follower.dot(apply_inverse_mass(w, *j_r));
    }
    return s;
  }

 private:
  std::span<const ConstraintRow> rows_;
  std::span<const RowBodies> bodies_;
};

}  // namespace ictus::internal
