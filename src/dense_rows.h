// The dense forms of the body-level operators for the small problems solved
// at one instant: the contact forces and impacts (system_contacts.cpp), the
// count of frictional solutions (contact_friction_solutions.cpp) and the rows
// a time-stepping stepper reads (system_time_stepping.cpp). The integration
// itself never forms them: it works on the tree or the sparse factorisation.
#pragma once

#include <span>

#include "system_impl.h"

namespace ictus::internal {

/// A row's Jacobian blocks times `sign`, scattered into `dense` (6n entries,
/// zero elsewhere). `dense` is a row or column vector already sized 6n.
template <class Dense>
void scatter_row(const ConstraintRow& row, BodyIndex base, BodyIndex follower, double sign,
                 Dense& dense) {
  dense.setZero();
  if constexpr (Dense::RowsAtCompileTime == 1) {
    if (base != kGround) dense.template segment<6>(6 * base) += sign * row.J_base.transpose();
    if (follower != kGround)
      dense.template segment<6>(6 * follower) += sign * row.J_follower.transpose();
  } else {
    if (base != kGround) dense.template segment<6>(6 * base) += sign * row.J_base;
    if (follower != kGround) dense.template segment<6>(6 * follower) += sign * row.J_follower;
  }
}

/// Row r of `s` times `sign` as a dense 6n column.
VecX dense_row(const System::Impl& s, int r, double sign = 1.0);

/// M^-1 as a dense 6n x 6n matrix (block diagonal, one 6x6 block per body).
MatX dense_inverse_mass(const System::Impl& s);

/// Per-body loads (force in the world frame, torque in the body's) as one 6n
/// vector, in the order of the body velocities.
VecX dense_loads(std::span<const BodyLoad> loads);

/// The slip-rate row of a contact tangent or joint friction element, T u =
/// its slip rate: its hold constraint evaluated at the current kinematics
/// (whether or not the hold is on).
ConstraintRow slip_rate_row(const System::Impl& s, const System::Impl::FrictionJoint& fj);

/// Row r's stabilised acceleration target at the current state, as the
/// dynamics solve imposes it (stabilised_target.h).
double row_stabilised_target(const System::Impl& s, int r);

}  // namespace ictus::internal
