// advance_to(t), save, and continue from the copy in another Simulation:
// bitwise the same samples as the run continued in place, through impacts,
// releases, stick/slip switches and redundancy, with explicit, implicit and
// SUNDIALS steppers. And two Systems of one Model evaluated in two threads
// give identical results.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

struct Case {
  std::string example;
  std::string integrator;
  double t_save;
  std::vector<std::pair<std::string, std::string>> sets;
};

Model load(const Case& c) {
  // examples/, or tests/models/ for a model that is a test's only
  const std::string dir =
      c.example == "suspension_between_points" || c.example == "pin_friction_pendulum"
          ? "tests/models/"
          : "examples/";
  Model model = load_model(test::source_path(dir + c.example + ".yaml"), c.sets);
  model.settings().integrator.name = c.integrator;
  model.settings().integrator.given.clear();
  return model;
}

class SaveRestore : public ::testing::TestWithParam<Case> {};

TEST_P(SaveRestore, ContinuingFromACopyIsBitwiseTheSame) {
  const Case& c = GetParam();
  const Model model = load(c);
  Simulation original(model);
  Recorder in_place(select_channels(original.system(), {}));
  original.add_observer(in_place);
  ASSERT_TRUE(original.advance_to(c.t_save));
  ASSERT_EQ(original.time(), c.t_save);
  test::expect_checkpoint_continues_bitwise(model, original, in_place);
}

INSTANTIATE_TEST_SUITE_P(
    Runs, SaveRestore,
    ::testing::Values(Case{"docking", "dopri5", 3.0, {}},              // before and after the latch
                      Case{"fairing_separation", "dopri5", 0.03, {}},  // before the releases
                      Case{"four_bar_redundant", "newmark", 1.0, {}},  // dependent rows
                      Case{"piston_push", "rkf45", 1.0, {}},           // a one-shot force, a stop
                      Case{"suspension", "dopri5", 0.2, {{"C", "0"}, {"psi", "0.48"}}},  // stuck
                      Case{"suspension", "wilson", 0.5, {{"C", "0"}, {"fT", "44.2"}}},
                      // stuck at t_save, held by a distance row between two points
                      Case{"suspension_between_points", "dopri5", 0.2, {{"psi", "0.48"}}},
                      // joint friction: slipping after reversals; stuck by pin friction
                      Case{"disk_slider", "dopri5", 1.0, {}},
                      Case{"pin_friction_pendulum", "dopri5", 8.0, {}},
                      Case{"slider_crank", "cvode", 2.0, {}},
                      Case{"double_pendulum", "hht", 1.0, {}}),
    [](const auto& param_info) {
      return param_info.param.example + "_" + param_info.param.integrator;
    });

// One model compiled once, two Simulations (each its own System: workspace
// and mode) running it concurrently in two threads: identical to a serial
// run, bit for bit. The sanitizer build runs it too.
TEST(Threads, TwoSimulationsOfOneCompiledModelInTwoThreadsAgreeWithASerialRun) {
  const auto compiled =
      CompiledModel::make(load_model(test::source_path("examples/slider_crank.yaml")));
  auto run = [&compiled](std::vector<double>& out) {
    Simulation simulation(compiled);
    Recorder r({"cylinder.x", "crank_pin.Fx"});
    simulation.add_observer(r);
    simulation.run();
    out = r.series("cylinder.x");
    out.insert(out.end(), r.series("crank_pin.Fx").begin(), r.series("crank_pin.Fx").end());
  };
  std::vector<double> serial, a, b;
  run(serial);
  std::thread ta([&] { run(a); });
  std::thread tb([&] { run(b); });
  ta.join();
  tb.join();
  EXPECT_EQ(a, serial);
  EXPECT_EQ(b, serial);
  EXPECT_EQ(compiled.use_count(), 1);  // the Simulations released it
}

}  // namespace
}  // namespace ictus
