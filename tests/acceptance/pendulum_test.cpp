// Simple pendulum on a revolute joint (issue: core acceptance).
//
// The bob of examples/pendulum.yaml is a small sphere (J = 1e-4 kg m^2 about
// its centre), so the exact reference is the physical pendulum with
// equivalent length L_eq = (m L^2 + J) / (m L):
//   small amplitude:  T0 = 2 pi sqrt(L_eq / g)
//   amplitude th0:    T  = 4 K(sin^2(th0/2)) sqrt(L_eq / g)
#include <gtest/gtest.h>

#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kG = 9.81;
constexpr double kL = 1.0;
constexpr double kMass = 1.0;
constexpr double kJ = 1e-4;
const double kEquivalentLength = (kMass * kL * kL + kJ) / (kMass * kL);

// Periods from successive upward zero crossings of the joint rate, located
// by the event machinery (root finding on the dense output).
std::vector<double> measured_periods(const std::string& theta0, double until) {
  Model model = load_model(test::source_path("examples/pendulum.yaml"), {{"theta0", theta0}});
  model.settings().until = until;
  Event mark;
  mark.name = "upswing";
  mark.condition = Condition{Expression("pivot.omega > 0")};
  model.add_event(mark);
  Simulation simulation(model);
  simulation.run();
  std::vector<double> crossings;
  for (const EventRecord& r : simulation.events())
    if (r.kind == "event" && r.name == "upswing") crossings.push_back(r.t);
  std::vector<double> periods;
  for (std::size_t k = 1; k < crossings.size(); ++k)
    periods.push_back(crossings[k] - crossings[k - 1]);
  return periods;
}

TEST(Pendulum, SmallAmplitudePeriodIsTwoPiSqrtLOverG) {
  // amplitude 0.002 rad: the finite-amplitude correction th0^2/16 = 2.5e-7
  // is below the 1e-6 tolerance
  const std::vector<double> periods = measured_periods("0.002", 10.0);
  ASSERT_GE(periods.size(), 3u);
  const double expected = 2.0 * std::acos(-1.0) * std::sqrt(kEquivalentLength / kG);
  for (double p : periods) EXPECT_LT(test::relative_error(p, expected), 1e-6) << p;
}

TEST(Pendulum, LargeAmplitudePeriodMatchesEllipticIntegral) {
  for (const double degrees : {30.0, 90.0, 150.0}) {
    const double th0 = degrees * std::acos(-1.0) / 180.0;
    const std::vector<double> periods = measured_periods(std::to_string(th0), 12.0);
    ASSERT_GE(periods.size(), 2u);
    const double s = std::sin(th0 / 2.0);
    const double expected = 4.0 * test::elliptic_k(s * s) * std::sqrt(kEquivalentLength / kG);
    for (double p : periods)
      EXPECT_LT(test::relative_error(p, expected), 1e-6) << degrees << " deg: " << p;
  }
}

TEST(Pendulum, ReactionAtRestEqualsTheWeight) {
  Model model = load_model(test::source_path("examples/pendulum.yaml"), {{"theta0", "0"}});
  model.settings().until = 1.0;
  const test::RecordedRun run =
      test::run_and_record(model, {"pivot.Fx", "pivot.Fy", "pivot.Fz", "pivot.angle"});
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    EXPECT_NEAR(run["pivot.Fz"][k], kMass * kG, 1e-12 * kMass * kG);
    EXPECT_NEAR(run["pivot.Fx"][k], 0.0, 1e-12);
    EXPECT_NEAR(run["pivot.Fy"][k], 0.0, 1e-12);
    EXPECT_NEAR(run["pivot.angle"][k], 0.0, 1e-12);
  }
}

}  // namespace
}  // namespace ictus
