// A ball (spherical joint with friction) in an impact (docs/theory/
// friction.md, "Friction impulses in an impact"): Coulomb's law at the
// impulse level, the friction moment impulse M in -mu r |P| Sign(w+), P the
// ball's whole reaction impulse and w+ its relative angular velocity after
// the impact; mu_s for a ball stuck before it. Before, a stuck ball's hold
// took any kick whole and a slipping ball took no friction impulse.
//
// A bar of mass m (inertia Iz about its centre) on a ball at O, its centre
// at L, without gravity, turning about z at w0 and kicked at its centre by J
// along y. In the plane, with theta the bar's angle, the kick has J_t = J cos
// theta across the bar and J_r = J sin theta along it; the ball takes P_r =
// -J_r and P_t = m L dw - J_t, and about O
//   I_O dw = L J_t + M,   M = -s mu r |P|,   s = sgn(w+),   I_O = Iz + m L^2,
// a quadratic in dw. Between impulses the ball's reaction is m L (w^2, w')
// and I_O w' = -mu r m L sqrt(w^4 + w'^2): w' = -c w |w|, c = k /
// sqrt(I_O^2 - k^2), k = mu r m L, so w(s) = w0 / (1 + c |w0| s) and the
// angle turned is ln(1 + c |w0| s) / c along w0.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kMass = 2.0, kIz = 0.3, kRadius = 0.2, kMu = 0.3, kMuStatic = 0.4;

constexpr const char* kKickedBar = R"(ictus: 1
name: bar on a ball with friction, kicked across
parameters: {m: 2, L: 0.3, J: 3, w0: 0}
gravity: [0, 0, 0]
bodies:
  bar:
    mass: m
    inertia: [0.1, 0.3, 0.3]
    position: [L, 0, 0]
    velocity: [0, w0 * L, 0]
    angular_velocity: [0, 0, w0]
joints:
  ball:
    type: spherical
    between: [ground, bar]
    at: [0, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.2}
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: bar, linear: [0, J, 0]}}
    once: true
simulate: {until: 1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";

test::RecordedRun kick(double L, double J, double w0) {
  return test::run_and_record(
      parse_model(kKickedBar, "kicked bar",
                  {{"L", fmt::format("{}", L)},
                   {"J", fmt::format("{}", J)},
                   {"w0", fmt::format("{}", w0)}}),
      {"bar.wx", "bar.wy", "bar.wz", "ball.friction_mode", "energy.balance"});
}

// w(s) after s of slipping from w (the closed form above)
double spun_down(double L, double w, double s) {
  const double k = kMu * kRadius * kMass * L, io = kIz + kMass * L * L;
  const double c = k / std::sqrt(io * io - k * k);
  return w / (1.0 + c * std::abs(w) * s);
}
double angle_turned(double L, double w, double s) {
  const double k = kMu * kRadius * kMass * L, io = kIz + kMass * L * L;
  const double c = k / std::sqrt(io * io - k * k);
  return std::copysign(std::log1p(c * std::abs(w) * s) / c, w);
}

// w+ after the kick J at angle theta of a bar turning at w (mu_r = mu r):
// (I_O dw - L J_t)^2 = mu_r^2 (J_r^2 + (m L dw - J_t)^2), the root whose
// friction moment I_O dw - L J_t opposes w + dw
double after_kick(double L, double J, double w, double theta, double mu_r) {
  const double io = kIz + kMass * L * L, jt = J * std::cos(theta), jr = J * std::sin(theta);
  const double ml = kMass * L;
  const double a = io * io - mu_r * mu_r * ml * ml;
  const double b = -2.0 * (io * L * jt - mu_r * mu_r * ml * jt);
  const double c = L * L * jt * jt - mu_r * mu_r * (jr * jr + jt * jt);
  const double root = std::sqrt(b * b - 4.0 * a * c);
  for (const double dw : {(-b + root) / (2.0 * a), (-b - root) / (2.0 * a)}) {
    const double moment = io * dw - L * jt;
    if (moment * (w + dw) <= 0.0) return w + dw;
  }
  ADD_FAILURE() << "no root opposes the rate after the kick";
  return 0.0;
}

double kick_time(const test::RecordedRun& r) {
  for (const EventRecord& e : r.events)
    if (e.kind == "event" && e.name == "kick") return e.t;
  ADD_FAILURE() << "the kick is not logged";
  return 0.0;
}

int count_events(const test::RecordedRun& r, const std::string& kind) {
  return static_cast<int>(
      std::count_if(r.events.begin(), r.events.end(), [&](const EventRecord& e) {
        return e.t > 0.0 && e.kind == kind && e.name == "ball.friction";
      }));
}

// w_z(t) against the closed form through the kick, and the motion in the plane
void expect_spins_as_closed_form(const test::RecordedRun& r, double L, double J, double w0,
                                 double mu_r) {
  const double tk = kick_time(r);
  const double w_minus = spun_down(L, w0, tk);
  const double w_plus = after_kick(L, J, w_minus, angle_turned(L, w0, tk), mu_r);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (std::abs(t - tk) < 1e-9) continue;
    const double expected = t < tk ? spun_down(L, w0, t) : spun_down(L, w_plus, t - tk);
    EXPECT_NEAR(r["bar.wz"][k], expected, 1e-9) << t;
    EXPECT_NEAR(r["bar.wx"][k], 0.0, 1e-12) << t;
    EXPECT_NEAR(r["bar.wy"][k], 0.0, 1e-12) << t;
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

TEST(BallFrictionImpulse, AStuckBallKickedBeyondItsHoldSlipsWithMuStatic) {
  // the hold L J exceeds mu_s r |P| = mu_s r J: it gives way
  const test::RecordedRun r = kick(0.3, 3.0, 0.0);
  expect_spins_as_closed_form(r, 0.3, 3.0, 0.0, kMuStatic * kRadius);
  EXPECT_EQ(count_events(r, "slip"), 1);
  EXPECT_EQ(r.final("ball.friction_mode"), 1.0);
}

TEST(BallFrictionImpulse, AStuckBallHeldWithinMuStaticTakesTheKickWhole) {
  // L J <= mu_s r J: the bar stays at rest
  const test::RecordedRun r = kick(0.05, 3.0, 0.0);
  EXPECT_EQ(r.max_abs("bar.wz"), 0.0);
  EXPECT_EQ(count_events(r, "slip"), 0);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

TEST(BallFrictionImpulse, ASlippingBallKickedTakesMuTimesItsReactionImpulse) {
  const test::RecordedRun r = kick(0.3, 3.0, 2.0);
  expect_spins_as_closed_form(r, 0.3, 3.0, 2.0, kMu * kRadius);
  EXPECT_EQ(count_events(r, "stick"), 0);
}

TEST(BallFrictionImpulse, AKickThatTurnsASlippingBallRoundSlipsTheOtherWay) {
  const test::RecordedRun r = kick(0.3, -20.0, 2.0);
  expect_spins_as_closed_form(r, 0.3, -20.0, 2.0, kMu * kRadius);
  EXPECT_LT(r.final("bar.wz"), 0.0);
  EXPECT_EQ(count_events(r, "stick"), 0);
}

// The bar beside a rod on a frictional pin far from it (the same geometry
// about a vertical axis), both kicked: each gives way as alone, and both then
// slip together, the ball solved alone in the dynamics (its reaction is
// spatial), the pin's radial reaction in the plane the same as the ball's.
TEST(BallFrictionImpulse, ABallAndAPinApartBothKickedSlipEachAsAlone) {
  const test::RecordedRun r =
      test::run_and_record(parse_model(R"(ictus: 1
name: a bar on a ball and a rod on a pin, apart, both kicked
gravity: [0, 0, 0]
bodies:
  bar: {mass: 2, inertia: [0.1, 0.3, 0.3], position: [0.3, 0, 0]}
  rod: {mass: 2, inertia: [0.1, 0.3, 0.3], position: [0.3, 0, 5]}
joints:
  ball:
    type: spherical
    between: [ground, bar]
    at: [0, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.2}
  pin:
    type: revolute
    between: [ground, rod]
    at: [0, 0, 5]
    axis: [0, 0, 1]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.2}
events:
  kick:
    when: t >= 0.1
    do:
      - {impulse: {on: bar, linear: [0, 3, 0]}}
      - {impulse: {on: rod, linear: [0, 3, 0]}}
    once: true
simulate: {until: 1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)",
                                       "ball and pin", {}),
                           {"bar.wx", "bar.wy", "bar.wz", "rod.wz", "energy.balance"});
  expect_spins_as_closed_form(r, 0.3, 3.0, 0.0, kMuStatic * kRadius);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    EXPECT_NEAR(r["rod.wz"][k], r["bar.wz"][k], 1e-9) << r.t[k];
  }
}

// A bar on a ball kicked beside, apart, a ball and a pin in series at rest:
// those two reach each other but take no part (nothing changes their
// impulses), so the kicked ball is decided alone, without a warning.
TEST(BallFrictionImpulse, ABallKickedBesideAnUnrelatedBallAndPinIsDecidedAlone) {
  const test::RecordedRun r = test::run_and_record(
      parse_model(R"(ictus: 1
name: a bar on a ball kicked, and apart a ball and pin at rest
gravity: [0, 0, 0]
bodies:
  bar: {mass: 2, inertia: [0.1, 0.3, 0.3], position: [0.3, 0, 0]}
  link1: {mass: 1, inertia: [0.01, 0.02, 0.02], position: [0.25, 0, 5]}
  link2: {mass: 1, inertia: [0.01, 0.02, 0.02], position: [0.75, 0, 5]}
joints:
  ball:
    type: spherical
    between: [ground, bar]
    at: [0, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.2}
  ballB:
    type: spherical
    between: [ground, link1]
    at: [0, 0, 5]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.2}
  pin:
    type: revolute
    between: [link1, link2]
    at: [0.5, 0, 5]
    axis: [0, 0, 1]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.02}
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: bar, linear: [0, 3, 0]}}
    once: true
simulate: {until: 1, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)",
                  "two apart", {}),
      {"bar.wx", "bar.wy", "bar.wz", "link1.wz", "link2.wz", "energy.balance"});
  expect_spins_as_closed_form(r, 0.3, 3.0, 0.0, kMuStatic * kRadius);
  EXPECT_EQ(r.max_abs("link1.wz"), 0.0);
  EXPECT_EQ(r.max_abs("link2.wz"), 0.0);
  EXPECT_TRUE(std::none_of(r.events.begin(), r.events.end(),
                           [](const EventRecord& e) { return e.kind == "warning"; }));
}

// A ball then a pin in series (two links of 1 kg from the ball at the
// origin, the pin at 0.5 m), kicked across link2 at `a` along x by 1 N s.
// The run ends at 0.12 s: later the ball's hold gives way in the dynamics,
// where a ball slipping with a pin that reaches it is not solved.
test::RecordedRun kick_ball_then_pin(double a) {
  return test::run_and_record(parse_model(R"(ictus: 1
name: ball then pin, kicked
parameters: {a: 0.05}
gravity: [0, 0, 0]
bodies:
  link1: {mass: 1, inertia: [0.01, 0.02, 0.02], position: [0.25, 0, 0]}
  link2: {mass: 1, inertia: [0.01, 0.02, 0.02], position: [0.25, 0, 0]}
joints:
  ball:
    type: spherical
    between: [ground, link1]
    at: [0, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.2}
  pin:
    type: revolute
    between: [link1, link2]
    at: [0.5, 0, 0]
    axis: [0, 0, 1]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.02}
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: link2, linear: [0, 1, 0], at: [a, 0, 0]}}
    once: true
simulate: {until: 0.12, output_step: 0.01}
)",
                                          "ball then pin", {{"a", fmt::format("{}", a)}}),
                              {"link1.wz", "link2.wz"});
}

std::vector<std::string> warnings_of(const test::RecordedRun& r) {
  std::vector<std::string> warnings;
  for (const EventRecord& e : r.events)
    if (e.kind == "warning") warnings.push_back(e.detail);
  return warnings;
}

// Kicked near the ball: only the pin asks at first (the ball's hold 0.05 J
// is within mu_s r J = 0.08 J), and its slip changes the ball's hold beyond
// mu_s r |P|, which ictus does not decide (a ball is decided alone): the
// ball stays stuck and a warning says so.
TEST(BallFrictionImpulse, ABallHoldPushedBeyondItsConeByAnotherJointsSlipIsWarnedOf) {
  const test::RecordedRun r = kick_ball_then_pin(0.05);
  EXPECT_LT(r.max_abs("link1.wz"), 1e-12);
  EXPECT_GT(r.max_abs("link2.wz"), 0.1);  // the pin slips
  const std::vector<std::string> warnings = warnings_of(r);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("joint 'ball': its stuck hold takes a moment impulse beyond"),
            std::string::npos);
}

// Kicked far from the ball: both ask, and their impulses reach each other,
// so the ball is left to its hold (one warning, not a second for the hold
// it left beyond its cone) and the pin slips.
TEST(BallFrictionImpulse, ABallAndAPinThatBothAskAreDecidedWithoutTheBallAndOneWarning) {
  const test::RecordedRun r = kick_ball_then_pin(0.45);
  EXPECT_LT(r.max_abs("link1.wz"), 1e-12);
  EXPECT_GT(r.max_abs("link2.wz"), 0.1);  // the pin slips
  const std::vector<std::string> warnings = warnings_of(r);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("joint 'ball': its friction impulse in an impact is not decided "
                             "(its impulses reach those of joint 'pin'"),
            std::string::npos);
}

// Two balls in series, shoulder and elbow, kicked at the lower bar: each
// ball's friction impulse reaches the other's, which ictus does not decide
// (a ball is decided alone). The impact is decided as before balls took
// part, both stuck holds taking the kick whole, with a warning; the run
// goes on.
TEST(BallFrictionImpulse, TwoBallsWhoseImpulsesReachEachOtherAreHeldWithAWarning) {
  const test::RecordedRun r = test::run_and_record(parse_model(R"(ictus: 1
name: two bars on frictional balls in series, kicked
gravity: [0, 0, 0]
bodies:
  upper: {mass: 2, inertia: [0.1, 0.3, 0.3], position: [0.3, 0, 0]}
  lower: {mass: 1, inertia: [0.05, 0.1, 0.1], position: [0.9, 0, 0]}
joints:
  shoulder:
    type: spherical
    between: [ground, upper]
    at: [0, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.2}
  elbow:
    type: spherical
    between: [upper, lower]
    at: [0.6, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4, radius: 0.2}
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: lower, linear: [0, 3, 0]}}
    once: true
simulate: {until: 0.3, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)",
                                                               "two balls", {}),
                                                   {"upper.wz", "lower.wz"});
  EXPECT_LT(r.max_abs("upper.wz"), 1e-12);  // (the solve's round-off)
  EXPECT_LT(r.max_abs("lower.wz"), 1e-12);
  EXPECT_TRUE(std::any_of(r.events.begin(), r.events.end(), [](const EventRecord& e) {
    return e.kind == "warning" &&
           e.detail.find("its friction impulse in an impact is not decided (its impulses reach") !=
               std::string::npos;
  }));
  EXPECT_NEAR(r.t.back(), 0.3, 1e-12);
}

}  // namespace
}  // namespace ictus
