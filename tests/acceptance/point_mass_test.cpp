// Point masses (issue 13 item 5): a body with `point_mass: true` has three
// translational degrees of freedom; its rotation carries no inertia and stays
// frozen. A point-mass pendulum of length L released from th0 has the exact
// period
//   T = 4 sqrt(L / g) K(k),  k = sin(th0 / 2)   (K: complete elliptic integral
// of the first kind in the modulus k, std::comp_ellint_1),
// with no correction for the bob's own inertia (compare pendulum_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kG = 9.81;
constexpr double kL = 1.0;
constexpr double kTheta0 = 1.0;  // [rad], about 57 deg: far from small swings

// A planar point-mass pendulum in the xz plane, hung from the ground point at
// the origin by `joint`.
std::string pendulum(const std::string& joint, const std::string& integrator, double until) {
  return R"(ictus: 1
parameters:
  L: )" + std::to_string(kL) +
         R"(
  th0: )" +
         std::to_string(kTheta0) +
         R"(
gravity: [0, 0, -9.81]
bodies:
  bob: {mass: 0.7, point_mass: true, position: [L*sin(th0), 0, -L*cos(th0)]}
joints:
)" + joint +
         R"(
simulate:
  until: )" +
         std::to_string(until) +
         R"(
  output_step: )" +
         std::to_string(until) +
         R"(
  integrator: )" +
         integrator + R"(
  outputs: [bob.x, bob.z, bob.wx, bob.wy, bob.wz, energy.*]
)";
}

const std::string kDistance = R"(  rod:
    type: distance
    between: [ground, bob]
    points: [[0, 0, 0], [L*sin(th0), 0, -L*cos(th0)]]
    at: [L*sin(th0), 0, -L*cos(th0)]
)";

double exact_period() {
  return 4.0 * std::sqrt(kL / kG) * std::comp_ellint_1(std::sin(kTheta0 / 2.0));
}

// Times of the upward zero crossings of the bob's x-velocity, located by the
// event machinery on the dense output (a log-only event).
std::vector<double> crossings(Model& model) {
  Event mark;
  mark.name = "turn";
  mark.condition = Condition{Expression("bob.vx > 0")};
  model.add_event(mark);
  Simulation simulation(model);
  simulation.run();
  std::vector<double> t;
  for (const EventRecord& r : simulation.events())
    if (r.kind == "event" && r.name == "turn") t.push_back(r.t);
  return t;
}

// about 3 s in Release, a minute under the sanitizers: labelled slow
TEST(PointMassSlow, PendulumPeriodMatchesEllipticIntegralOver1000Periods) {
  const double period = exact_period();
  Model model =
      parse_model(pendulum(kDistance, "dopri5\n  rtol: 1e-13\n  atol: 1e-14", 1000.5 * period),
                  "point_mass_pendulum.yaml");
  const std::vector<double> t = crossings(model);
  ASSERT_EQ(t.size(), 1000u);
  const double mean = (t.back() - t.front()) / static_cast<double>(t.size() - 1);
  EXPECT_LT(test::relative_error(mean, period), 1e-10) << mean << " vs " << period;
  for (std::size_t k = 1; k < t.size(); ++k)
    ASSERT_LT(test::relative_error(t[k] - t[k - 1], period), 1e-9) << "period " << k;
}

TEST(PointMass, OnASphericalJointAtItsOriginItSwingsWithARodAndNeverTurns) {
  // A rod (mass mr, inertia Jc about its centre at L/2) pinned to the ground,
  // the point-mass bob (mb) held at its end by a spherical joint at the bob's
  // origin. A compound pendulum: I = Jc + mr L^2/4 + mb L^2 about the pivot,
  // gravity moment (mr/2 + mb) g L sin th, so L_eq = I / ((mr/2 + mb) L).
  constexpr double kRodMass = 0.3;
  constexpr double kJc = 0.01;
  constexpr double kBobMass = 0.7;
  const double equivalent_length =
      (kJc + kRodMass * kL * kL / 4.0 + kBobMass * kL * kL) / ((kRodMass / 2.0 + kBobMass) * kL);
  const double period =
      4.0 * std::sqrt(equivalent_length / kG) * std::comp_ellint_1(std::sin(kTheta0 / 2.0));
  const std::string text = R"(ictus: 1
parameters: {L: 1.0, th0: 1.0}
gravity: [0, 0, -9.81]
bodies:
  rod: {mass: 0.3, inertia: [0.01, 0.01, 0.01], position: [L/2*sin(th0), 0, -L/2*cos(th0)]}
  bob: {mass: 0.7, point_mass: true, position: [L*sin(th0), 0, -L*cos(th0)]}
joints:
  pivot: {type: revolute, between: [ground, rod], at: [0, 0, 0], axis: [0, 1, 0]}
  tip: {type: spherical, between: [rod, bob], at: [L*sin(th0), 0, -L*cos(th0)]}
simulate: {until: 25, output_step: 0.01, rtol: 1e-12, atol: 1e-13}
)";
  Model model = parse_model(text, "point_mass_on_rod.yaml");
  Event mark;
  mark.name = "turn";
  mark.condition = Condition{Expression("bob.vx > 0")};
  model.add_event(mark);
  const test::RecordedRun run =
      test::run_and_record(model, {"bob.wx", "bob.wy", "bob.wz", "energy.balance"});
  for (const std::string c : {"bob.wx", "bob.wy", "bob.wz"})
    for (double w : run[c]) ASSERT_EQ(w, 0.0) << c;  // the point mass never turns
  for (double e : run["energy.balance"]) EXPECT_LT(std::abs(e), 1e-9);
  std::vector<double> turns;
  for (const EventRecord& r : run.events)
    if (r.kind == "event" && r.name == "turn") turns.push_back(r.t);
  ASSERT_GE(turns.size(), 10u);
  for (std::size_t k = 1; k < turns.size(); ++k)
    EXPECT_LT(test::relative_error(turns[k] - turns[k - 1], period), 1e-9);
}

TEST(PointMass, ImplicitSteppersRunAPointMass) {
  // the iteration matrix a M - ... keeps unit rows for the frozen rotation
  const double period = exact_period();
  for (const std::string integrator : {"cvode\n  rtol: 1e-9\n  atol: 1e-11",
                                       "ida\n  rtol: 1e-9\n  atol: 1e-11", "hht\n  step: 1e-4"}) {
    Model model =
        parse_model(pendulum(kDistance, integrator, 4.5 * period), "point_mass_implicit.yaml");
    const std::vector<double> t = crossings(model);
    ASSERT_EQ(t.size(), 4u) << integrator;
    for (std::size_t k = 1; k < t.size(); ++k)
      EXPECT_LT(test::relative_error(t[k] - t[k - 1], period), 1e-5) << integrator;
  }
}

TEST(PointMass, RevoluteJointOnAPointMassIsRefused) {
  const std::string revolute = R"(  rod:
    type: revolute
    between: [ground, bob]
    at: [0, 0, 0]
    axis: [0, 1, 0]
)";
  try {
    (void)Simulation(parse_model(pendulum(revolute, "dopri5", 1.0), "revolute.yaml"));
    FAIL() << "a revolute joint on a point mass was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("acts on the rotation of body 'bob', a point mass"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ictus
