// Coulomb friction at the impulse level on the frictional joints of a
// contact impact (docs/theory/friction.md, "Friction impulses in an
// impact", "In a contact impact"): the impact's complementarity problem with every
// stuck joint held and no slipping joint's friction is solved first; where
// a joint then asks for a friction impulse, the free sides' active sets are
// enumerated, and on each pushing side with friction the cases of its
// pyramid (stuck, slipping at a vertex or on an edge): each combination an
// equality-constrained impact whose joints' friction impulses are decided as
// in the system impact (friction_impulses.h).
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "system_impl.h"

namespace ictus::internal {

/// The contact impact as contact_impact assembled it, over the sides free
/// in its complementarity problem.
struct ContactImpactProblem {
  const MatX& Minv;                    // 6n x 6n
  const MatX& DE;                      // equality rows (joints, drivers, held sides, stuck holds)
  std::span<const int> equality_rows;  // their rows in the System
  const VecX& rE;                      // their targets
  const MatX& G;                       // the free sides' gap-rate rows (sign included)
  const MatX& T;                       // their two slip-rate rows each (zero without friction)
  std::span<const int> rough;          // the free sides with friction (into G's rows)
  std::span<const double> mu;          // and their coefficients (mu_s for a side at rest)
  const VecX& c;                       // Newton's law: G u+ >= c, equal where the side pushes
  const VecX& u1;                      // the velocities before
  const VecX& l_E;                     // the equality rows' impulses of the solution found
  const VecX& z;                       // and the free sides' (normals first)
};

struct ContactImpactWithJointFriction {
  VecX x;    // the velocities after
  VecX z;    // the normal impulse of each free side
  VecX l_E;  // per equality row (a let-go hold's slot: its joint's friction impulse)
  std::vector<std::pair<int, int>> let_go;  // stuck joints set slipping: (element, mode)
  // the friction impulses, for the log: (element name + ".stick"/".slip", F)
  std::vector<std::pair<std::string, double>> friction;
  // joints whose friction impulses are one choice among many (one motion held twice)
  std::vector<std::string> non_unique;
  // balls slipping after the impact and their slip axes (world): set once
  // the velocities are
  std::vector<std::pair<const System::Impl::FrictionJoint*, Vec3>> ball_axes;
};

/// False when every stuck joint's hold impulse is within mu_s |P_N| and no
/// slipping joint takes a transverse impulse: the solution found obeys
/// Coulomb's law. Otherwise true, with the impact decided again into `out`;
/// throws SimulationError when that is not unique or not built (more than 6
/// joints, 10 free sides or 20000 combinations of the sides' cases, several
/// joints' reactions off their lines). Balls take part when one asks, each
/// decided alone (ball_friction_impulses), with frictionless sides only: a
/// ball is otherwise left out with a warning, as is one whose impulses
/// reach another joint's. `sides` names the impact's sides for messages.
bool joint_friction_in_contact_impact(System::Impl& s, double t, const ContactImpactProblem& p,
                                      const std::string& sides,
                                      ContactImpactWithJointFriction& out);

}  // namespace ictus::internal
