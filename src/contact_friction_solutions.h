// How many solutions the frictional contact problem of one instant has: the
// closed contacts open or closed, their stuck tangents stuck or starting to
// slip, the slipping tangents with their directions (contact_friction_solutions.cpp).
#pragma once

#include "system_impl.h"

namespace ictus::internal {

struct ContactFrictionSolutions {
  bool counted = false;  // false: the instant is outside what the count handles
  int consistent = 0;    // distinct consistent combinations (motions and normal forces)
  int motions = 0;       // distinct motions among them (forces aside)
  bool current = false;  // the current one (every contact closed, the stuck tangents stuck) is one
  // a slipping tangent is at zero rate: its mode is provisional, a decision
  // at zero rate follows (it is counted as free to stick or slip either way)
  bool provisional = false;
};

/// Counts, at the instant of the last solve (before the slip friction is
/// superposed), the consistent combinations of the closed contacts and their
/// tangents. Counted only where every frictional element is a contact tangent,
/// no closed contact row is dependent, the inertia is not ill-conditioned,
/// the combinations are few (at most 8 contacts, 12 unknowns and 5000
/// combinations) and the
/// dense algebra small (at most 100 bodies and 600 other active rows);
/// otherwise `counted` is false. Allocates: it runs only where the slipping problem's
/// det(I - G T) <= 0, which before stopped the run.
ContactFrictionSolutions count_contact_friction_solutions(const System::Impl& s);

}  // namespace ictus::internal
