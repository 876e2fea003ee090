// The energy an impact books: the work of the external impulses and, by the
// balance of kinetic energy, what the constraint impulses took (issue 9,
// defect 2). Kept apart from the impact solve so that every way of solving an
// impact books its energy the same way.
#pragma once

#include <span>

#include "ictus/body.h"
#include "ictus/state_layout.h"
#include "ictus/system.h"

namespace ictus::internal {

/// Work of the external impulses over an impact, W = (K pe)^T (u- + u+) / 2:
/// each impulse times the mean of the velocities of its point before and
/// after the whole impact (the impulse itself and the constraint impulses it
/// provokes). The mass matrix is constant over the instant, so
///   T+ - T- = (u+ - u-)^T M (u+ + u-) / 2 = (K pe + D^T lambda)^T (u- + u+) / 2
/// and the balance T+ - T- = W - L leaves to the constraints
/// L = -lambda^T D (u- + u+) / 2: zero for a persisting workless constraint
/// (D u = 0 before and after, a fixed frictionless hinge), Carnot's loss for
/// one that closes plastically (seed 000 eqs. 3-5).
/// `velocities_before` and `velocities_after` are the velocity segments of the
/// state (StateLayout::velocities); `kin` gives the orientations, which an
/// impact does not change.
double external_impulse_work(std::span<const ExternalImpulse> external,
                             const std::vector<BodyKinematics>& kin,
                             const Eigen::Ref<const VecX>& velocities_before,
                             const Eigen::Ref<const VecX>& velocities_after);

}  // namespace ictus::internal
