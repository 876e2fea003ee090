// Event-driven unilateral contact, the Simulation's side
// (docs/theory/contact.md; Pfeiffer & Glocker 1996, ch. 7; Acary &
// Brogliato 2008, ch. 7). Each contact side has a switching function,
// positive while its mode persists,
//   open:    g = max(gap - offset, (1 s) gap rate)
//            (an impact when the gap reaches zero approaching)
//   closed:  g = N + tol        (the contact opens when N would pull; tol
//                                is 1e-12 of the closed sides' total force)
// whose zero crossings are located on the dense output like event
// conditions. At an instant the sides that fire are decided together:
//   1. an impact: one LCP over the sides that close and every closed side
//      (System::contact_impact, Newton restitution, impulses >= 0);
//   2. a side that left the impact at rest, or whose remaining flights
//      would accumulate (Zeno) within its accumulation_time, is closed;
//   3. the closed sides take part in the contact problem at acceleration
//      level (System::contact_forces): those with N = 0 and
//      g'' > 0 open (in a redundant set a side may rest with N = 0).
// `offset` is the gap at the last impact when it was located slightly inside
// (the root finder brackets the crossing): the next flight starts from zero.
#pragma once

#include <vector>

#include "../switching_set.h"

namespace ictus::internal {

class ContactSwitching : public SwitchingSet<ContactSwitching> {
 public:
  ContactSwitching(System& system, Log log);

  /// Impacts decided so far (RunStatistics::impacts).
  int impacts() const { return impacts_; }
  /// Switching-function sides and gap offsets (save/restore).
  std::vector<double> saved() const;
  void restore(const std::vector<double>& saved, int impacts);
  /// Switching function of side k at (t, y) (evaluates the System).
  double value(int k, double t, const VecX& y);
  bool locatable(int /*k*/) const { return true; }
  bool crossed(int k, double g) const;
  /// Decides the contacts at the instant t (a located crossing, or the start
  /// of the run when `start`); may change the velocities (impacts). Returns
  /// the number of mode changes.
  int apply(double t, VecX& y, bool start);
  /// Look-ahead side of every function just after t (as settle_conditions).
  void settle(double t, const VecX& y);
  /// After an impulse applied with every closed side open (an external
  /// impulse, a constraint that closes: System::apply_impact), the closed
  /// sides decided as an impact at t: one LCP over them (restitution 0, as
  /// for every side closed before an impact) and the open sides the impulse
  /// drives into touch, friction included, so that a closed side takes no
  /// pulling impulse and its tangents no more than mu_s P. Exact for plastic
  /// frictionless impulses: the projection onto the joints' motions, then
  /// onto those that the contacts allow too, is the projection onto the
  /// latter. Returns the number of mode changes.
  int after_impulse(double t, VecX& y) { return impact(t, y, {}); }
  /// After an instant's decisions, opens a closed side whose normal force
  /// pulls a moment later along the motion (one lifting with another that
  /// opened first by round-off, or one a switch of friction mode unloads):
  /// its switching function starts below zero, so no crossing would ever
  /// be located. The side pulling most opens first, then the others are
  /// looked at again. Returns the number opened.
  int open_pulling(double t, const VecX& y);

 private:
  /// The offset of side k opening at (t, y) without an impact: its gap if
  /// below zero (a drifted dependent row), else 0.
  double lift_off_offset(int k, double t, const VecX& y);
  /// Gap acceleration of side k a moment after t with the side open.
  double free_gap_acceleration(int k, double t, const VecX& y);
  /// The acceleration-level problem over every closed side: opens the sides
  /// with N = 0. Returns the number opened.
  int settle_closed(double t, const VecX& y, const char* why);
  int impact(double t, VecX& y, const std::vector<int>& closing);

  std::vector<double> offset_;
  std::vector<double> pull_tolerance_;  // [N]: a closed side opens below -this
  std::vector<char> just_switched_;     // in the current instant: keep the side set by apply
  std::vector<double> now_;             // open_pulling's switching functions at t
  int impacts_ = 0;
};

}  // namespace ictus::internal
