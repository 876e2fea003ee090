// Static equilibrium against closed forms (docs/statics-and-modes.md).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "ictus/analysis.h"
#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// Newton converges quadratically: the answers are exact to round-off and the
// differencing of the Jacobian only steers the iteration.
constexpr double kAngleTolerance = 1e-9;  // rad
constexpr double kLoadTolerance = 1e-8;   // relative

double channel(const StaticResult& r, const std::string& name) {
  for (const ChannelValue& c : r.channels)
    if (c.name == name) return c.value;
  ADD_FAILURE() << "no channel " << name;
  return 0.0;
}

StaticResult static_of(const std::string& file, const ParameterOverrides& sets = {}) {
  const Model model = load_model(test::source_path(file), sets);
  Simulation simulation(model);
  simulation.prepare();
  return solve_static(simulation.system(), model.settings().start, simulation.state());
}

// m g L sin(theta) = k (theta_free - theta), solved by bisection.
double spring_pendulum_angle(double m, double g, double l, double k, double free) {
  double lo = 0.0, hi = free;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (m * g * l * std::sin(mid) - k * (free - mid) > 0.0 ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}

TEST(Statics, SpringLoadedPendulumAngleAndReaction) {
  for (const double k : {5.0, 20.0, 200.0}) {
    const StaticResult r = static_of("examples/spring_pendulum.yaml", {{"k", std::to_string(k)}});
    const double expected = spring_pendulum_angle(1.0, 9.81, 1.0, k, std::numbers::pi / 2);
    EXPECT_NEAR(channel(r, "pivot.angle"), expected, kAngleTolerance) << "k = " << k;
    // the spring takes the moment, the pivot the weight alone
    EXPECT_NEAR(channel(r, "pivot.Fz"), 9.81, kLoadTolerance * 9.81);
    EXPECT_NEAR(channel(r, "pivot.Fx"), 0.0, kLoadTolerance * 9.81);
    EXPECT_NEAR(channel(r, "spring.load"), k * (expected - std::numbers::pi / 2), 1e-7 * k);
    EXPECT_TRUE(r.stable);
    EXPECT_EQ(r.dof, 1);
  }
}

// Slider-crank held by its motor at crank angle th (examples/slider_crank.yaml):
// virtual work, T dth - P dx - g (m_crank + m_rod) dy_cm = 0 with
//   x = r cos th + sqrt(l^2 - r^2 sin^2 th),  y_crank = y_rod = (r/2) sin th,
//   T = P dx/dth + g (m_crank + m_rod) (r/2) cos th.
// The example's motor turns (w = 2 pi): the static torque holds the driver at
// its value and must not depend on its rate.
TEST(Statics, SliderCrankCrankTorqueByVirtualWork) {
  const double r = 0.1, l = 0.35, p = 100.0, g = 9.81, m_crank = 2.0, m_rod = 1.0;
  for (const double deg : {30.0, 75.0, 140.0}) {
    for (const char* w : {"2*pi", "0"}) {
      const double th = deg * std::numbers::pi / 180.0;
      const StaticResult res = static_of("examples/slider_crank.yaml",
                                         {{"th0", std::to_string(deg) + "*deg"}, {"w", w}});
      const double s = std::sqrt(l * l - r * r * std::sin(th) * std::sin(th));
      const double dx = -r * std::sin(th) - r * r * std::sin(th) * std::cos(th) / s;
      const double torque = p * dx + g * (m_crank + m_rod) * r / 2 * std::cos(th);
      EXPECT_NEAR(channel(res, "motor.load"), torque, kLoadTolerance * p * r)
          << deg << " deg, w = " << w;
      EXPECT_EQ(res.dof, 0);
      // at rest: no accelerations left in the reported channels
      EXPECT_NEAR(channel(res, "piston.ax"), 0.0, 1e-9);
    }
  }
}

// The block sinks by m g / K onto its mount, which then carries the weight.
TEST(Statics, MountBlockDeflection) {
  const StaticResult r = static_of("examples/mount_block.yaml");
  EXPECT_NEAR(channel(r, "guide.x"), -2.0 * 9.81 / 800.0, 1e-12);
  EXPECT_NEAR(channel(r, "mount.load"), -2.0 * 9.81, 1e-9);
}

TEST(Statics, NoEquilibriumIsNamed) {
  const Model model =
      load_model(test::source_path("tests/bad_models/no_static_equilibrium_free_body.yaml"));
  Simulation simulation(model);
  simulation.prepare();
  try {
    (void)solve_static(simulation.system(), 0.0, simulation.state());
    FAIL() << "a free body has no static equilibrium";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no static equilibrium near the start"), std::string::npos) << what;
    EXPECT_NE(what.find("stone.z -29.43 N"), std::string::npos) << what;
    EXPECT_NE(what.find("the stiffness vanishes along stone.z"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ictus
