// The acceleration a constraint row is made to follow: its gamma with the
// Baumgarte terms that pull a drifted row back (seed 000, eq. 7). The
// dynamics solve, the contact forces and the count of frictional solutions
// impose the same target.
#pragma once

#include "ictus/constraint.h"
#include "ictus/model.h"

namespace ictus::internal {

/// gamma - beta_k (D u - h) - beta_c Delta for a row whose rate is D u = `rate`.
inline double stabilised_target(const ConstraintRow& row, double rate,
                                const StabilisationSettings& stabilisation) {
  // seed 000 eq. 7: hc = -beta_c Delta - beta_k Delta'
  double stabilising = stabilisation.baumgarte_velocity * (rate - row.target);
  if (row.has_position_error) stabilising += stabilisation.baumgarte_position * row.position_error;
  return row.gamma - stabilising;
}

}  // namespace ictus::internal
