// Pin friction in a revolute joint (tests/models/pin_friction_pendulum.yaml,
// docs/theory/friction.md): a pendulum whose pivot resists with mu r |N|, N
// the radial reaction. Closed forms for a light pin: at rest the pin carries
// the weight (N = m g), so the bob sticks at the first turning point theta_t
// with |sin theta_t| <= mu_s r / l, held there by a friction moment equal to
// gravity's, m g l sin theta_t; a bob stuck at theta = 0 under a torque b t
// slips at t = mu_s r m g / b. The energy lost equals the friction work.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kMass = 1.0, kLength = 1.0, kRadius = 0.05, kG = 9.81;

double logged_u(const EventRecord& e) {
  return std::stod(e.detail.substr(e.detail.find("u = ") + 4));
}

const std::vector<std::string> kChannels = {
    "pivot.angle",         "pivot.omega",  "pivot.friction",    "pivot.normal",
    "pivot.friction_mode", "energy.total", "energy.dissipated", "energy.balance"};

test::RecordedRun run(const ParameterOverrides& overrides) {
  return test::run_and_record(
      load_model(test::source_path("tests/models/pin_friction_pendulum.yaml"), overrides),
      kChannels);
}

// The swing decays, reversing at every turning point where gravity's moment
// exceeds mu_s r m g, and stops for good at the first where it does not.
void expect_stop_where_gravity_meets_friction(const test::RecordedRun& r, double mu_s) {
  const double limit = mu_s * kRadius / kLength;  // |sin theta_t| at which the bob can stay
  std::vector<EventRecord> turns;
  int sticks = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "reversal") {
      EXPECT_EQ(sticks, 0) << "a reversal after the stick at " << e.t;
      EXPECT_GT(std::abs(std::sin(logged_u(e))), limit) << e.t;
      turns.push_back(e);
    } else if (e.kind == "stick") {
      ++sticks;
      EXPECT_LE(std::abs(std::sin(logged_u(e))), limit) << e.t;
      turns.push_back(e);
    }
  }
  ASSERT_EQ(sticks, 1);
  ASSERT_GE(turns.size(), 3u);
  // stuck: the angle stays, the pin carries the weight, the friction moment
  // balances gravity's
  const double held = turns.back().t;
  const double theta = logged_u(turns.back());
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    if (r.t[k] <= held) continue;
    ASSERT_EQ(r["pivot.friction_mode"][k], 0.0) << r.t[k];
    EXPECT_NEAR(r["pivot.angle"][k], theta, 1e-9);
    EXPECT_NEAR(r["pivot.normal"][k], kMass * kG, 1e-9);
    EXPECT_NEAR(r["pivot.friction"][k], kMass * kG * kLength * std::sin(theta), 1e-9);
  }
  // the energy lost is the friction work: booked (the audit closes) and
  // recomputed from the samples, -integral of F omega dt by the trapezoidal
  // rule (a kink at each reversal: 1e-4 relative)
  const double lost = r["energy.total"].front() - r.final("energy.total");
  EXPECT_NEAR(r.final("energy.dissipated"), lost, 1e-8);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-8);
  double work = 0.0;
  const std::vector<double>& F = r["pivot.friction"];
  const std::vector<double>& w = r["pivot.omega"];
  for (std::size_t k = 1; k < r.t.size(); ++k)
    work -= 0.5 * (F[k] * w[k] + F[k - 1] * w[k - 1]) * (r.t[k] - r.t[k - 1]);
  EXPECT_NEAR(work, lost, 1e-4 * lost);
  fmt::print(
      "pin friction (mu_s = {}): {} reversals, stuck at {:.6f} s at theta = {:.9f} rad "
      "(|sin| {:.6f} <= {:.3f}); energy lost {:.9f} J, friction work {:.9f} J, audit {:.2e} J\n",
      mu_s, turns.size() - 1, held, theta, std::abs(std::sin(theta)), limit, lost, work,
      r.max_abs("energy.balance"));
}

TEST(PinFriction, PendulumStopsWhereGravityMeetsTheFrictionMoment) {
  expect_stop_where_gravity_meets_friction(run({}), 0.4);
}

TEST(PinFriction, StaticAboveKineticHoldsAtTheStaticLimit) {
  const test::RecordedRun r = run({{"mu", "0.3"}, {"mu_s", "0.6"}});
  expect_stop_where_gravity_meets_friction(r, 0.6);
  // it sticks where kinetic friction alone (|sin| <= 0.015) could not hold it
  for (const EventRecord& e : r.events)
    if (e.kind == "stick") {
      EXPECT_GT(std::abs(std::sin(logged_u(e))), 0.3 * kRadius / kLength);
    }
}

TEST(PinFriction, StuckBobSlipsWhenTheTorqueExceedsStaticFriction) {
  // at rest at theta = 0: stuck from the start; b t = mu_s r m g at t = 0.24525 s
  const double b = 1.0, mu = 0.3, mu_s = 0.5;
  const test::RecordedRun r = run({{"th0", "0"}, {"b", "1"}, {"mu", "0.3"}, {"mu_s", "0.5"}});
  ASSERT_GE(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].kind, "stick");
  EXPECT_EQ(r.events[0].t, 0.0);
  EXPECT_EQ(r.events[1].kind, "slip");
  const double t_slip = mu_s * kRadius * kMass * kG / b;
  EXPECT_NEAR(r.events[1].t, t_slip, 1e-9);
  // slipping, the friction moment is kinetic: mu r |N|, opposing the turn
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    if (r.t[k] <= t_slip + 1e-6 || r["pivot.friction_mode"][k] != 1.0) continue;
    EXPECT_NEAR(r["pivot.friction"][k], -mu * kRadius * r["pivot.normal"][k], 1e-12);
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-8);
  fmt::print("pin friction under a torque ramp: slips at {:.12f} s (closed form {:.12f} s)\n",
             r.events[1].t, t_slip);
}

// A pin of radius 3 m on a 1 m pendulum (mu r / l = 1.2 with mu = 0.4):
// slipping, the friction moment would change the pin's reaction more than
// it is (mu |dN/dF| >= 1, no unique slip), but at rest mu_s r m g exceeds
// any moment of gravity, so the bob sticks wherever it starts. Before, the
// solve with the provisional slip mode read by the decision at t = 0
// stopped the run as Painleve's paradox, at every angle.
TEST(PinFriction, ALargePinAtRestSticksWhereItsSlipWouldNotBeDetermined) {
  for (const double th0 : {0.3, 1.2, 2.5}) {
    Model model = load_model(test::source_path("tests/models/pin_friction_pendulum.yaml"),
                             {{"r", "3"}, {"th0", fmt::format("{}", th0)}});
    model.settings().until = 0.5;
    const test::RecordedRun r = test::run_and_record(model, kChannels);
    ASSERT_FALSE(r.events.empty());
    EXPECT_EQ(r.events[0].kind, "stick") << th0;
    EXPECT_EQ(r.events[0].t, 0.0) << th0;
    EXPECT_DOUBLE_EQ(r.t.back(), 0.5) << th0;
    for (std::size_t k = 0; k < r.t.size(); ++k) {
      ASSERT_EQ(r["pivot.friction_mode"][k], 0.0) << th0 << " at " << r.t[k];
      EXPECT_NEAR(r["pivot.angle"][k], th0, 1e-12) << th0;
      EXPECT_NEAR(r["pivot.normal"][k], kMass * kG, 1e-9) << th0;
      EXPECT_NEAR(r["pivot.friction"][k], kMass * kG * kLength * std::sin(th0), 1e-9) << th0;
    }
  }
}

}  // namespace
}  // namespace ictus
