// A run: integrator + events + observers around a System.
//
//   Model -> System -> Simulation (time, events, switching) -> Observers
//
// The Simulation assembles the initial state, advances the integrator,
// locates zero crossings of event conditions on the dense output, applies
// their actions (switching elements on and off, stopping), and hands samples
// on a regular output grid, plus the states just before and after each
// event, to its observers.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ictus/model.h"
#include "ictus/stepper.h"
#include "ictus/system.h"

namespace ictus {

namespace internal {
class ElementSwitching;
class ContactSwitching;
class StepSizeWatch;
}  // namespace internal

/// One line of the event log.
struct EventRecord {
  double t = 0.0;
  /// "event", "switch", "impact", "structure", "warning", "stop", "failure",
  /// "interrupted";
  /// stick/slip elements: "stick", "slip", "reversal"
  std::string kind;
  std::string name;  ///< element or event name
  std::string detail;
};

/// The motion inside one smooth piece of a run (an accepted step, or its part
/// before an event), on the integrator's dense output.
class DenseMotion {
 public:
  virtual ~DenseMotion() = default;
  /// The System evaluated up to `stage` on the dense output at t, a time
  /// within the piece (the Simulation's evaluates the kinematics and leaves
  /// the dynamics to the first channel_value of a dynamics channel).
  virtual const System& at(double t, Stage stage) = 0;
};

/// Receives the results of a run. The System passed to on_sample has been
/// evaluated (accelerations and reactions included) at time t.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_start(System& /*system*/, double /*t0*/, double /*t_end*/) {}
  virtual void on_sample(double /*t*/, System& /*system*/) {}
  virtual void on_event(const EventRecord& /*record*/) {}
  /// After every accepted step [t0, t1] (progress reports; keep it cheap).
  virtual void on_step(double /*t0*/, double /*t1*/) {}
  /// After every accepted step, its smooth piece [t0, t1] (t1 is the time of
  /// an event inside the step, if one is): `motion` evaluates the System
  /// anywhere in it. `after_event`: t0 is the instant of an event, the motion
  /// starts from the state just after it; `at_event`: t1 is one, and the
  /// values at t1 are the limits from the left. Called before the samples
  /// of the piece (located extrema, Summary).
  virtual void on_piece(double /*t0*/, double /*t1*/, bool /*after_event*/, bool /*at_event*/,
                        DenseMotion& /*motion*/) {}
  /// Called once at the end; `completed` is false when the run failed or
  /// was interrupted.
  virtual void on_finish(double /*t*/, bool /*completed*/) {}
};

struct RunStatistics {
  StepperStatistics integrator;
  int events = 0;
  int impacts = 0;
  int structure_changes = 0;
  int element_switches = 0;  ///< mode changes of stick/slip elements (stick, slip, reversal)
  double end_time = 0.0;
  bool stopped_by_event = false;
  bool interrupted = false;  ///< stopped by the interrupt flag (set_interrupt_flag)
  double wall_seconds = 0.0;
};

class Simulation final {
 public:
  /// Builds the System. Throws ModelError for an invalid model.
  explicit Simulation(const Model& model);
  /// A run of a model compiled once; Simulations sharing it may run in
  /// parallel threads (each owns its System: workspace and mode).
  explicit Simulation(std::shared_ptr<const CompiledModel> compiled);
  ~Simulation();

  System& system() { return system_; }
  const Model& model() const { return system_.model(); }
  /// Observers are not owned and must outlive run().
  void add_observer(Observer& observer);
  /// Whether events() keeps every record of the log (the default). Observers
  /// receive each record either way; a long event-heavy run that streams them
  /// (EventLogWriter) passes false so that its memory stays flat.
  void keep_event_log(bool keep) { keep_log_ = keep; }
  /// The run stops after the step during which `*flag` became true (a signal
  /// handler or another thread sets it; std::atomic<bool> is lock-free, so a
  /// handler may store to it). The state at that step is sampled, the log
  /// gets an "interrupted" record, observers get on_finish(t, false), and
  /// run() returns with RunStatistics::interrupted set. nullptr: never.
  void set_interrupt_flag(const std::atomic<bool>* flag) { interrupt_ = flag; }

  /// Runs from settings().start to settings().until. Throws ModelError if the
  /// initial state cannot be assembled and SimulationError if the run fails
  /// (observers have then received on_finish(t, false)). A Simulation runs
  /// once (std::logic_error on a second call): build a new one per run.
  RunStatistics run();
  /// Advances the run to time t (at most 'until'), starting it if needed;
  /// samples on the output grid go to the observers as in run(). Returns
  /// false once the run has ended (at 'until' or stopped by an event). The
  /// stepper restarts at t, so that a run continued from save() at this
  /// point, in place or in another Simulation, gives bitwise the same result.
  /// run() afterwards finishes the run. Throws as run() does.
  bool advance_to(double t);

  /// Applies `actions` now, between advance_to() calls, as the actions of an
  /// event called `name` are applied (logged as that event): switches, then
  /// one system impact for the constraints that close and the impulses, and
  /// a stop; then the conditions, stick/slip elements and contacts they make
  /// cross act at the same instant. A controller switches an element or
  /// kicks a body this way. Starts the run first if needed (the start of
  /// the run, at settings().start). Returns false once the run has ended.
  /// Throws std::invalid_argument for an element that cannot be switched or
  /// an unknown body (nothing is applied then), std::logic_error after
  /// run() or prepare(), and as advance_to() does.
  bool apply(const std::vector<Action>& actions, const std::string& name = "caller");

  /// A copy of everything the run has changed, taken between advance_to()
  /// calls: time, state, switches and modes, event sides, the log.
  struct Checkpoint;
  std::shared_ptr<const Checkpoint> save() const;
  /// Continues, in a Simulation built from the same Model that has not
  /// started, the run `checkpoint` was saved from; then advance_to() or run().
  /// Observers get on_start and the samples after the checkpoint's time.
  /// Throws std::invalid_argument for a checkpoint of another model and
  /// std::logic_error if this Simulation has started.
  void restore(const Checkpoint& checkpoint);

  /// Only the start of a run: conditions at t0, assembly, and the switches
  /// and impacts at t0 (what `ictus check` reports). No observers are told.
  void prepare();

  /// State at the end of the run (or at the failure).
  double time() const { return t_; }
  const VecX& state() const { return y_; }
  /// The event log (empty after keep_event_log(false)).
  const std::vector<EventRecord>& events() const { return log_; }

 private:
  struct EventState;
  enum class ActionPhase { kAll, kBeforeAssembly, kAfterAssembly, kCaller };
  void record(EventRecord r);
  void sample(double t, const VecX& y);
  void emit_piece(double t0, double t1, bool at_event);
  void emit_samples_until(double t_end, bool inclusive);
  double event_function(const EventState& e, double t, const VecX& y);
  /// Applies the actions of the firing events; returns true if one is 'stop'.
  bool apply_actions(double t, VecX& y, const std::vector<const EventState*>& firing,
                     ActionPhase phase);
  /// Events whose condition decides something at the start of the run.
  std::vector<const EventState*> initial_events(double t, const VecX& y);
  bool start(bool with_observers);
  /// The event iteration at the instant t: fires the armed conditions that
  /// have crossed (round 0 first decides stick/slip elements and contacts),
  /// then those the actions made cross, until nothing changes. Returns true
  /// if an action stops the run.
  bool fire_events(double t, VecX& y);
  /// After the instant's stick/slip and contact decisions, and after every
  /// event's actions (at the start, at an instant, or a caller's apply()):
  /// opens the closed contacts that would pull a moment later
  /// (ContactSwitching::open_pulling) and decides again the elements that
  /// changes. Returns the switches.
  int open_pulling_contacts(double t, VecX& y);
  /// Records the failure of the run and tells the observers (on_finish).
  void fail(double t, const std::exception& e);
  void settle_conditions(double t, const VecX& y);
  double look_ahead(double t, const VecX& y);
  /// A fixed step too large for the model: the values grow without bound.
  /// Returns the error that says so, or nothing.
  std::optional<SimulationError> divergence(double t, const VecX& y, double growth) const;
  double side_after(const EventState& e, double t, const VecX& y, double delta);
  void log_warnings();
  /// Steps until t_ reaches `target` (<= until) or the run stops.
  void advance(double target);

  System system_;
  std::vector<Observer*> observers_;
  std::vector<EventRecord> log_;
  bool keep_log_ = true;
  const std::atomic<bool>* interrupt_ = nullptr;
  bool interrupted_ = false;
  std::unique_ptr<internal::StepSizeWatch> step_watch_;
  std::vector<EventRecord> pending_;  // switches made before the initial assembly
  std::vector<EventState> events_;
  std::unique_ptr<Stepper> stepper_;
  std::unique_ptr<internal::ElementSwitching> switching_;  // stick/slip elements
  std::unique_ptr<internal::ContactSwitching> contacts_;   // unilateral contacts
  bool event_contacts_ = false;  // switched by contacts_ (not by a time-stepping stepper)
  bool defer_log_ = false;       // switches decided before the observers started ...
  std::vector<EventRecord> deferred_switches_;  // ... are kept here until they have
  int element_switches_ = 0;
  RunStatistics stats_;           // accumulated over advance_to() calls
  bool restart_pending_ = false;  // advance_to() ended before 'until'
  double last_event_time_ = -1.0;
  int events_at_same_time_ = 0;
  int events_in_burst_ = 0;   // successive events within kBurstGap of each other
  double burst_start_ = 0.0;  // the first of them
  std::string last_switch_;   // the last switch or event logged, for the message
  double wall_seconds_ = 0.0;
  double t_ = 0.0;
  VecX y_;
  VecX work_;
  double state_scale_ = 1.0;        // largest |y| at the start, for divergence
  VecX dense_work_;                 // the state at a time on_piece's observers ask for
  bool piece_after_event_ = false;  // the next piece starts at an event
  VecX rate_;                       // y' for the look-ahead of settle_conditions
  VecX ahead_;
  bool started_ = false;
  bool finished_ = false;
  std::size_t warnings_logged_ = 0;
  long output_index_ = 0;
  int impacts_ = 0;
  double last_sample_time_ = 0.0;
};

/// Throws ModelError, at the element, when the model's integrator cannot
/// impose one of its elements: Coulomb friction in a joint under a
/// time-stepping integrator (moreau_jean), which imposes contacts and their
/// friction only. A run checks it at its start; a study before its first
/// case.
void check_integrator_imposes(const Model& model);

}  // namespace ictus
