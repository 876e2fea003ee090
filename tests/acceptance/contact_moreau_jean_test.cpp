// Moreau-Jean time-stepping (docs/theory/contact.md, "Moreau-Jean
// time-stepping"): a ball dropped on a plane against the closed form at two
// step sizes, with no energy gain in any step and rest under m g; the seed-001
// piston against the event-driven result; a box dropped flat on four corners
// (a redundant set, W singular).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kG = 9.81;

// The peers' bouncing ball (shared/peers/PEERS.md, model c): R = 0.1 m,
// 1 kg, dropped from a gap of 1 m, e = 0.8.
Model ball_model(double step, double theta, double until) {
  return parse_model(fmt::format(R"(
gravity: [0, 0, -{}]
bodies:
  ball: {{mass: 1, inertia: [0.004, 0.004, 0.004], position: [0, 0, 1.1]}}
shapes:
  ball_shape: {{body: ball, type: sphere, radius: 0.1}}
  floor_plane: {{body: ground, type: plane, normal: [0, 0, 1]}}
contacts:
  floor: {{type: shapes, between: [ball, ground], restitution: 0.8}}
simulate: {{until: {}, output_step: {}, integrator: moreau_jean, step: {}, theta: {}}}
)",
                                 kG, until, step, step, theta),
                     "ball.yaml");
}

// Apex heights (largest gap of each flight) of a gap sampled at every step.
std::vector<double> apexes(const std::vector<double>& gap) {
  std::vector<double> out;
  for (std::size_t k = 1; k + 1 < gap.size(); ++k)
    if (gap[k] > gap[k - 1] && gap[k] >= gap[k + 1] && gap[k] > 1e-6) out.push_back(gap[k]);
  return out;
}

// Closed form: after the n-th impact the ball rises to h0 e^(2n); the
// impact speed before it is sqrt(2 g h0) e^(n-1). Moreau-Jean detects the
// impact when the gap predicted half a step ahead closes, so the rebound
// starts up to h v from the plane: the apex is within h v_impact of the
// closed form (theta = 1/2 integrates the flights under gravity exactly).
TEST(ContactMoreauJean, BallApexHeightsWithinTheStepsAccuracy) {
  const double h0 = 1.0, e = 0.8;
  for (const double step : {1e-3, 1e-4}) {
    SCOPED_TRACE(step);
    const test::RecordedRun run = test::run_and_record(
        ball_model(step, 0.5, 3.0), {"floor.gap", "energy.kinetic", "energy.potential"});
    const std::vector<double> apex = apexes(run["floor.gap"]);
    ASSERT_GE(apex.size(), 5u);
    double v = std::sqrt(2 * kG * h0);
    for (std::size_t n = 0; n < 5; ++n) {
      const double exact = h0 * std::pow(e, 2.0 * static_cast<double>(n + 1));
      EXPECT_NEAR(apex[n], exact, step * v) << n;
      v *= e;
    }
  }
}

// theta = 1/2 and 1: the mechanical energy never grows from one step to the
// next (round-off aside), and energy.balance closes.
TEST(ContactMoreauJean, BallNeverGainsEnergy) {
  for (const double theta : {0.5, 1.0}) {
    SCOPED_TRACE(theta);
    const test::RecordedRun run = test::run_and_record(
        ball_model(1e-3, theta, 4.0), {"energy.kinetic", "energy.potential", "energy.balance",
                                       "energy.impacts", "energy.dissipated"});
    const auto& T = run["energy.kinetic"];
    const auto& V = run["energy.potential"];
    const double e0 = T[0] + V[0];
    double largest_gain = 0.0;
    for (std::size_t k = 1; k < T.size(); ++k)
      largest_gain = std::max(largest_gain, (T[k] + V[k]) - (T[k - 1] + V[k - 1]));
    EXPECT_LE(largest_gain, 1e-12 * std::abs(e0) + 1e-12);
    EXPECT_LE(run.max_abs("energy.balance"), 1e-9);
    // theta = 1/2: what is lost is what the impacts took
    if (theta == 0.5) {
      EXPECT_NEAR(run.final("energy.impacts"), run.final("energy.dissipated"), 1e-9);
    }
  }
}

// After the accumulation the ball rests: every step's impulse is m g h, the
// mean normal force m g, and the contact is closed.
TEST(ContactMoreauJean, BallComesToRestUnderItsWeight) {
  const test::RecordedRun run = test::run_and_record(
      ball_model(1e-3, 0.5, 10.0), {"floor.normal", "floor.state", "floor.gap", "ball.vz"});
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    if (run.t[k] < 8.0) continue;
    EXPECT_NEAR(run["floor.normal"][k], kG, 1e-9) << run.t[k];
    EXPECT_EQ(run["floor.state"][k], 1.0);
    EXPECT_LE(std::abs(run["ball.vz"][k]), 1e-12);
  }
}

// Seed 001 (examples/piston.yaml) by Moreau-Jean, h = 1e-4, against the
// event-driven reference (REPORT.md case 2): held on the stop with the
// reaction F0 - b t until 2 s; the first five impacts within three steps of
// the reference's times (each is detected within a step, and each rebound
// starts from the step's penetration, O(h v), which shifts the flights that
// follow); at rest on the stop after the accumulation at t_inf = 3.1021 s.
TEST(ContactMoreauJean, PistonAgainstTheEventDrivenReference) {
  const double step = 1e-4;
  Model model = load_model(test::source_path("examples/piston.yaml"));
  SimulationSettings& s = model.settings();
  s.integrator.name = "moreau_jean";
  s.integrator.step = step;
  s.integrator.given = {"step"};
  s.integrator.given_where = {s.integrator.where};
  s.output_step = step;
  const test::RecordedRun run = test::run_and_record(
      model,
      {"guide.x", "stop.impulse", "stop.normal", "stop.state", "energy.balance", "energy.impacts"});
  const auto& impulse = run["stop.impulse"];
  const double reference[] = {2.72636615939, 2.88897181201, 2.98287311398, 3.03571092749,
                              3.06518375025};
  std::vector<double> impacts;  // the first step of each contact after a flight
  double worst_hold = 0.0;
  for (std::size_t k = 1; k < run.t.size(); ++k) {
    if (impulse[k] > 0.0 && impulse[k - 1] == 0.0 && run.t[k] > 2.0) impacts.push_back(run.t[k]);
    if (run.t[k] < 2.0 - step)  // held: the mean reaction over a step that contains t
      worst_hold = std::max(worst_hold, std::abs(run["stop.normal"][k] - (50.0 - 25.0 * run.t[k])));
  }
  EXPECT_LE(worst_hold, 25.0 * step * (1.0 + 1e-9));
  // lift-off at t1 = F0 / b = 2 s: the first step without an impulse
  double lift_off = 0.0;
  for (std::size_t k = 1; k < run.t.size() && lift_off == 0.0; ++k)
    if (run.t[k] > 1.0 && impulse[k] == 0.0) lift_off = run.t[k];
  EXPECT_NEAR(lift_off, 2.0, 2.0 * step);
  ASSERT_GE(impacts.size(), 5u);
  for (std::size_t n = 0; n < 5; ++n) {
    EXPECT_NEAR(impacts[n], reference[n], 3.0 * step) << n;
  }
  // at rest the reaction is the spring's F0 + c x at the penetration x of
  // the impact steps (|x| <= h v, v = 3.874 m/s at the first)
  const double x_rest = run.final("guide.x");
  EXPECT_LE(std::abs(x_rest), step * 3.874);
  for (std::size_t k = 0; k < run.t.size(); ++k)
    if (run.t[k] > 3.2) {
      EXPECT_NEAR(run["stop.normal"][k], 50.0 + 50.0 * x_rest, 1e-9) << run.t[k];
      EXPECT_EQ(run["stop.state"][k], 1.0);
    }
  // the push is switched off at x = L/2 inside a step: the state there is the
  // dense output's (velocities linear in the step), off the scheme's energy
  // by O(h^2); every step end closes the balance exactly after it
  EXPECT_LE(run.max_abs("energy.balance"), 1e-6);
  // all of the 15.0113 J of kinetic energy at the first impact is lost in
  // the impacts (docs/theory/contact.md), up to the work of F0 over x_rest
  EXPECT_NEAR(run.final("energy.impacts"), 15.0113, 1e-4);
}

// A box dropped flat on four corners (four rows of rank 3: W singular): it
// settles without turning, the four lower corners share m g, the upper ones
// carry nothing.
TEST(ContactMoreauJean, BoxDroppedFlatOnFourCorners) {
  const Model model = parse_model(R"(
gravity: [0, 0, -9.81]
bodies:
  box: {mass: 4, inertia: [0.05, 0.06, 0.07], position: [0, 0, 0.3]}
shapes:
  body_box: {body: box, type: box, size: [0.4, 0.3, 0.2]}
  floor_plane: {body: ground, type: plane, normal: [0, 0, 1]}
contacts:
  floor: {type: shapes, between: [ground, box], restitution: 0}
simulate: {until: 1, output_step: 0.001, integrator: moreau_jean, step: 1e-3}
)",
                                  "box.yaml");
  std::vector<std::string> channels = {"box.z", "box.wx", "box.wy", "box.wz", "energy.balance"};
  for (int k = 0; k < 8; ++k) channels.push_back(fmt::format("floor.p{}.normal", k));
  const test::RecordedRun run = test::run_and_record(model, channels);
  for (const char* w : {"box.wx", "box.wy", "box.wz"}) EXPECT_LE(run.max_abs(w), 1e-9) << w;
  double total = 0.0;
  for (int k = 0; k < 8; ++k) {
    const double n = run.final(fmt::format("floor.p{}.normal", k));
    if ((k & 4) != 0) {
      EXPECT_EQ(n, 0.0) << k;
    } else {
      EXPECT_NEAR(n, 4.0 * 9.81 / 4.0, 1e-7) << k;
    }
    total += n;
  }
  EXPECT_NEAR(total, 4.0 * 9.81, 1e-9);
  // it rests within the step's penetration of the plane: h v, v = 1.98 m/s
  EXPECT_NEAR(run.final("box.z"), 0.1, 1e-3 * 1.98);
  EXPECT_LE(run.max_abs("energy.balance"), 1e-9);
}

}  // namespace
}  // namespace ictus
