// Conservative systems keep their invariants (issue: core acceptance):
// energy and angular momentum to 1e-8 relative over 10 s with DOPRI5 at a
// tight tolerance (rtol 1e-12 in the example files).
#include <gtest/gtest.h>

#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kInvariantTolerance = 1e-8;  // relative, over 10 s

double max_relative_drift(const std::vector<double>& series, double scale) {
  double worst = 0.0;
  for (double v : series) worst = std::max(worst, std::abs(v - series.front()) / scale);
  return worst;
}

TEST(Conservation, DoublePendulumUnderGravityKeepsItsEnergy) {
  const Model model = load_model(test::source_path("examples/double_pendulum.yaml"));
  ASSERT_EQ(model.settings().until, 10.0);
  const test::RecordedRun run =
      test::run_and_record(model, {"energy.total", "energy.kinetic", "energy.potential"});
  const double scale = run.max_abs("energy.kinetic") + run.max_abs("energy.potential");
  EXPECT_LT(max_relative_drift(run["energy.total"], scale), kInvariantTolerance);
}

TEST(Conservation, SpinningDoublePendulumWithoutGravityKeepsEnergyAndAxialMomentum) {
  // without gravity the pivot exerts no moment about the joint axis (y), so
  // the y component of the angular momentum about the pivot is conserved
  Model model = load_model(test::source_path("examples/double_pendulum.yaml"));
  model.set_gravity(Vec3::Zero());
  model.add_given_velocity({"shoulder.omega", Expression("3.0"), {}});
  model.add_given_velocity({"elbow.omega", Expression("-5.0"), {}});
  const test::RecordedRun run =
      test::run_and_record(model, {"energy.kinetic", "system.Ly", "elbow.omega"});
  EXPECT_GT(run.max_abs("elbow.omega"), 1.0);
  EXPECT_LT(max_relative_drift(run["energy.kinetic"], run.max_abs("energy.kinetic")),
            kInvariantTolerance);
  EXPECT_LT(max_relative_drift(run["system.Ly"], run.max_abs("system.Ly")), kInvariantTolerance);
}

TEST(Conservation, TorqueFreeAsymmetricBodyKeepsEnergyAndMomenta) {
  const Model model = load_model(test::source_path("examples/spinning_body.yaml"));
  const test::RecordedRun run =
      test::run_and_record(model, {"energy.kinetic", "system.Lx", "system.Ly", "system.Lz",
                                   "system.px", "box.wx_B", "box.wy_B"});
  // it tumbles: the spin about the intermediate axis turns over
  double min_wy = 0.0;
  for (double w : run["box.wy_B"]) min_wy = std::min(min_wy, w);
  EXPECT_LT(min_wy, -3.0);
  EXPECT_LT(max_relative_drift(run["energy.kinetic"], run.max_abs("energy.kinetic")),
            kInvariantTolerance);
  double l_norm = 0.0;
  for (const char* c : {"system.Lx", "system.Ly", "system.Lz"})
    l_norm = std::max(l_norm, run.max_abs(c));
  for (const char* c : {"system.Lx", "system.Ly", "system.Lz"})
    EXPECT_LT(max_relative_drift(run[c], l_norm), kInvariantTolerance) << c;
  EXPECT_LT(max_relative_drift(run["system.px"], run.max_abs("system.px")), 1e-12);
}

}  // namespace
}  // namespace ictus
