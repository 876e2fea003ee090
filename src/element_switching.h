// Switching of stick/slip force elements (seed 003, issue 16): the
// Simulation's side of the set-valued law at zero rate (force.h,
// docs/theory/stick-slip.md). Each element declares a switching function,
// positive while its mode persists,
//   slipping (mode s = +-1):  g = s u'            (the slip stops at u' = 0)
//   stuck    (mode 0):        g = F_max - |lambda| (the hold row gives way;
//                             or, locked by the other rows, they move it:
//                             System::stuck_margin)
// whose zero crossings are located on the integrator's dense output like
// event conditions, then decided at the crossing like Filippov's solution
// (REPORT.md case 3): at u' = 0 the element sticks if the hold row's force
// lambda stays within F_max, otherwise it slips the way the load pushes
// (a reversal, or on in the same direction).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "switching_set.h"

namespace ictus::internal {

class ElementSwitching : public SwitchingSet<ElementSwitching> {
 public:
  ElementSwitching(System& system, Log log);

  /// The side of every function at the last accepted state (save/restore).
  const std::vector<double>& sides() const { return g_last_; }
  void set_sides(const std::vector<double>& sides) { g_last_ = sides; }
  /// Switching function of element k at (t, y) (evaluates the System).
  double value(int k, double t, const VecX& y);
  /// A switched-off element is not located.
  bool locatable(int k) const { return system_.stick_slip_enabled(k); }
  bool crossed(int k, double g) const;
  /// Remembers the sides at an accepted state, after a slipping ball's slip
  /// axis has followed its angular velocity there.
  void remember(double t, const VecX& y);

  /// Decides the modes at the instant t (an located crossing, or the start
  /// of the run when `start`): switches every element whose function has
  /// crossed, then, in further rounds, those whose function the look-ahead
  /// along the motion shows negative. May change the velocities (a sticking
  /// element's rate is set to exactly zero by a plastic impact of its hold
  /// row). Returns the number of switches.
  int apply(double t, VecX& y, bool start);
  /// Notes which elements are switched on, their modes and rates at (t, y),
  /// before the contacts or an event's actions switch at the instant t (a
  /// contact tangent is on only while its contact is closed).
  void note_enabled(double t, const VecX& y);
  /// After those switches: decides, as at the start of a run, the elements
  /// switched on since note_enabled() (the tangents of contacts that
  /// closed), the stuck ones let go undecided (a contact opened for a
  /// moment within an impact), and the slipping ones that an impulse turned
  /// round: one that moves slips the way it moves (logged `slip`, or
  /// `reversal`), one at rest is decided at zero rate. A stuck one the
  /// switches left beyond its limit is let go as a hold that gives way
  /// (let_go_together, in decide's later rounds). Returns the number of
  /// switches.
  int wake(double t, VecX& y);
  /// A stuck element is beyond its limit at (t, y): its margin below zero
  /// past any crossing a step could locate, where the accepted state
  /// changed the rank (a dependent hold, its force zero, kept again as its
  /// rows part, takes the force the rigid model gives it there).
  bool beyond_limit(double t, const VecX& y);
  /// Lets such elements go at t, as wake() does those the actions leave
  /// beyond their limits. Returns the number of switches.
  int let_go_overloaded(double t, VecX& y);
  /// A slipping element moves against its slip direction at (t, y) (mode
  /// times rate below -atol, and below the round-off of the fastest
  /// element's rate) whose switching function was left at or below
  /// zero by the last instant's look-ahead, where no crossing of it is
  /// located: its slip's end was missed (a box landing on rough corners in
  /// a cascade of bounces: friction then drove it, creating tens of
  /// joules).
  bool slipping_against(double t, const VecX& y);
  /// Turns such elements round at t, as wake() does those an impulse turned
  /// round: each slips the way it moves (logged `reversal`). Returns the
  /// number of switches.
  int turn_against_slips(double t, VecX& y);
  /// Look-ahead side of every function just after t (as settle_conditions).
  void settle(double t, const VecX& y);
  /// Logs a warning where this instant's decisions leave a stuck element
  /// with a friction force beyond its limit by more than round-off (at t,
  /// after all of them): the decision held it on a split of statically
  /// indeterminate forces within the cones that the dynamics does not
  /// reproduce, and its reported force is not admissible until the next
  /// decision. Once per instant, naming the furthest beyond.
  void report_beyond_limits(double t, const VecX& y);

 private:
  /// decide's rounds (at most ten) from the state at t; settled_ tells
  /// whether they ended with no function pending.
  int decide_rounds(double t, VecX& y, bool start);
  /// The instant decided again from where it stood before its first pass,
  /// with the contact-modes split search, where the first pass's stick
  /// decision was undone at once; kept only where it holds at rest what the
  /// first pass set moving. Returns the switches of the pass that stands.
  int decide_again_with_contact_splits(double t, VecX& y, bool start, int first_switches);
  /// The second pass from before_, with the contact-modes split search: kept
  /// (true, its switches in `switches`) where its rounds settle and its
  /// fastest_start is finite and at most `most_start`; else the first pass
  /// (saved here) restored with its events. Also where the first pass
  /// stopped as Painleve after undoing a stick decision (most_start
  /// infinite), its failure standing if this returns false.
  bool second_pass_kept(double t, VecX& y, bool start, double most_start, int& switches);
  /// The fastest slip acceleration of an element at rest that slips, at the
  /// end of a pass; infinite where a stuck element is beyond its limit.
  double fastest_start(double t, const VecX& y);
  /// Element k at u' = 0: sticks or slips the way the load pushes.
  void decide_at_zero_rate(int k, double t, VecX& y, bool start);
  /// The frictional joints and contact tangents at a zero slip rate at t
  /// (firing, or reaching zero within the look-ahead; with `start`, those
  /// of waking_ at rest), when there are several, decided together
  /// (System::decide_friction_together). Returns the number decided (0:
  /// none or one, decided alone).
  int decide_together(double t, VecX& y, bool start);
  /// The stuck elements whose holds give way at t (firing, or reaching
  /// their limits within the look-ahead along with one that fires), let go
  /// together, each the way its hold force of the state before any of them
  /// is let go pushes it; one that another's release relieves (it would run
  /// back against its kinetic friction at once) stuck again. Returns the
  /// number let go.
  int let_go_together(double t, VecX& y);
  /// The stuck elements decided together (no ball) on one set of coupled
  /// bodies, when one of them is beyond its limit at an instant of switches
  /// that woke no element of the set (a step load at a corner of a flat
  /// box), all decided again at once through the complementarity problem of
  /// Coulomb friction (System::decide_friction_together): let go group by group,
  /// some held at zero rate by stuck partners on one row slipped against
  /// their motion (docs/theory/friction.md, "A stuck element an event's
  /// actions leave beyond its limit"). Each set is decided on its own.
  /// Returns the number that slip; a set is left stuck where none of it is
  /// beyond its limit or the problem's combination does not hold
  /// (let_go_together then lets its members go).
  int decide_overloaded_together(double t, VecX& y);
  /// decide_overloaded_together's decision of the group in together_ (the
  /// System evaluated at t with its dynamics): the number that slip.
  int decide_overloaded_group(double t, VecX& y);
  /// Stuck element k whose hold gives way at t (the System evaluated there
  /// and left so): its slip mode, against its hold force (the look-ahead's
  /// where it fired a moment later: at |lambda| = F_max exactly, or moved
  /// by the others from rest); let_go_ marks it when at its limit now.
  int release_from_hold(int k, double t, const VecX& y);
  /// Stuck element k's margin below which it is beyond its limit, and
  /// above whose negative it is well within (the System evaluated):
  /// 1e-9 (F_max + |lambda|), the round-off of its hold force.
  double hold_round_off(int k);
  /// A stuck element not waking is beyond its limit at (t, y).
  bool any_beyond_limit(double t, const VecX& y);
  /// Lets go the stuck elements beyond their limits at t, with those they
  /// give way together with (decide's rounds after the first); the others
  /// woken as waking_ marks them.
  int decide_woken(double t, VecX& y);
  /// The mode a decision of element k at this instant is logged from.
  int mode_before(int k, bool start) const;
  /// Woken element k's `rate` is the round-off of an impulse's solve.
  bool stopped(int k, double rate) const;
  /// Element k starting (decide with `start`) at `rate` is at rest.
  bool at_rest(int k, double rate) const;
  /// apply(), `start` meaning the elements marked in waking_ start. In a
  /// run with contacts and elements decided together it keeps the instant
  /// as it stood and holds back its events, for a second pass
  /// (decide_again_with_contact_splits; allocates, at decisions only).
  int decide(double t, VecX& y, bool start);
  /// Sets the modes decided at zero rate, the plastic impact of new hold
  /// rows included; a ball that starts to slip from (near) rest is held for
  /// that impact.
  void set_decided_modes(std::span<const int> elements, std::span<const int> modes, double t,
                         VecX& y);
  void log_switch(int k, double t, int before, const char* kind);
  /// Element k's function a moment after t along the motion (and, stuck,
  /// the hold force there in lambda_ahead_).
  double look_ahead(int k, double t, const VecX& y);

  std::vector<double> lambda_ahead_;  // hold force a moment after the instant
  std::vector<char> ahead_negative_;
  std::vector<char> switched_;  // in the current round
  bool settled_ = true;         // the last decide_rounds ended with none pending
  // stuck by decide_together at this instant, and whether one of those was
  // then let go at it (the dynamics' split left it beyond its cone)
  std::vector<char> stuck_together_;
  bool decision_undone_ = false;
  // What a second pass of an instant's decisions restores: the mode, the
  // state and the switching functions before the first pass, or after it
  struct PassState {
    std::shared_ptr<const System::ModeSnapshot> mode;
    VecX y;
    std::vector<double> g_last, lambda_ahead;
    bool settled = true;
    void save(const ElementSwitching& s, const VecX& state);
    void restore(ElementSwitching& s, double t, VecX& state) const;
  };
  PassState before_, first_pass_;
  std::vector<EventRecord> held_events_;  // the first pass's, until it stands
  std::vector<double> rate_now_;          // fastest_start's rates at t
  std::vector<char> enabled_before_;
  std::vector<char> waking_;        // decided as at the start of a run
  std::vector<int> noted_mode_;     // at note_enabled()
  std::vector<double> noted_rate_;  // at note_enabled()
  double noted_speed_ = 0.0;        // the largest |noted_rate_|
  bool run_start_ = true;           // decide(start) at t0, not woken
  std::vector<int> together_, together_modes_, together_before_;
  // stuck until a round of this instant let it go at its limit (its hold
  // force beyond it a moment later): decided together again, it slips
  // (must_slip)
  std::vector<char> let_go_, together_must_slip_;
  // let_go_together's: per element, let go at this round, its slip mode,
  // and its margin at t
  std::vector<char> releasing_;
  std::vector<int> release_mode_;
  std::vector<double> margin_now_;
  // set slipping at this round the way it moves (not given its direction by
  // a force at zero rate)
  std::vector<char> slips_as_it_moved_;
  // per element, the group of coupled bodies it acts on
  // (System::stick_slip_group); per group, tried by
  // decide_overloaded_together at this instant
  std::vector<int> element_group_;
  std::vector<char> group_tried_;
};

}  // namespace ictus::internal
