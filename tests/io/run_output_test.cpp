// A run's output under load and faults, below the command line: the
// interrupt flag, the event log streamed and not held, a full disk, the
// energy audit's verdict and interval, the tiny-step warning (docs/cli.md).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "../../src/step_size_watch.h"
#include "ictus/force.h"
#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the test's temporary directory.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ictus_{}_{}", name, getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::size_t count_lines(const fs::path& file, const std::string& needle) {
  std::ifstream in(file);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) ++n;
  return n;
}

// Sets the flag after `after` steps; remembers how the run finished.
class Interrupter : public Observer {
 public:
  Interrupter(std::atomic<bool>& flag, long after) : flag_(flag), after_(after) {}
  void on_step(double, double) override {
    if (++steps_ == after_) flag_.store(true);
  }
  void on_event(const EventRecord& r) override { last_kind_ = r.kind; }
  void on_finish(double t, bool completed) override {
    finished_ = true;
    completed_ = completed;
    t_end_ = t;
  }
  long steps_ = 0;
  bool finished_ = false, completed_ = true;
  double t_end_ = 0.0;
  std::string last_kind_;

 private:
  std::atomic<bool>& flag_;
  long after_;
};

TEST(RunInterruption, StopsAfterTheStepDuringWhichTheFlagWasSet) {
  const Model model = load_model(test::source_path("examples/pendulum.yaml"));
  Simulation simulation(model);
  std::atomic<bool> flag{false};
  Interrupter interrupter(flag, 100);
  Recorder recorder({"pivot.angle"});
  simulation.add_observer(interrupter);
  simulation.add_observer(recorder);
  simulation.set_interrupt_flag(&flag);
  const RunStatistics stats = simulation.run();
  EXPECT_TRUE(stats.interrupted);
  EXPECT_EQ(stats.integrator.steps, 100);  // no step after the one that set it
  EXPECT_LT(simulation.time(), model.settings().until);
  EXPECT_TRUE(interrupter.finished_);
  EXPECT_FALSE(interrupter.completed_);
  EXPECT_EQ(interrupter.t_end_, simulation.time());
  EXPECT_EQ(interrupter.last_kind_, "interrupted");
  EXPECT_EQ(simulation.events().back().kind, "interrupted");
  // the incomplete results end where the run stopped
  EXPECT_EQ(recorder.times().back(), simulation.time());
}

TEST(RunInterruption, AFlagNeverSetChangesNothing) {
  const Model model = load_model(test::source_path("examples/pendulum.yaml"));
  Simulation plain(model), watched(model);
  std::atomic<bool> flag{false};
  watched.set_interrupt_flag(&flag);
  const RunStatistics a = plain.run(), b = watched.run();
  EXPECT_FALSE(b.interrupted);
  EXPECT_EQ(a.integrator.steps, b.integrator.steps);
  EXPECT_EQ(plain.state(), watched.state());
}

// Counts records and checks, at the last sample, that events.csv.partial
// already holds them (written as they happen, not at the end).
class EventCounter : public Observer {
 public:
  explicit EventCounter(fs::path partial) : partial_(std::move(partial)) {}
  void on_event(const EventRecord& r) override { events_ += r.kind == "event" ? 1 : 0; }
  void on_sample(double, System&) override {
    if (events_ > 0) bytes_on_disk_ = fs::file_size(partial_);
  }
  long events_ = 0;
  std::uintmax_t bytes_on_disk_ = 0;

 private:
  fs::path partial_;
};

TEST(EventLog, IsStreamedToTheFileAndNotHeld) {
  const Model model =
      load_model(test::source_path("tests/cli/models/event_every_step.yaml"), {{"f", "2000"}});
  const fs::path dir = scratch("event_log");
  Simulation simulation(model);
  EventLogWriter writer(dir);
  EventCounter counter(dir / "events.csv.partial");
  simulation.add_observer(writer);
  simulation.add_observer(counter);
  simulation.keep_event_log(false);
  const RunStatistics stats = simulation.run();
  EXPECT_EQ(stats.events, 2000);
  EXPECT_EQ(counter.events_, 2000);
  EXPECT_TRUE(simulation.events().empty());
  // 2000 lines of about 70 bytes: most of them on disk before the end
  EXPECT_GT(counter.bytes_on_disk_, 100000u);
  EXPECT_EQ(count_lines(dir / "events.csv", ",event,"), 2000u);
  EXPECT_EQ(count_lines(dir / "events.csv", ",end,"), 1u);
  EXPECT_FALSE(fs::exists(dir / "events.csv.partial"));
  fs::remove_all(dir);
}

// A full disk: results.csv.partial is a link to /dev/full, whose writes fail
// with ENOSPC. The run ends with an error naming the file and the cause.
TEST(CsvWriter, AFullDiskEndsTheRunWithTheFileAndTheCause) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const Model model = load_model(test::source_path("examples/pendulum.yaml"));
  const fs::path dir = scratch("full_disk");
  fs::create_symlink("/dev/full", dir / "results.csv.partial");
  Simulation simulation(model);
  CsvWriter csv(dir, {"pivot.angle", "pivot.omega", "bob.x", "bob.z"});
  EventLogWriter events(dir);
  simulation.add_observer(csv);
  simulation.add_observer(events);
  try {
    simulation.run();
    FAIL() << "a run onto a full disk completed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("results.csv.partial"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "results.csv"));
  EXPECT_EQ(count_lines(dir / "events.csv", ",failure,"), 1u);
  EXPECT_EQ(count_lines(dir / "events.csv", ",incomplete,"), 1u);
  fs::remove_all(dir);
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The report's poses.csv (docs/report.md): another stem, and a stride that
// keeps every k-th sample, the last one and both samples of each event.
TEST(CsvWriter, AStrideKeepsEveryKthSampleTheLastAndBothSamplesOfEachEvent) {
  const Model model = load_model(test::source_path("examples/fairing_separation.yaml"));
  const fs::path dir = scratch("stride");
  Simulation simulation(model);
  const std::vector<std::string> channels = {"half_left.x", "half_left.qw", "half_right.qz"};
  CsvWriter all(dir, channels);
  CsvWriter strided(dir, channels, "poses");
  strided.set_stride(7);
  simulation.add_observer(all);
  simulation.add_observer(strided);
  simulation.run();
  const std::vector<std::string> every = read_lines(dir / "results.csv");
  const std::vector<std::string> kept = read_lines(dir / "poses.csv");
  ASSERT_GT(every.size(), 200u);
  std::vector<std::string> expected = {every[0]};  // the header
  auto time = [](const std::string& line) { return line.substr(0, line.find(',')); };
  for (std::size_t i = 1; i < every.size(); ++i) {
    const bool pair = (i > 1 && time(every[i]) == time(every[i - 1])) ||
                      (i + 1 < every.size() && time(every[i]) == time(every[i + 1]));
    if ((i - 1) % 7 == 0 || pair || i + 1 == every.size()) expected.push_back(every[i]);
  }
  EXPECT_EQ(kept, expected);
  // the run has three events, each written twice
  std::size_t pairs = 0;
  for (std::size_t i = 2; i < kept.size(); ++i) pairs += time(kept[i]) == time(kept[i - 1]) ? 1 : 0;
  EXPECT_EQ(pairs, 3u);
  EXPECT_LT(kept.size(), every.size() / 5);
  fs::remove_all(dir);
}

TEST(EnergyAudit, NamesTheSampleIntervalWhereTheBalanceBroke) {
  // RK4 with a step of a tenth of the period: the balance jumps at 0.2 s
  const Model model = load_model(test::source_path("tests/cli/models/audit_coarse_step.yaml"));
  Simulation simulation(model);
  Summary summary({"pivot.angle"});
  simulation.add_observer(summary);
  simulation.run();
  const EnergyAudit strict = summary.energy_audit(1e-3);
  EXPECT_FALSE(strict.passed);
  EXPECT_EQ(strict.error, summary.energy_balance_error());
  EXPECT_EQ(strict.relative, summary.relative_energy_balance_error());
  EXPECT_GT(strict.relative, 0.01);
  // one output interval, at the second RK4 step
  EXPECT_NEAR(strict.to - strict.from, model.settings().output_step, 1e-9);
  EXPECT_GE(strict.from, 0.2 - 1e-9);
  EXPECT_LE(strict.to, 0.4 + 1e-9);
  const EnergyAudit loose = summary.energy_audit(0.1);
  EXPECT_TRUE(loose.passed);
}

TEST(EnergyAudit, ExampleRunsPassTheirDefaultTolerance) {
  for (const char* file :
       {"examples/pendulum.yaml", "examples/three_bodies.yaml", "examples/slider_crank.yaml"}) {
    const Model model = load_model(test::source_path(file));
    Simulation simulation(model);
    Summary summary({});
    simulation.add_observer(summary);
    simulation.run();
    EXPECT_TRUE(summary.energy_audit(default_energy_tolerance(model.settings())).passed) << file;
  }
}

TEST(EnergyAudit, SeesATimeSteppingSchemePutInEnergyThatItsBalanceBooks) {
  // Moreau-Jean books what the balance lacks as its own dissipation: the
  // balance closes, the pendulum gains energy, the dissipation falls
  for (const double h : {1e-3, 1e-4}) {
    Model model = load_model(test::source_path("tests/cli/models/audit_scheme_energy.yaml"),
                             {{"h", fmt::format("{}", h)}});
    Simulation simulation(model);
    Summary summary({});
    Recorder energy({"energy.total"});
    simulation.add_observer(summary);
    simulation.add_observer(energy);
    simulation.run();
    const EnergyAudit audit = summary.energy_audit(1e-3);
    EXPECT_TRUE(audit.balance_passed) << h;
    EXPECT_LT(audit.relative, 1e-12) << h;
    // with no work done, the fall is the energy's largest rise above its
    // lowest value before
    double lowest = energy.series("energy.total").front(), rise = 0.0;
    for (const double e : energy.series("energy.total")) {
      lowest = std::min(lowest, e);
      rise = std::max(rise, e - lowest);
    }
    EXPECT_NEAR(audit.fall, rise, 1e-9) << h;
    EXPECT_EQ(audit.fall, summary.dissipation_fall());
    if (h == 1e-3) {
      EXPECT_FALSE(audit.passed);
      EXPECT_FALSE(audit.fall_passed);
      EXPECT_GT(audit.fall_relative, 2e-3);
      EXPECT_LT(audit.fall_from, audit.fall_to);
      EXPECT_GT(audit.fall_from, 0.0);
    } else {
      EXPECT_TRUE(audit.passed) << audit.fall_relative;
    }
  }
}

// A linear damper along x on one body, F = -c v_x; with c < 0 it pushes
// the body along, as friction pushing a slip along would: its dissipated
// power -F v_x = c v_x^2 is negative.
class AxialDamper final : public ForceElement {
 public:
  AxialDamper(std::string name, BodyIndex body, double c)
      : ForceElement(std::move(name)), body_(body), c_(c) {}
  std::string_view kind() const override { return "axial_damper"; }
  std::unique_ptr<ForceElement> clone() const override {
    return std::make_unique<AxialDamper>(*this);
  }
  std::vector<BodyIndex> bodies() const override { return {body_}; }
  ForcePower apply(const ForceContext& ctx, LoadAccumulator& loads) const override {
    const BodyKinematics& k = ctx.body(body_);
    loads.add_force_at(body_, k, Vec3(-c_ * k.v_W.x(), 0.0, 0.0), k.p_W);
    return {0.0, c_ * k.v_W.x() * k.v_W.x()};
  }

 private:
  BodyIndex body_;
  double c_;
};

// The audit of a 1 kg body at 1 m/s along x, no gravity, with a damper of
// coefficient c, to t = 1 s.
EnergyAudit damped_audit(double c) {
  Model model = parse_model(R"(
bodies:
  b: {mass: 1, inertia: [1, 1, 1], velocity: [1, 0, 0]}
simulate: {until: 1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)",
                            "free_body.yaml");
  model.add_force(std::make_unique<AxialDamper>("damper", 0, c));
  Simulation simulation(model);
  Summary summary({});
  simulation.add_observer(summary);
  simulation.run();
  return summary.energy_audit(1e-3);
}

TEST(EnergyAudit, SeesADissipativeElementPutInEnergyThatItsBalanceBooks) {
  // c = -1 N s/m: v = e^t, and the dissipation falls by what the element
  // puts in, int_0^1 v^2 dt = (e^2 - 1) / 2, while the balance closes
  const EnergyAudit pushed = damped_audit(-1.0);
  EXPECT_TRUE(pushed.balance_passed);
  EXPECT_LT(pushed.relative, 1e-9);
  EXPECT_FALSE(pushed.fall_passed);
  EXPECT_FALSE(pushed.passed);
  EXPECT_NEAR(pushed.fall, (std::exp(2.0) - 1.0) / 2.0, 1e-7);
  // the energy scale is T(1) = e^2 / 2; 1e-3 of T(0) = 0.5 J was exceeded
  // in the first output interval
  EXPECT_NEAR(pushed.fall_relative, pushed.fall / (std::exp(2.0) / 2.0), 1e-7);
  EXPECT_EQ(pushed.fall_from, 0.0);
  EXPECT_EQ(pushed.fall_to, 0.01);
  // a damper puts nothing in
  const EnergyAudit damped = damped_audit(1.0);
  EXPECT_TRUE(damped.passed);
  EXPECT_EQ(damped.fall, 0.0);
}

TEST(RisingMaximum, BracketsWhereTheMaximumFirstExceededALevel) {
  internal::RisingMaximum jump;
  jump.reset();
  for (const auto& [t, v] : {std::pair{0.0, 0.0}, {1.0, 0.1}, {2.0, 0.5}, {3.0, 0.4}, {4.0, 2.0}})
    jump.add(t, v);
  jump.add(5.0, std::nan(""));  // ignored
  EXPECT_EQ(jump.max(), 2.0);
  // a jump within one interval: that interval
  EXPECT_EQ(jump.first_above(0.3).from, 1.0);
  EXPECT_EQ(jump.first_above(0.3).to, 2.0);
  EXPECT_EQ(jump.first_above(1.0).from, 3.0);
  EXPECT_EQ(jump.first_above(1.0).to, 4.0);
  EXPECT_EQ(jump.first_above(3.0).to, 0.0);  // never
  // a slow drift v = 1 + t/100: recorded at t = 0, 25 (1.25), 57 (1.5625
  // and more); the level 1.3, crossed at t = 30, lies in [25, 56]
  internal::RisingMaximum drift;
  drift.reset();
  for (int k = 0; k <= 100; ++k) drift.add(k, 1.0 + k / 100.0);
  EXPECT_EQ(drift.first_above(1.3).from, 25.0);
  EXPECT_EQ(drift.first_above(1.3).to, 56.0);
}

TEST(StepSizeWatch, WarnsOnceWhenTheMeanStepImpliesAnUnreasonableCount) {
  internal::StepSizeWatch watch(0.0, 1.0, 0.0);
  int warnings = 0;
  double t = 0.0;
  for (int k = 0; k < 5 * internal::StepSizeWatch::kBlock; ++k) {
    t += 1e-9;  // 10^9 steps for the run
    warnings += watch.accept(t) ? 1 : 0;
  }
  EXPECT_EQ(warnings, 1);
  EXPECT_NE(watch.message().find("1e+09 steps"), std::string::npos) << watch.message();
  EXPECT_NE(watch.message().find("discontinuous force"), std::string::npos);
}

TEST(StepSizeWatch, IsQuietForReasonableOrPlannedStepCounts) {
  internal::StepSizeWatch adaptive(0.0, 1.0, 0.0);
  internal::StepSizeWatch planned(0.0, 1.0, 1e9);  // a fixed step of 1e-9 s, allowed by max_steps
  double t = 0.0;
  for (int k = 0; k < 3 * internal::StepSizeWatch::kBlock; ++k) {
    t += 1e-7;  // 10^7 steps: minutes, not hours
    EXPECT_FALSE(adaptive.accept(t));
  }
  t = 0.0;
  for (int k = 0; k < 3 * internal::StepSizeWatch::kBlock; ++k)
    EXPECT_FALSE(planned.accept(t += 1e-9));
}

TEST(MaxSteps, SettingsImplyingTooManyStepsAreRefusedWhenTheSimulationIsBuilt) {
  Model model = load_model(test::source_path("examples/pendulum.yaml"));
  model.settings().integrator.max_step = 1e-12;
  EXPECT_DOUBLE_EQ(implied_steps(model.settings()), 1e13);
  EXPECT_THROW(Simulation{model}, ModelError);
  model.settings().max_steps = 1e14;  // what --max-steps does
  EXPECT_NO_THROW(Simulation{model});
}

}  // namespace
}  // namespace ictus
