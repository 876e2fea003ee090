// Variable structure (issue: impacts and variable structure; seed 002):
// hinges that let go, seams that are cut, consistent initial velocities of a
// many-body mechanism from one given speed (seed 000's engine example).
#include <gtest/gtest.h>

#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

std::vector<std::pair<double, std::string>> structure_changes(
    const std::vector<EventRecord>& log) {
  std::vector<std::pair<double, std::string>> out;
  for (const EventRecord& r : log)
    if (r.kind == "structure") out.emplace_back(r.t, r.detail);
  return out;
}

TEST(VariableStructure, FairingHalvesSeparateWithTheDegreesOfFreedomLogged) {
  const Model model = load_model(test::source_path("examples/fairing_separation.yaml"));
  const test::RecordedRun run = test::run_and_record(
      model, {"system.px", "system.py", "system.pz", "system.Lx", "system.Ly", "system.Lz",
              "hinge_left.angle", "hinge_right.angle", "energy.balance", "energy.kinetic"});
  const auto changes = structure_changes(run.events);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_NEAR(changes[0].first, 0.05, 1e-12);  // the seam is cut
  EXPECT_NE(changes[0].second.find("degrees of freedom 6 -> 8"), std::string::npos);
  EXPECT_NE(changes[1].second.find("degrees of freedom 8 -> 13"), std::string::npos);
  EXPECT_NE(changes[2].second.find("degrees of freedom 13 -> 18"), std::string::npos);
  // each half goes at the release angle (the lighter one first)
  for (const EventRecord& r : run.events)
    if (r.kind == "switch" && (r.name == "hinge_left" || r.name == "hinge_right")) {
      const std::size_t k = std::find(run.t.begin(), run.t.end(), r.t) - run.t.begin();
      ASSERT_LT(k, run.t.size());
      EXPECT_NEAR(run[r.name + ".angle"][k], 30.0 * std::acos(-1.0) / 180.0, 1e-9) << r.name;
    }
  // no external loads: momentum is conserved through every switch
  const double p_scale = std::abs(run["system.pz"].front());
  for (const char* c : {"system.px", "system.py", "system.pz"})
    for (double v : run[c]) EXPECT_NEAR(v, run[c].front(), 1e-10 * p_scale) << c;
  for (const char* c : {"system.Lx", "system.Ly", "system.Lz"})
    for (double v : run[c]) EXPECT_NEAR(v, run[c].front(), 1e-10 * 300.0) << c;
  EXPECT_LT(run.max_abs("energy.balance"), 1e-10 * run.max_abs("energy.kinetic"));
}

TEST(VariableStructure, EngineVelocitiesFollowFromTheCrankSpeed) {
  Model model = load_model(test::source_path("examples/engine_v8.yaml"));
  System system(model);
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  const StructureReport rep = system.structure_report(0.0, y);
  EXPECT_GE(rep.rows, 100);  // the issue asks for at least 100 constraints
  EXPECT_EQ(rep.dof, 1);
  // every piston's speed from the slider-crank relation of its cylinder
  const double pi = std::acos(-1.0);
  const double r = 0.045, l = 0.150, w = 3000.0 * 2.0 * pi / 60.0;
  const double throws[] = {0.0, 90.0, 270.0, 180.0};
  system.evaluate(0.0, y, Stage::kKinematics);
  EXPECT_NEAR(system.channel_value(system.find_channel("main_bearing.omega")), w, 1e-12 * w);
  for (int i = 0; i < 8; ++i) {
    const double alpha = (20.0 + throws[i / 2] - (i % 2 == 0 ? 45.0 : 135.0)) * pi / 180.0;
    const double root = std::sqrt(l * l - r * r * std::sin(alpha) * std::sin(alpha));
    const double s = r * std::cos(alpha) + root;
    const double v = w * (-r * std::sin(alpha) - r * r * std::sin(alpha) * std::cos(alpha) / root);
    const std::string cyl = "cylinder" + std::to_string(i);
    EXPECT_NEAR(system.channel_value(system.find_channel(cyl + ".x")), s, 1e-12) << cyl;
    EXPECT_NEAR(system.channel_value(system.find_channel(cyl + ".v")), v, 1e-10 * w * r) << cyl;
  }
  EXPECT_LT(system.velocity_violation(0.0, y), 1e-12 * w * r);
}

TEST(VariableStructure, EngineCoastsWithTheConstraintsHeld) {
  const Model model = load_model(test::source_path("examples/engine_v8.yaml"));
  const test::RecordedRun run =
      test::run_and_record(model, {"system.violation", "main_bearing.angle", "energy.balance",
                                   "energy.kinetic"});
  EXPECT_GT(run["main_bearing.angle"].back() - run["main_bearing.angle"].front(), 6.0 * 3.14);
  EXPECT_LT(run.max_abs("system.violation"), 1e-8);
  EXPECT_LT(run.max_abs("energy.balance"), 1e-8 * run.max_abs("energy.kinetic"));
}

TEST(VariableStructure, ClosureLeftToBaumgarteApproachesTheImpulse) {
  // seed 000's comparison (its figure 4): instead of the impulse, let large
  // Baumgarte gains pull the velocities onto the closed latch. In this 1-D
  // example momentum fixes the result; the cost is a stiff transient.
  Model model = load_model(test::source_path("examples/three_bodies.yaml"));
  model.settings().closure = SimulationSettings::Closure::kBaumgarte;
  model.settings().stabilisation.baumgarte_velocity = 2e3;
  model.settings().stabilisation.baumgarte_position = 1e6;
  model.settings().integrator.rtol = 1e-10;
  model.settings().output_step = 1e-4;  // fine enough to see the transient
  const test::RecordedRun soft =
      test::run_and_record(model, {"body1.vx", "body2.vx", "body3.vx", "system.violation"});
  const test::RecordedRun hard = test::run_and_record(
      load_model(test::source_path("examples/three_bodies.yaml")), {"body3.vx"});
  for (const char* b : {"body1.vx", "body2.vx", "body3.vx"})
    EXPECT_NEAR(soft[b].back(), 1.0 / 3.0, 1e-8) << b;
  EXPECT_GT(soft.max_abs("system.violation"), 1e-5);  // the bodies overlap while closing
  EXPECT_GT(soft.stats.integrator.evaluations, 3 * hard.stats.integrator.evaluations);
}

}  // namespace
}  // namespace ictus
