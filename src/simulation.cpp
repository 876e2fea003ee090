#include "ictus/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "contact/contact_switching.h"
#include "element_switching.h"
#include "root_finding.h"
#include "step_size_watch.h"

namespace ictus {

struct Simulation::EventState {
  const Event* event = nullptr;
  int condition = -1;
  Stage stage = Stage::kKinematics;
  double g_last = 0.0;
  bool armed = true;
  bool rising = true;  // direction of the crossing found in the current step
};

Simulation::Simulation(const Model& model) : Simulation(CompiledModel::make(model)) {}

// A time-stepping stepper (Moreau-Jean) imposes contacts and their friction
// in its steps, not Coulomb friction in joints, whose normal force is a
// reaction: it would run them frictionless (a double pendulum with rough
// pins swung to 17 rad where the event-driven run stops at 1.7).
void check_integrator_imposes(const Model& model) {
  const IntegratorSettings& in = model.settings().integrator;
  if (!stepper_handles_contacts(in.name)) return;
  for (const Joint& joint : model.joints())
    if (joint.friction.present)
      throw ModelError(joint.friction.where.known() ? joint.friction.where : joint.where,
                       fmt::format("joint '{}'", joint.name),
                       fmt::format("has Coulomb friction ('friction'), which integrator '{}' "
                                   "does not impose (it imposes contacts and their friction); "
                                   "use an event-driven integrator (dopri5, rkf45, rk4, cvode, "
                                   "ida, or a structural one)",
                                   in.name));
}

Simulation::Simulation(std::shared_ptr<const CompiledModel> compiled)
    : system_(std::move(compiled)) {
  check_implied_steps(system_.model().settings());
  for (const Event& e : system_.model().events()) {
    EventState state;
    state.event = &e;
    state.condition = system_.add_condition(e.condition, fmt::format("event '{}'", e.name));
    state.stage = system_.condition_stage(state.condition);
    events_.push_back(state);
  }
  auto log = [this](EventRecord r) {
    if (defer_log_) {
      deferred_switches_.push_back(std::move(r));
    } else {
      record(std::move(r));
    }
  };
  switching_ = std::make_unique<internal::ElementSwitching>(system_, log);
  contacts_ = std::make_unique<internal::ContactSwitching>(system_, log);
  // a time-stepping stepper imposes the contacts inside its steps
  event_contacts_ =
      !contacts_->empty() && !stepper_handles_contacts(system_.model().settings().integrator.name);
  if (!contacts_->empty() && !event_contacts_) system_.hand_contact_friction_to_stepper();
}

Simulation::~Simulation() = default;

void Simulation::add_observer(Observer& observer) {
  observers_.push_back(&observer);
}

namespace {
// Successive events closer than this form a burst (1e-9 s, or 1e4 times
// the round-off of t where that is larger: a run that starts at 1e6 s
// resolves 2e-10 s); more than kBurstEvents of them stop the run as
// chattering.
double burst_gap(double t) {
  return std::max(1e-9, 1e4 * std::numeric_limits<double>::epsilon() * std::abs(t));
}
constexpr int kBurstEvents = 10000;
}  // namespace

void Simulation::record(EventRecord r) {
  if (r.kind != "warning" && !r.name.empty()) last_switch_ = fmt::format("{} {}", r.kind, r.name);
  for (Observer* o : observers_) o->on_event(r);
  if (keep_log_) log_.push_back(std::move(r));
}

void Simulation::sample(double t, const VecX& y) {
  last_sample_time_ = t;
  system_.evaluate(t, y, Stage::kDynamics);
  for (Observer* o : observers_) o->on_sample(t, system_);
}

// Samples of the regular output grid up to t_end from the dense output of the
// last step. At an event (inclusive = false) grid points closer to t_end than
// the slack are skipped: the samples taken just before and after the event
// stand for them, and times in results.csv never go backwards.
namespace {

// The System on the dense output of the stepper's last step (on_piece).
class StepperMotion final : public DenseMotion {
 public:
  StepperMotion(const Stepper& stepper, System& system, VecX& state)
      : stepper_(stepper), system_(system), state_(state) {}
  // the kinematics only: the System is const to the observer, whose reads
  // of dynamics channels (channel_value) bring the solve on demand, and
  // system.violation only the rows (a run's summary locates the extrema of
  // its outputs at two such states per step)
  const System& at(double t, Stage /*stage*/) override {
    stepper_.interpolate(t, state_);
    system_.evaluate(t, state_, Stage::kKinematics);
    return system_;
  }

 private:
  const Stepper& stepper_;
  System& system_;
  VecX& state_;
};

// Evaluations on the dense output between the stepper's states: what they
// decide about the rank of the constraints is undone after them
// (System::begin_probe).
class ProbeScope {
 public:
  explicit ProbeScope(System& system) : system_(system) { system_.begin_probe(); }
  ~ProbeScope() { system_.end_probe(); }
  ProbeScope(const ProbeScope&) = delete;
  ProbeScope& operator=(const ProbeScope&) = delete;

 private:
  System& system_;
};

}  // namespace

void Simulation::emit_piece(double t0, double t1, bool at_event) {
  StepperMotion motion(*stepper_, system_, dense_work_);
  for (Observer* o : observers_) o->on_piece(t0, t1, piece_after_event_, at_event, motion);
  piece_after_event_ = at_event;
}

void Simulation::emit_samples_until(double t_end, bool inclusive) {
  const SimulationSettings& s = system_.model().settings();
  const double slack = 1e-9 * s.output_step;
  for (;;) {
    const double tk = s.start + static_cast<double>(output_index_) * s.output_step;
    if (tk > s.until + slack || tk > t_end + slack) return;
    if (!inclusive && tk >= t_end - slack) {
      ++output_index_;
      continue;
    }
    const double at = std::min(tk, t_end);
    stepper_->interpolate(at, work_);
    sample(at, work_);
    ++output_index_;
  }
}

double Simulation::event_function(const EventState& e, double t, const VecX& y) {
  system_.evaluate(t, y, e.stage);
  return system_.condition_value(e.condition);
}

std::vector<const Simulation::EventState*> Simulation::initial_events(double t, const VecX& y) {
  // conditions on the state as written; at t0 '>=' and '>' differ at equality
  std::vector<const EventState*> firing;
  for (EventState& e : events_) {
    system_.evaluate(t, y, e.stage);
    e.rising = system_.condition_holds(e.condition);
    const bool log_only = e.event->on_true.empty() && e.event->on_false.empty();
    if ((e.rising && (!e.event->on_true.empty() || log_only)) ||
        (!e.rising && !e.event->on_false.empty()))
      firing.push_back(&e);
  }
  return firing;
}

bool Simulation::apply_actions(double t, VecX& y, const std::vector<const EventState*>& firing,
                               ActionPhase phase) {
  // before the initial assembly only what removes constraints or touches
  // forces is applied; constraints that close are impacts, even at t0
  // (after the assembly everything decided on the assembled state applies;
  // what was applied before is then already in place and changes nothing)
  auto applies_now = [&](const Action& a) {
    if (phase != ActionPhase::kBeforeAssembly) return true;
    return a.kind == Action::Kind::kDisable ||
           (a.kind == Action::Kind::kEnable && !system_.switch_is_structural(a.target));
  };
  const bool logging = phase != ActionPhase::kBeforeAssembly;
  double energy_before = 0.0;
  int dof_before = 0;
  if (logging) {
    system_.evaluate(t, y, Stage::kKinematics);
    energy_before = system_.channel_value(system_.find_channel("energy.total"));
    dof_before = system_.structure_report(t, y).dof;
  }
  bool stop = false;
  bool structural = false;
  std::vector<ExternalImpulse> external;
  for (const EventState* e : firing) {
    const Event& ev = *e->event;
    const auto& actions = e->rising ? ev.on_true : ev.on_false;
    if (logging) {
      record({t, "event", ev.name,
              phase == ActionPhase::kCaller
                  ? std::string("applied by the caller between advance_to() calls")
                  : fmt::format("'{}' {}", ev.condition.expression.text,
                                phase == ActionPhase::kAfterAssembly
                                    ? (e->rising ? "holds at the start" : "is false at the start")
                                    : (e->rising ? "became true" : "became false"))});
    }
    for (const Action& a : actions) {
      if (a.kind == Action::Kind::kStop) {
        stop = stop || phase != ActionPhase::kBeforeAssembly;
        continue;
      }
      if (a.kind == Action::Kind::kImpulse) {
        if (phase != ActionPhase::kBeforeAssembly)
          external.push_back({system_.model().body_index(a.target), a.linear_impulse,
                              a.angular_impulse, a.point_B});
        continue;
      }
      if (!applies_now(a)) continue;
      const bool on = a.kind == Action::Kind::kEnable;
      const bool was = system_.enabled(a.target);
      if (system_.set_enabled(a.target, on)) structural = true;
      if (was != on) {
        const EventRecord r{t, "switch", a.target, on ? "switched on" : "switched off"};
        if (logging) {
          record(r);
        } else {
          pending_.push_back(r);  // logged once the run has started
        }
      }
    }
    if (ev.once && e->rising && phase != ActionPhase::kBeforeAssembly)
      const_cast<EventState*>(e)->armed = false;
  }
  if (!logging) return false;
  for (EventRecord& r : pending_) record(std::move(r));
  pending_.clear();
  // constraints that close while velocities violate them, and external
  // impulses: system impact (seed 000 eqs. 3-5)
  const bool impulsive =
      system_.model().settings().closure == SimulationSettings::Closure::kImpulse;
  // (constraints that only open leave the velocities consistent: no impact)
  const bool closing = structural && system_.constraints_closing();
  // the closed contacts are unilateral and their friction bounded: the
  // impulse is applied with them open (their stuck tangents let go), then
  // they are closed again, the tangents stuck again (held where they are),
  // and decided as an impact of their own (after_impulse below), which
  // bounds the tangents' impulses by mu_s P and lets go those it sets slipping
  std::vector<int> reopened, stuck;
  if ((closing || !external.empty()) && event_contacts_) {
    for (int k = 0; k < system_.stick_slip_count(); ++k)
      if (system_.stick_slip_enabled(k) && system_.stick_slip_element(k).mode() == kStick)
        stuck.push_back(k);
    for (int k = 0; k < system_.contact_side_count(); ++k)
      if (system_.set_contact_closed(k, false)) reopened.push_back(k);
  }
  const ImpulseResult impact = closing || !external.empty()
                                   ? system_.apply_impact(t, y, external, impulsive)
                                   : ImpulseResult{};
  for (const int k : reopened) system_.set_contact_closed(k, true);
  if (!stuck.empty()) system_.evaluate(t, y, Stage::kKinematics);
  // (not a stuck joint the impact itself set slipping)
  for (const int k : stuck)
    if (system_.stick_slip_element(k).mode() != kStick &&
        std::none_of(impact.let_go.begin(), impact.let_go.end(),
                     [k](const std::pair<int, int>& g) { return g.first == k; }))
      system_.set_stick_slip_mode(k, kStick);
  if (!impact.impulses.empty() || !external.empty()) {
    std::string list;
    for (std::size_t k = 0; k < impact.impulses.size(); ++k)
      list +=
          fmt::format("{}{}={:.9g}", k == 0 ? "" : ", ", impact.row_names[k], impact.impulses[k]);
    std::string detail = fmt::format(
        "kinetic energy {:.12g} -> {:.12g} J (lost in the constraints {:.6g} J); condition "
        "estimate of S {:.3g}",
        impact.kinetic_before, impact.kinetic_after, impact.constraint_loss,
        impact.condition_estimate);
    if (!external.empty())
      detail += fmt::format("; {} external impulse(s) brought {:.6g} J", external.size(),
                            impact.external_work);
    if (!list.empty()) detail += "; impulses: " + list;
    if (!impact.non_unique.empty()) {
      std::string joints;
      for (const std::string& j : impact.non_unique) joints += (joints.empty() ? "" : ", ") + j;
      detail += "; dependent rows eliminated: the velocities are unique, the impulses of " +
                joints + " are not";
    }
    record({t, "impact", "", detail});
    ++impacts_;
  }
  for (const std::string& r : impact.released)
    record({t, "switch", r, "released after the impact (restitution > 0: the bodies part)"});
  if (!impact.released.empty()) structural = true;
  if (structural) {
    const StructureReport rep = system_.structure_report(t, y);
    record(
        {t, "structure", "",
         fmt::format("degrees of freedom {} -> {}; {} constraint rows ({} independent); "
                     "condition estimate {:.3g}",
                     dof_before, rep.dof, rep.rows, rep.independent_rows, rep.condition_estimate)});
  }
  // the energy audit stays closed: the impact booked its own work and loss;
  // the potential energy of elements switched off counts as dissipated
  system_.evaluate(t, y, Stage::kKinematics);
  const double energy_after = system_.channel_value(system_.find_channel("energy.total"));
  const double impact_change =
      impact.kinetic_after - impact.kinetic_before;  // = external work - loss
  system_.add_switching_energy(y, energy_before - energy_after + impact_change);
  // (the contacts' impact books its own loss)
  if (!reopened.empty()) element_switches_ += contacts_->after_impulse(t, y);
  return stop;
}

// A moment after the instant t along the tangent of the motion: y + delta y'
// (ahead_), where settle_conditions and the event iteration read the
// direction in which each condition moves.
double Simulation::look_ahead(double t, const VecX& y) {
  const double delta = 1e-9 * std::max(1.0, std::abs(t));
  system_.derivative(t, y, rate_);
  ahead_ = y + delta * rate_;
  return delta;
}

// The side condition e takes just after t (look_ahead done at t, y): its
// value, unless that is a root up to round-off, then the sign of its rate
// (root_finding.h, side_just_after). A pendulum's rate keeps rising, a
// rebounding body leaves the wall, a ball set moving by an impact leaves the
// contact it touched at zero gap; a second root a moment later is not
// stepped over (issue 9, defect 3).
double Simulation::side_after(const EventState& e, double t, const VecX& y, double delta) {
  const double now = event_function(e, t, y);
  const double next = event_function(e, t + delta, ahead_);
  return internal::side_just_after(now, next - now);
}

// The sign each condition has just after the instant t (state y).
void Simulation::settle_conditions(double t, const VecX& y) {
  const double delta = look_ahead(t, y);
  for (EventState& e : events_)
    if (e.armed) e.g_last = side_after(e, t, y, delta);
}

// A fixed step beyond the stability limit of the method for this model makes
// the state grow geometrically until something overflows, which then shows
// as a failed formula or a "singular" constraint set: say what happened
// instead (issue 13 defect 6). Adaptive methods control their step and are
// not judged. `growth` is the factor over the state's size at the start above
// which the values count as grown without bound.
std::optional<SimulationError> Simulation::divergence(double t, const VecX& y,
                                                      double growth) const {
  const SimulationSettings& s = system_.model().settings();
  const auto& keys = stepper_option_keys(s.integrator.name);
  if (std::find(keys.begin(), keys.end(), "step") == keys.end()) return std::nullopt;
  const double size = y.allFinite() ? y.cwiseAbs().maxCoeff() : HUGE_VAL;
  if (!(size > growth * state_scale_)) return std::nullopt;
  return SimulationError(
      t, fmt::format("the fixed step {} s is too large for this model: the values grew without "
                     "bound (largest |state| {:.3g}, {:.3g} at the start); use a smaller "
                     "'step' or an adaptive method (dopri5, cvode)",
                     s.integrator.step, size, state_scale_));
}

// Start of a run: conditions, assembly, and what happens at t0.
bool Simulation::start(bool with_observers) {
  if (started_)
    throw std::logic_error(
        "a Simulation runs once: its switches, captured joints and events keep their state; "
        "build a new Simulation (from the same Model) for another run");
  started_ = true;
  const SimulationSettings& s = system_.model().settings();
  t_ = s.start;
  impacts_ = 0;
  y_ = system_.initial_state();
  work_ = y_;
  dense_work_ = y_;
  rate_ = y_;
  ahead_ = y_;
  pending_.clear();
  log_warnings();
  // what removes constraints (or switches forces) is decided on the state as
  // written, before the assembly; everything else on the assembled state
  apply_actions(t_, y_, initial_events(t_, y_), ActionPhase::kBeforeAssembly);
  system_.assemble(t_, y_);
  state_scale_ = std::max(1.0, y_.cwiseAbs().maxCoeff());
  system_.set_energy_reference(t_, y_);
  log_warnings();
  // stick/slip elements and contacts: modes decided on the assembled state
  // (logged once the observers have started)
  defer_log_ = true;
  element_switches_ = 0;
  // unilateral contacts first: which touch, closed or hitting, on the
  // assembled state (a contact's friction takes its normal force)
  if (event_contacts_) element_switches_ += contacts_->apply(t_, y_, true);
  if (!switching_->empty()) element_switches_ += switching_->apply(t_, y_, true);
  if (event_contacts_) element_switches_ += open_pulling_contacts(t_, y_);
  if (!switching_->empty()) switching_->report_beyond_limits(t_, y_);
  defer_log_ = false;

  // a run's start only: a prepared state (ictus static, modes) is fine
  if (with_observers) check_integrator_imposes(system_.model());
  stepper_ = make_stepper(s.integrator.name, system_, s.integrator);
  stepper_->reset(t_, y_);  // sizes its work vectors: later resets do not allocate
  step_watch_ = std::make_unique<internal::StepSizeWatch>(t_, s.until, implied_steps(s));
  if (with_observers)
    for (Observer* o : observers_) o->on_start(system_, s.start, s.until);
  // the modes decided at t0, logged before the first sample, with what
  // their decisions warned about (at t0, not at the first step)
  for (EventRecord& r : deferred_switches_) record(std::move(r));
  deferred_switches_.clear();
  log_warnings();
  if (with_observers) sample(t_, y_);
  bool stop = false;
  const std::vector<const EventState*> initial = initial_events(t_, y_);
  if (!initial.empty()) {
    if (!switching_->empty()) switching_->note_enabled(t_, y_);
    stop = apply_actions(t_, y_, initial, ActionPhase::kAfterAssembly);
    // as after an event: an impulse may have let a stuck element go
    if (!switching_->empty()) element_switches_ += switching_->wake(t_, y_);
    if (event_contacts_) element_switches_ += open_pulling_contacts(t_, y_);
    system_.accept(t_, y_);
    log_warnings();
    if (with_observers) sample(t_, y_);  // after what happened at the start
    if (stop) record({t_, "stop", "", "stopped by an event"});
  }
  // switches decided on the state as written are logged even if the
  // assembled state no longer fires their event
  for (EventRecord& r : pending_) record(std::move(r));
  pending_.clear();
  // what was decided at t0 is the starting side of every condition: one that
  // does not hold yet but does a moment later crosses right after t0
  for (EventState& e : events_) {
    const double g = event_function(e, t_, y_);
    e.g_last = e.rising ? std::max(g, 0.0) + 1e-300 : std::min(g, 0.0);
  }
  if (event_contacts_) contacts_->settle(t_, y_);
  return stop;
}

void Simulation::prepare() {
  (void)start(false);
  finished_ = true;  // a prepared Simulation does not run
}

struct Simulation::Checkpoint {
  double t = 0.0;
  VecX y;
  std::shared_ptr<const System::ModeSnapshot> mode;
  std::vector<double> g_last;
  std::vector<char> armed, rising;
  std::vector<double> element_sides;
  std::vector<double> contact_sides;
  int contact_impacts = 0;
  std::vector<EventRecord> log;
  RunStatistics stats;
  long output_index = 0;
  int impacts = 0;
  int element_switches = 0;
  double last_sample_time = 0.0;
  double last_event_time = -1.0;
  int events_at_same_time = 0;
  int events_in_burst = 0;
  double burst_start = 0.0;
  std::string last_switch;
  std::size_t warnings_logged = 0;
  double stepper_memory = 0.0;
};

std::shared_ptr<const Simulation::Checkpoint> Simulation::save() const {
  if (!started_ || finished_)
    throw std::logic_error("save: the run has not started (advance_to() first) or has ended");
  auto c = std::make_shared<Checkpoint>();
  c->t = t_;
  c->y = y_;
  c->mode = system_.save_mode();
  for (const EventState& e : events_) {
    c->g_last.push_back(e.g_last);
    c->armed.push_back(e.armed ? 1 : 0);
    c->rising.push_back(e.rising ? 1 : 0);
  }
  c->element_sides = switching_->sides();
  c->contact_sides = contacts_->saved();
  c->contact_impacts = contacts_->impacts();
  c->log = log_;
  c->stats = stats_;
  c->output_index = output_index_;
  c->impacts = impacts_;
  c->element_switches = element_switches_;
  c->last_sample_time = last_sample_time_;
  c->last_event_time = last_event_time_;
  c->events_at_same_time = events_at_same_time_;
  c->events_in_burst = events_in_burst_;
  c->burst_start = burst_start_;
  c->last_switch = last_switch_;
  c->warnings_logged = warnings_logged_;
  c->stepper_memory = stepper_->restart_memory();
  return c;
}

void Simulation::restore(const Checkpoint& c) {
  if (started_)
    throw std::logic_error("restore: this Simulation has started; build a new one to restore into");
  if (c.y.size() != system_.state_size() || c.g_last.size() != events_.size())
    throw std::invalid_argument("restore: the checkpoint was saved from a run of another model");
  system_.restore_mode(*c.mode, c.t, c.y);
  started_ = true;
  t_ = c.t;
  y_ = c.y;
  state_scale_ = std::max(1.0, y_.cwiseAbs().maxCoeff());
  work_ = y_;
  dense_work_ = y_;
  rate_ = y_;
  ahead_ = y_;
  for (std::size_t k = 0; k < events_.size(); ++k) {
    events_[k].g_last = c.g_last[k];
    events_[k].armed = c.armed[k] != 0;
    events_[k].rising = c.rising[k] != 0;
  }
  switching_->set_sides(c.element_sides);
  contacts_->restore(c.contact_sides, c.contact_impacts);
  log_ = c.log;
  stats_ = c.stats;
  output_index_ = c.output_index;
  impacts_ = c.impacts;
  element_switches_ = c.element_switches;
  last_sample_time_ = c.last_sample_time;
  last_event_time_ = c.last_event_time;
  events_at_same_time_ = c.events_at_same_time;
  events_in_burst_ = c.events_in_burst;
  burst_start_ = c.burst_start;
  last_switch_ = c.last_switch;
  warnings_logged_ = c.warnings_logged;
  const SimulationSettings& s = system_.model().settings();
  stepper_ = make_stepper(s.integrator.name, system_, s.integrator);
  stepper_->reset(t_, y_);  // sizes the work vectors
  stepper_->set_restart_memory(c.stepper_memory);
  step_watch_ = std::make_unique<internal::StepSizeWatch>(t_, s.until, implied_steps(s));
  restart_pending_ = true;  // the next advance restarts here, as the saved run does
  for (Observer* o : observers_) o->on_start(system_, s.start, s.until);
}

// The event iteration at the instant t (see the header).
bool Simulation::fire_events(double t, VecX& y) {
  // every condition that has crossed by t fires now; then those
  // that the actions themselves made cross (an impulse, a release), at
  // the same instant, until nothing changes
  bool stop = false;
  for (int round = 0; round < 100 && !stop; ++round) {
    // stick/slip elements first: their switches change the forces; then
    // one still stuck beyond its limit (past any crossing located: an
    // accepted state's change of rank) lets go as after an event's actions
    if (round == 0 && !switching_->empty()) {
      element_switches_ += switching_->apply(t, y, false);
      element_switches_ += switching_->let_go_overloaded(t, y);
    }
    // then contacts: impacts, persistent contact, lift-off
    if (round == 0 && event_contacts_) {
      if (!switching_->empty()) switching_->note_enabled(t, y);
      const int contact_switches = contacts_->apply(t, y, false);
      element_switches_ += contact_switches;
      // the tangents of the contacts that closed start to act, and an
      // impulse may have turned a slip round
      if (contact_switches > 0 && !switching_->empty()) element_switches_ += switching_->wake(t, y);
      element_switches_ += open_pulling_contacts(t, y);
    }
    // after actions the side is judged a moment later: a condition that
    // they leave at exactly zero (a gap closed at rest that an impulse
    // starts to close) crosses now if its rate takes it across
    const double delta = round > 0 ? look_ahead(t, y) : 0.0;
    std::vector<const EventState*> firing;
    for (EventState& e : events_) {
      if (!e.armed) continue;
      const double g = round > 0 ? side_after(e, t, y, delta) : event_function(e, t, y);
      const bool rising = e.g_last <= 0.0 && g > 0.0;
      const bool falling = e.g_last > 0.0 && g <= 0.0 && !e.event->on_false.empty();
      if (rising || falling) {
        e.rising = rising;
        firing.push_back(&e);
      }
    }
    if (firing.empty()) break;
    if (!switching_->empty()) switching_->note_enabled(t, y);
    stop = apply_actions(t, y, firing, ActionPhase::kAll);
    // an element switched on starts as at t0; an impulse may have turned a slip round
    if (!switching_->empty()) element_switches_ += switching_->wake(t, y);
    // a load the actions switch off may leave a closed contact pulling
    if (event_contacts_) element_switches_ += open_pulling_contacts(t, y);
    stats_.events += static_cast<int>(firing.size());
    // the fired conditions now hold (do not hold); the others keep
    // their value before the actions, so that a jump is seen as a crossing
    for (const EventState* e : firing) {
      auto* fired = const_cast<EventState*>(e);
      fired->g_last = fired->rising ? 1.0 : -1.0;
    }
  }
  return stop;
}

int Simulation::open_pulling_contacts(double t, VecX& y) {
  int switches = 0;
  // each opening takes a contact's tangents off; what their friction held
  // may in turn unload another side (bounded: a side opens at most once)
  for (int round = 0; round <= system_.contact_side_count(); ++round) {
    if (!switching_->empty()) switching_->note_enabled(t, y);
    const int opened = contacts_->open_pulling(t, y);
    if (opened == 0) break;
    switches += opened;
    if (!switching_->empty()) switches += switching_->wake(t, y);
  }
  return switches;
}

void Simulation::log_warnings() {
  const auto& w = system_.warnings();
  for (; warnings_logged_ < w.size(); ++warnings_logged_)
    record({t_, "warning", "", w[warnings_logged_]});
}

void Simulation::advance(double target) {
  const auto wall_start = std::chrono::steady_clock::now();
  const SimulationSettings& s = system_.model().settings();
  // a run ends at 'until', or within the steppers' own slack of it
  const double end_slack = 1e-12 * std::max(1.0, std::abs(s.until));
  // The instant t_event (a located crossing, or an accepted state where a
  // stuck element is beyond its limit) with the state y_event there: the
  // events fired, the state accepted and sampled after it (and before it
  // where `accepted` is false). At an accepted state the elements slipping
  // against their slips are turned round first, from the state as the step
  // left it (not after this instant's decisions: an element just let go
  // moves at its hold's round-off, either way). False where the run ends
  // there.
  auto fire_at = [&](double t_event, VecX& y_event, bool accepted) {
    if (std::abs(t_event - last_event_time_) <= 1e-12 * std::max(1.0, std::abs(t_event))) {
      if (++events_at_same_time_ > 1000)
        throw SimulationError(t_event,
                              "events keep firing at the same instant (chattering "
                              "between switching conditions)");
    } else {
      events_at_same_time_ = 0;
    }
    // Zeno-like chattering: events that follow each other at the
    // round-off of the root finding without end (a stick let go at once
    // and stuck again 1e-11 s later, for ever) advance time by nothing
    // a run could finish in; no mechanism switches that often for long
    if (t_event - last_event_time_ <= burst_gap(t_event)) {
      if (events_in_burst_++ == 0) burst_start_ = last_event_time_;
      if (events_in_burst_ > kBurstEvents)
        throw SimulationError(
            t_event, fmt::format("{} events within {:.3g} s, each less than {:.0e} s after "
                                 "the one before (chattering between switching conditions; "
                                 "the last: {}): the switching does not settle",
                                 events_in_burst_, t_event - burst_start_, burst_gap(t_event),
                                 last_switch_));
    } else {
      events_in_burst_ = 0;
    }
    last_event_time_ = t_event;
    if (!accepted) sample(t_event, y_event);  // just before the event
    if (accepted && !switching_->empty())
      element_switches_ += switching_->turn_against_slips(t_event, y_event);
    const bool stop = fire_events(t_event, y_event);
    if (!switching_->empty()) switching_->report_beyond_limits(t_event, y_event);
    t_ = t_event;
    y_ = y_event;
    if (system_.accept(t_, y_)) stepper_->reset(t_, y_);
    log_warnings();
    sample(t_, y_);  // just after
    if (stop) {
      record({t_, "stop", "", "stopped by an event"});
      stats_.stopped_by_event = true;
      return false;
    }
    if (t_ >= s.until - end_slack) return false;  // the event was the end
    stepper_->reset(t_, y_);
    settle_conditions(t_, y_);
    switching_->settle(t_, y_);
    if (event_contacts_) contacts_->settle(t_, y_);
    return true;
  };
  try {
    if (!started_) {
      output_index_ = 1;
      stats_.stopped_by_event = start(true);
      stepper_->reset(t_, y_);
    } else if (restart_pending_) {
      stepper_->reset(t_, y_);
    }
    restart_pending_ = false;
    while (t_ < target - end_slack && !stats_.stopped_by_event) {
      if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed)) {
        interrupted_ = true;
        break;
      }
      try {
        stepper_->step(target);
      } catch (const SimulationError&) {
        // the last accepted state far above its size at the start: divergence
        if (auto diverged = divergence(t_, y_, 1e3)) throw *diverged;
        throw;
      }
      const double t1 = stepper_->t();
      const double t0 = stepper_->t_previous();
      if (auto diverged = divergence(t1, stepper_->y(), 1e8)) throw *diverged;
      if (!stepper_->y().allFinite())
        throw SimulationError(t1, "the state became non-finite (NaN or inf)");
      system_.set_step_size(t1 - t0);  // channel integrator.step
      for (Observer* o : observers_) o->on_step(t0, t1);
      if (step_watch_->accept(t1)) record({t1, "warning", "", step_watch_->message()});

      // earliest zero crossing of an armed event condition in (t0, t1]
      double t_event = t1 + 1.0;
      std::optional<ProbeScope> probe(std::in_place, system_);
      for (EventState& e : events_) {
        if (!e.armed) continue;
        const double g1 = event_function(e, t1, stepper_->y());
        const bool rising = e.g_last <= 0.0 && g1 > 0.0;
        const bool falling = e.g_last > 0.0 && g1 <= 0.0 && !e.event->on_false.empty();
        if (!rising && !falling) continue;
        // on the dense output, the crossing kept bracketed (root_finding.h)
        const double tolerance = 1e-14 * std::max(1.0, std::abs(t1));
        const double b = internal::locate_crossing(
            t0, t1, rising ? e.g_last : -e.g_last, rising ? g1 : -g1, tolerance,
            [&](double c) {
              stepper_->interpolate(c, work_);
              const double gc = event_function(e, c, work_);
              return rising ? gc : -gc;
            },
            [](double f) { return f > 0.0; });
        t_event = std::min(t_event, b);
      }
      // ... and of a stick/slip element's switching function
      if (!switching_->empty())
        t_event = std::min(
            t_event, switching_->locate(
                         t0, t1, stepper_->y(),
                         [this](double t, VecX& out) { stepper_->interpolate(t, out); }, work_));
      // ... and of a contact's gap or normal force (contact/contact_switching.h)
      if (event_contacts_)
        t_event = std::min(
            t_event, contacts_->locate(
                         t0, t1, stepper_->y(),
                         [this](double t, VecX& out) { stepper_->interpolate(t, out); }, work_));

      if (t_event <= t1) {
        emit_piece(t0, t_event, true);
        emit_samples_until(t_event, false);
        probe.reset();
        stepper_->interpolate(t_event, work_);
        VecX y_event = work_;
        if (!fire_at(t_event, y_event, false)) break;
        continue;
      }

      emit_piece(t0, t1, false);
      emit_samples_until(t1, true);
      probe.reset();
      y_ = stepper_->y();
      if (s.stabilisation.projection &&
          system_.project(t1, y_, s.stabilisation.projection_tolerance))
        stepper_->continue_corrected(t1, y_);
      t_ = t1;
      if (system_.accept(t_, y_)) stepper_->reset(t_, y_);
      log_warnings();  // also those of an accepted step that changed nothing
      // A stuck element beyond its limit at the accepted state (the state's
      // change of rank, System::accept: a dependent hold, its force zero,
      // kept again as its rows part, takes the rigid model's force there),
      // or a slipping one moving against its slip (its slip's end left
      // unlocated by the instant before): past any crossing the step could
      // locate. The instant is an event's (fire_events lets the one go and
      // turns the other round), without a sample before it: the state
      // before is the step's, the force the new rank's.
      if (!switching_->empty() &&
          (switching_->beyond_limit(t_, y_) || switching_->slipping_against(t_, y_))) {
        VecX y_event = y_;
        if (!fire_at(t_, y_event, true)) break;
        continue;
      }
      for (EventState& e : events_) e.g_last = event_function(e, t_, y_);
      switching_->remember(t_, y_);
      if (event_contacts_) contacts_->remember(t_, y_);
    }
    if (interrupted_) {
      // the incomplete results end where the run stopped
      if (t_ > last_sample_time_) sample(t_, y_);
    } else if (target >= s.until - end_slack) {
      if (!stats_.stopped_by_event && t_ > last_sample_time_ + 1e-9 * s.output_step) sample(t_, y_);
    } else {
      restart_pending_ = true;
    }
  } catch (const SimulationError& e) {
    fail(e.time(), e);
    throw;
  } catch (const std::exception& e) {
    // anything else (an observer's I/O, an internal error): results stay incomplete
    fail(t_, e);
    throw;
  }
  wall_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
}

void Simulation::fail(double t, const std::exception& e) {
  // a passage through a singular configuration that was still under way
  system_.flush_warnings();
  log_warnings();
  record({t, "failure", "", e.what()});
  for (Observer* o : observers_) o->on_finish(t, false);
}

bool Simulation::apply(const std::vector<Action>& actions, const std::string& name) {
  if (finished_) throw std::logic_error("apply: the run has ended (run() or prepare() was called)");
  // checked before anything changes
  const std::vector<std::string> switchable = system_.switchable_elements();
  for (const Action& a : actions) {
    if (a.kind == Action::Kind::kImpulse) {
      if (a.target == "ground" ||
          std::none_of(system_.model().bodies().begin(), system_.model().bodies().end(),
                       [&](const Body& b) { return b.name == a.target; }))
        throw std::invalid_argument(
            fmt::format("apply: an impulse needs a body of the model, got '{}'", a.target));
    } else if (a.kind != Action::Kind::kStop &&
               std::find(switchable.begin(), switchable.end(), a.target) == switchable.end()) {
      throw std::invalid_argument(fmt::format(
          "apply: '{}' is not an element that can be switched (a force, driver, joint or joint "
          "member)",
          a.target));
    }
  }
  const SimulationSettings& s = system_.model().settings();
  const double end_slack = 1e-12 * std::max(1.0, std::abs(s.until));
  if (!started_) advance(s.start);  // the start of the run
  if (stats_.stopped_by_event || interrupted_) return false;
  Event event;
  event.name = name;
  event.on_true = actions;
  EventState state;
  state.event = &event;
  state.rising = true;
  try {
    if (t_ > last_sample_time_) sample(t_, y_);  // just before
    if (!switching_->empty()) switching_->note_enabled(t_, y_);
    bool stop = apply_actions(t_, y_, {&state}, ActionPhase::kCaller);
    if (!switching_->empty()) element_switches_ += switching_->wake(t_, y_);
    if (event_contacts_) element_switches_ += open_pulling_contacts(t_, y_);
    // what the actions make cross acts at the same instant, as after an event
    if (!stop) stop = fire_events(t_, y_);
    system_.accept(t_, y_);
    log_warnings();
    sample(t_, y_);  // just after
    if (stop) {
      record({t_, "stop", "", "stopped by an event"});
      stats_.stopped_by_event = true;
      return false;
    }
    settle_conditions(t_, y_);
    switching_->settle(t_, y_);
    if (event_contacts_) contacts_->settle(t_, y_);
  } catch (const SimulationError& e) {
    fail(e.time(), e);
    throw;
  } catch (const std::exception& e) {
    fail(t_, e);
    throw;
  }
  restart_pending_ = true;  // the stepper starts again from the changed state
  return t_ < s.until - end_slack;
}

bool Simulation::advance_to(double t) {
  if (finished_)
    throw std::logic_error("advance_to: the run has ended (run() or prepare() was called)");
  const SimulationSettings& s = system_.model().settings();
  const double end_slack = 1e-12 * std::max(1.0, std::abs(s.until));
  if (!(t <= s.until)) t = s.until;  // NaN too
  if (!started_ || t > t_) advance(t);
  return !stats_.stopped_by_event && !interrupted_ && t_ < s.until - end_slack;
}

RunStatistics Simulation::run() {
  if (finished_)
    throw std::logic_error(
        "a Simulation runs once: its switches, captured joints and events keep their state; "
        "build a new Simulation (from the same Model) for another run");
  if (!interrupted_) advance(system_.model().settings().until);
  finished_ = true;
  system_.flush_warnings();  // a singular passage under way at the end
  log_warnings();
  if (interrupted_) record({t_, "interrupted", "", "the run was interrupted"});
  RunStatistics stats = stats_;
  stats.integrator = stepper_->statistics();
  stats.impacts = impacts_ + contacts_->impacts();
  stats.structure_changes = system_.structure_version() - 1;
  stats.element_switches = element_switches_;
  stats.end_time = t_;
  stats.wall_seconds = wall_seconds_;
  stats.interrupted = interrupted_;
  // each warning was logged once; how often it came back is said at the end
  for (const auto& [text, repeats] : system_.repeated_warnings())
    record(
        {t_, "warning", "", fmt::format("raised {} more time(s) in this run: {}", repeats, text)});
  for (Observer* o : observers_) o->on_finish(t_, !interrupted_);
  return stats;
}

}  // namespace ictus
