// Runs from Python: a Simulation with a Recorder of chosen channels, driven
// to the end (run) or step by step (advance_to, apply, save, restore). The
// GIL is released while the engine integrates: Simulations in different
// Python threads run in parallel (each its own System; a CompiledModel is
// shared, include/ictus/compiled_model.h).
#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <type_traits>
#include <variant>

#include "bindings.h"
#include "ictus/compiled_model.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "ictus/spectrum_summary.h"

namespace py = pybind11;

namespace ictus::python {

namespace {

/// A model compiled once (validated, laid out), shared by Simulations.
struct PyCompiledModel {
  std::shared_ptr<const CompiledModel> compiled;
};

/// A saved point of a run (Simulation.save()).
struct PyCheckpoint {
  std::shared_ptr<const Simulation::Checkpoint> checkpoint;
  double time = 0.0;
};

/// Ctrl-C during a run. The GIL is released while the engine integrates, so
/// Python's signal handlers cannot run; every 50 ms of wall time this
/// observer takes the GIL and lets Python check its signals. An exception a
/// handler raises (KeyboardInterrupt) stops the run through the engine's
/// interrupt flag (Simulation::set_interrupt_flag), and PySimulation raises
/// it when the engine has returned: the samples up to there stay readable.
class SignalWatch final : public Observer {
 public:
  void arm() {
    raised_ = false;
    stop_.store(false, std::memory_order_relaxed);
    last_check_ = Clock::now();
  }
  void on_step(double /*t0*/, double /*t1*/) override {
    const auto now = Clock::now();
    if (now - last_check_ < std::chrono::milliseconds(50)) return;
    last_check_ = now;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      raised_ = true;
      stop_.store(true, std::memory_order_relaxed);
    }
  }
  const std::atomic<bool>* flag() const { return &stop_; }
  /// With the GIL held: raises what a signal handler raised during the run.
  void rethrow() const {
    if (raised_) throw py::error_already_set();
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::atomic<bool> stop_{false};
  bool raised_ = false;
  Clock::time_point last_check_;
};

/// A Simulation with the Recorder of its channels.
class PySimulation {
 public:
  PySimulation(std::shared_ptr<const CompiledModel> compiled, const py::object& channels)
      : simulation_(std::make_unique<Simulation>(std::move(compiled))) {
    System& system = simulation_->system();
    // channel(name) may read an orientation angle first at any time of the run
    system.follow_orientation_channels();
    std::vector<std::string> names;
    if (channels.is_none()) {
      names = select_channels(system, system.model().settings().outputs);
    } else if (py::isinstance<py::str>(channels) && channels.cast<std::string>() == "all") {
      for (int k = 0; k < system.channel_count(); ++k) names.push_back(system.channel_info(k).name);
    } else {
      std::vector<OutputRequest> requests;
      for (const std::string& p : channels.cast<std::vector<std::string>>())
        requests.push_back({p, {}});
      names = select_channels(system, requests);
    }
    recorder_ = std::make_unique<Recorder>(std::move(names));
    simulation_->add_observer(*recorder_);
    signals_ = std::make_unique<SignalWatch>();
    simulation_->add_observer(*signals_);
    simulation_->set_interrupt_flag(signals_->flag());
    // the model's windowed peaks (`summary: peaks:`), located on the dense
    // output as the command line's summary does
    const std::vector<SummaryPeak>& peaks = system.model().settings().peaks;
    check_summary_peaks(system, peaks);
    // the spectrum lines are the command line's, but a model that asks for
    // one the run cannot give is refused here as there
    check_summary_spectra(system, system.model().settings().spectra);
    summary_ = std::make_unique<Summary>(std::vector<std::string>{}, peaks);
    simulation_->add_observer(*summary_);
  }

  /// The model's summary peaks as measured so far.
  py::list peaks() const {
    py::list out;
    for (const PeakResult& r : summary_->peaks()) {
      py::dict d;
      d["label"] = r.peak.label.empty() ? r.peak.channel : r.peak.label;
      d["channel"] = r.peak.channel;
      d["unit"] = r.unit;
      d["found"] = r.found;
      d["value"] = r.value;
      d["t"] = r.t;
      d["from"] = r.peak.from;
      d["to"] = r.peak.to;
      out.append(d);
    }
    return out;
  }

  /// The energy audit of the samples so far against the model's tolerance
  /// (`simulate: energy_tolerance`, or its default): run.json's keys.
  py::dict energy_audit() const {
    const EnergyAudit a =
        summary_->energy_audit(energy_tolerance(simulation_->system().model().settings()));
    py::dict d;
    d["passed"] = a.passed;
    d["tolerance"] = a.tolerance;
    d["error"] = a.error;
    d["relative"] = a.relative;
    d["exceeded_between"] =
        a.balance_passed ? py::object(py::none()) : py::make_tuple(a.from, a.to);
    d["dissipation_fall"] = a.fall;
    d["dissipation_fall_relative"] = a.fall_relative;
    d["fell_between"] =
        a.fall_passed ? py::object(py::none()) : py::make_tuple(a.fall_from, a.fall_to);
    return d;
  }

  RunStatistics run() {
    return watched([this] { return simulation_->run(); });
  }

  bool advance_to(double t) {
    return watched([this, t] { return simulation_->advance_to(t); });
  }

  bool apply(const std::vector<Action>& actions, const std::string& name) {
    return watched([this, &actions, &name] { return simulation_->apply(actions, name); });
  }

  PyCheckpoint save() const { return {simulation_->save(), simulation_->time()}; }

  void restore(const PyCheckpoint& c) {
    simulation_->restore(*c.checkpoint);
    started_ = true;
  }

  double time() const { return simulation_->time(); }

  py::array_t<double> state() const {
    const VecX& y = simulation_->state();
    py::array_t<double> out(y.size());
    std::copy(y.data(), y.data() + y.size(), out.mutable_data());
    return out;
  }

  /// Channel `name` at the current state of the run.
  double channel(const std::string& name) {
    System& system = simulation_->system();
    const int k = system.find_channel(name);
    if (k < 0) throw py::key_error(fmt::format("no channel '{}' in this model", name));
    if (!started_)
      throw std::logic_error("the run has not started: advance_to(t) (or apply()) first");
    system.evaluate(simulation_->time(), simulation_->state(), system.channel_info(k).stage);
    return system.channel_value(k);
  }

  std::vector<std::string> all_channels() const {
    std::vector<std::string> names;
    const System& system = simulation_->system();
    for (int k = 0; k < system.channel_count(); ++k) names.push_back(system.channel_info(k).name);
    return names;
  }

  const ChannelInfo& channel_info(const std::string& name) const {
    const System& system = simulation_->system();
    const int k = system.find_channel(name);
    if (k < 0) throw py::key_error(fmt::format("no channel '{}' in this model", name));
    return system.channel_info(k);
  }

  /// The recorded samples: times and one array per channel.
  py::tuple recorded() const {
    auto to_array = [](const std::vector<double>& v) {
      py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
      std::copy(v.begin(), v.end(), a.mutable_data());
      return a;
    };
    py::dict values;
    for (const std::string& name : recorder_->channels())
      values[py::str(name)] = to_array(recorder_->series(name));
    return py::make_tuple(to_array(recorder_->times()), values);
  }

  Simulation& simulation() { return *simulation_; }
  const std::vector<std::string>& recorded_channels() const { return recorder_->channels(); }

 private:
  /// Runs the engine without the GIL, watching for Ctrl-C (SignalWatch).
  template <class Engine>
  std::invoke_result_t<Engine> watched(Engine&& engine) {
    started_ = true;
    signals_->arm();
    auto result = [&] {
      py::gil_scoped_release release;
      return engine();
    }();
    signals_->rethrow();
    return result;
  }

  // the observers outlive the Simulation that observes them
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<SignalWatch> signals_;
  std::unique_ptr<Summary> summary_;
  std::unique_ptr<Simulation> simulation_;
  bool started_ = false;
};

std::shared_ptr<const CompiledModel> compiled_from(
    const std::variant<PyCompiledModel, Model>& model) {
  if (const auto* c = std::get_if<PyCompiledModel>(&model)) return c->compiled;
  return CompiledModel::make(std::get<Model>(model));
}

void bind_records(py::module_& m) {
  py::class_<EventRecord>(m, "EventRecord",
                          "One line of the event log (events.csv): t [s], kind ('event', "
                          "'switch', 'impact', 'structure', 'warning', 'stop', 'failure', "
                          "'interrupted', 'stick', 'slip', 'reversal', 'contact' ...), name "
                          "(element or event), detail.")
      .def_readonly("t", &EventRecord::t)
      .def_readonly("kind", &EventRecord::kind)
      .def_readonly("name", &EventRecord::name)
      .def_readonly("detail", &EventRecord::detail)
      .def(
          "as_dict",
          [](const EventRecord& r) {
            py::dict d;
            d["t"] = r.t;
            d["kind"] = r.kind;
            d["name"] = r.name;
            d["detail"] = r.detail;
            return d;
          },
          "{'t', 'kind', 'name', 'detail'}")
      .def("__repr__", [](const EventRecord& r) {
        return fmt::format("EventRecord(t={:.9g}, kind='{}', name='{}', detail='{}')", r.t, r.kind,
                           r.name, r.detail);
      });

  py::class_<RunStatistics>(m, "RunStatistics",
                            "Counters of a run: integrator steps, rejected steps, evaluations, "
                            "Newton iterations, Jacobians, error test failures; events, impacts, "
                            "structure changes, stick/slip switches; end time, whether an event "
                            "stopped it, wall time.")
      .def_property_readonly("steps", [](const RunStatistics& s) { return s.integrator.steps; })
      .def_property_readonly("rejected",
                             [](const RunStatistics& s) { return s.integrator.rejected; })
      .def_property_readonly("evaluations",
                             [](const RunStatistics& s) { return s.integrator.evaluations; })
      .def_property_readonly("newton_iterations",
                             [](const RunStatistics& s) { return s.integrator.newton_iterations; })
      .def_property_readonly(
          "jacobian_evaluations",
          [](const RunStatistics& s) { return s.integrator.jacobian_evaluations; })
      .def_property_readonly(
          "error_test_failures",
          [](const RunStatistics& s) { return s.integrator.error_test_failures; })
      .def_readonly("events", &RunStatistics::events)
      .def_readonly("impacts", &RunStatistics::impacts)
      .def_readonly("structure_changes", &RunStatistics::structure_changes)
      .def_readonly("element_switches", &RunStatistics::element_switches)
      .def_readonly("end_time", &RunStatistics::end_time)
      .def_readonly("stopped_by_event", &RunStatistics::stopped_by_event)
      .def_readonly("interrupted", &RunStatistics::interrupted)
      .def_readonly("wall_seconds", &RunStatistics::wall_seconds)
      .def(
          "as_dict",
          [](const RunStatistics& s) {
            py::dict d;
            d["steps"] = s.integrator.steps;
            d["rejected"] = s.integrator.rejected;
            d["evaluations"] = s.integrator.evaluations;
            d["newton_iterations"] = s.integrator.newton_iterations;
            d["jacobian_evaluations"] = s.integrator.jacobian_evaluations;
            d["error_test_failures"] = s.integrator.error_test_failures;
            d["events"] = s.events;
            d["impacts"] = s.impacts;
            d["structure_changes"] = s.structure_changes;
            d["element_switches"] = s.element_switches;
            d["end_time"] = s.end_time;
            d["stopped_by_event"] = s.stopped_by_event;
            d["interrupted"] = s.interrupted;
            d["wall_seconds"] = s.wall_seconds;
            return d;
          },
          "The counters as a dict.")
      .def("__repr__", [](const RunStatistics& s) {
        return fmt::format(
            "RunStatistics(steps={}, rejected={}, evaluations={}, events={}, impacts={}, "
            "end_time={:.9g}, stopped_by_event={})",
            s.integrator.steps, s.integrator.rejected, s.integrator.evaluations, s.events,
            s.impacts, s.end_time, s.stopped_by_event ? "True" : "False");
      });

  py::class_<PyCheckpoint>(m, "Checkpoint",
                           "Everything a run has changed, saved between advance_to() calls "
                           "(Simulation.save()); restored into a new Simulation of the same "
                           "model, the run continues bit for bit as the original.")
      .def_readonly("time", &PyCheckpoint::time, "The time it was saved at [s].")
      .def("__repr__", [](const PyCheckpoint& c) {
        return fmt::format("<ictus.Checkpoint t={:.9g}>", c.time);
      });

  py::class_<PyCompiledModel>(m, "CompiledModel",
                              "A model validated and laid out once (include/ictus/"
                              "compiled_model.h), shared by any number of Simulations, also in "
                              "parallel threads: ictus.Simulation(compiled) skips the copy and "
                              "checks of a Model per run.")
      .def(py::init([](const Model& model) { return PyCompiledModel{CompiledModel::make(model)}; }),
           py::arg("model"))
      .def_property_readonly(
          "model", [](const PyCompiledModel& c) { return Model(c.compiled->model()); },
          "A copy of the Model it was compiled from.");
}

void bind_simulation_class(py::module_& m) {
  py::class_<PySimulation>(
      m, "Simulation",
      "One run of a model (include/ictus/simulation.h): integrator, events, impacts, "
      "switching. Simulation(model, channels=None): `model` a Model or CompiledModel; "
      "`channels` the channels recorded: None for the model's `outputs` (the command line's "
      "results.csv columns), 'all', or a list of names and patterns with '*'.\n\n"
      "run() integrates to settings.until and returns Results; or drive it: advance_to(t), "
      "channel(name), apply(actions) / set_enabled / apply_impulse, save() and "
      "restore(checkpoint). A Simulation runs once; build another for another run. Use one "
      "Simulation from one thread at a time (several Simulations run in parallel threads).")
      .def(py::init(
               [](const std::variant<PyCompiledModel, Model>& model, const py::object& channels) {
                 return std::make_unique<PySimulation>(compiled_from(model), channels);
               }),
           py::arg("model"), py::arg("channels") = py::none())
      .def("_run", &PySimulation::run)
      .def("advance_to", &PySimulation::advance_to, py::arg("t"),
           "Integrates to time t (at most settings.until), starting the run if needed; "
           "samples on the output grid are recorded as in run(). Returns False once the run "
           "has ended (at 'until', or stopped by an event). The integrator restarts at t, so a "
           "run continued from save() here, in place or in another Simulation, is the same bit "
           "for bit.")
      .def("apply", &PySimulation::apply, py::arg("actions"), py::arg("name") = "caller",
           "Applies a list of Actions now, as an event called `name` would (logged as one): "
           "switches, one system impact for the constraints that close and the impulses, stop; "
           "then what they make cross acts at the same instant. Samples just before and after "
           "are recorded. Returns False once the run has ended. ValueError for an unknown "
           "element or body (nothing is applied).")
      .def(
          "set_enabled",
          [](PySimulation& s, const std::string& element, bool on) {
            Action a;
            a.kind = on ? Action::Kind::kEnable : Action::Kind::kDisable;
            a.target = element;
            return s.apply({a}, "caller");
          },
          py::arg("element"), py::arg("on"),
          "Switches an element (force, driver, joint, joint member 'hinge.lock_x') on or off "
          "now: apply([Action.enable(element)]). A constraint that closes with violated "
          "velocities is an impact.")
      .def(
          "enabled",
          [](PySimulation& s, const std::string& element) {
            return s.simulation().system().enabled(element);
          },
          py::arg("element"), "Whether an element is switched on now.")
      .def_property_readonly(
          "switchable_elements",
          [](PySimulation& s) { return s.simulation().system().switchable_elements(); },
          "Names of everything that can be switched.")
      .def(
          "apply_impulse",
          [](PySimulation& s, const std::string& body, const Vec3& linear, const Vec3& angular,
             const Vec3& point) {
            Action a;
            a.kind = Action::Kind::kImpulse;
            a.target = body;
            a.linear_impulse = linear;
            a.angular_impulse = angular;
            a.point_B = point;
            return s.apply({a}, "caller");
          },
          py::arg("body"), py::arg("linear") = Vec3::Zero(), py::arg("angular") = Vec3::Zero(),
          py::arg("point") = Vec3::Zero(),
          "An external impulse on `body` now: linear [N s] and angular [N m s] in world axes, "
          "the linear one at `point` (body coordinates, default the centre of mass); a system "
          "impact with the active constraints (seed 000 eqs. 3-4).")
      .def("save", &PySimulation::save,
           "A Checkpoint of the run between advance_to() calls (RuntimeError before the start "
           "or after the end).")
      .def("restore", &PySimulation::restore, py::arg("checkpoint"),
           "Continues, in this Simulation (built from the same model, not started), the run the "
           "checkpoint was saved from; then advance_to() or run(). Only the samples after the "
           "checkpoint's time are recorded here.")
      .def_property_readonly("time", &PySimulation::time, "Time of the run now [s].")
      .def_property_readonly("state", &PySimulation::state,
                             "The state vector y now (a copy; layout in docs/channels.md).")
      .def("channel", &PySimulation::channel, py::arg("name"),
           "The value of any channel (docs/channels.md) at the current state of the run, e.g. "
           "sim.channel('pivot.Fz'); KeyError for an unknown name.")
      .def_property_readonly("channels", &PySimulation::all_channels,
                             "Names of every channel of the model.")
      .def_property_readonly("recorded_channels", &PySimulation::recorded_channels,
                             "Names of the channels recorded.")
      .def(
          "unit",
          [](const PySimulation& s, const std::string& name) { return s.channel_info(name).unit; },
          py::arg("name"), "The SI unit of a channel.")
      .def(
          "describe",
          [](const PySimulation& s, const std::string& name) {
            return s.channel_info(name).description;
          },
          py::arg("name"), "What a channel is.")
      .def("_recorded", &PySimulation::recorded)
      .def("_peaks", &PySimulation::peaks)
      .def("_energy_audit", &PySimulation::energy_audit)
      .def_property_readonly(
          "events", [](PySimulation& s) { return s.simulation().events(); },
          "The event log so far: a list of EventRecord.")
      .def_property_readonly(
          "model", [](PySimulation& s) { return Model(s.simulation().model()); },
          "A copy of the Model being run.");
}

}  // namespace

void bind_simulation(py::module_& m) {
  bind_records(m);
  bind_simulation_class(m);
}

}  // namespace ictus::python
