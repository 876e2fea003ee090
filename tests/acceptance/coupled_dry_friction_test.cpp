// Seed 003's dry friction and a frictional joint whose slips stop at the
// same instant, decided together (docs/theory/friction.md, "Several at zero
// rate": an element with a limit of its own is one whose normal force is
// F_max). The stack of tests/models/stacked_blocks_friction.yaml with the
// floor's Coulomb friction replaced by a dry-friction element on the lower
// block's coordinate (f_T = mu1 (m1 + m2) g = 14.715 N, the same numbers):
// the lower block (m1) slides forward on the floor, the upper (m2) backward
// on it in a guide with friction mu2. Both slipping,
//   m1 x1'' = -fT - mu2 m2 g,   m2 (x1'' + x2'') = mu2 m2 g + P,
// and the initial rates make both slips stop at t = T = 0.1 s.
//
// Decided one after the other, the dry element (the first stick/slip element)
// sees the upper guide's kinetic force of the slip that just ended: holding
// the lower block takes mu2 m2 g = 19.62 N > fT, so it slipped back, and
// the pair then moved off from rest (energy from nothing). Decided together,
// the combination is the closed form's below.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kM1 = 1, kM2 = 4, kMu2 = 0.5, kT = 0.1, kG = 9.81;
constexpr double kFt = 0.3 * (kM1 + kM2) * kG;  // 14.715 N

// The floor's dry friction on the joint's translation (`joint: floor`) or
// between a ground point behind the block and the block (`between:`, u the
// stretch of their distance, along x like the joint coordinate).
std::string stack_with_dry_floor(bool between_points, double push) {
  const double a1 = (-kFt - kMu2 * kM2 * kG) / kM1;
  const double a2 = kMu2 * kG + push / kM2 - a1;
  return fmt::format(
      R"(ictus: 1
gravity: [0, -{g}, 0]
bodies:
  lower: {{mass: {m1}, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0]}}
  upper: {{mass: {m2}, inertia: [0.1, 0.1, 0.1], position: [0, 1, 0]}}
joints:
  floor: {{type: prismatic, between: [ground, lower], at: [0, 0, 0], axis: [1, 0, 0]}}
  top: {{type: prismatic, between: [lower, upper], at: [0, 1, 0], axis: [1, 0, 0],
         friction: {mu2}}}
forces:
  floor_friction: {{type: spring_damper, {where}, dry_friction: {ft:.17g}}}
  push: {{type: force, on: upper, direction: [1, 0, 0], value: {push}}}
initial_velocities:
  floor.v: {v1:.17g}
  top.v: {v2:.17g}
simulate: {{until: 0.3, output_step: 0.001, rtol: 1e-10, atol: 1e-12}}
)",
      fmt::arg("g", kG), fmt::arg("m1", kM1), fmt::arg("m2", kM2), fmt::arg("mu2", kMu2),
      fmt::arg("where", between_points ? "between: [ground, lower], points: [[-1, 0, 0], [0, 0, 0]]"
                                       : "joint: floor"),
      fmt::arg("ft", kFt), fmt::arg("push", push), fmt::arg("v1", -a1 * kT),
      fmt::arg("v2", -a2 * kT));
}

test::RecordedRun run_stack(bool between_points, double push) {
  return test::run_and_record(
      parse_model(stack_with_dry_floor(between_points, push), "stack.yaml"),
      {"floor.x", "floor.v", "top.x", "top.v", "floor_friction.friction_force",
       "floor_friction.mode", "top.friction", "top.friction_mode", "energy.kinetic",
       "energy.dissipated", "energy.balance"});
}

// Nothing pushes at T: both stick and stay, with zero friction forces (holding
// both takes none), and the initial kinetic energy is all dissipated.
void expect_both_stick_and_stay(bool between_points) {
  const test::RecordedRun r = run_stack(between_points, 0.0);
  const double a1 = (-kFt - kMu2 * kM2 * kG) / kM1;  // -34.335 m/s^2
  const double a2 = kMu2 * kG - a1;                  // 39.24 m/s^2
  const double v1 = -a1 * kT, v2 = -a2 * kT;
  int sticks = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end") continue;
    EXPECT_EQ(e.kind, "stick") << e.name << " at " << e.t << ": " << e.detail;
    EXPECT_NEAR(e.t, kT, 1e-12) << e.name;
    ++sticks;
  }
  EXPECT_EQ(sticks, 2);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (t < kT - 1e-9) {
      EXPECT_NEAR(r["floor.v"][k], v1 + a1 * t, 1e-9) << t;
      EXPECT_NEAR(r["top.v"][k], v2 + a2 * t, 1e-9) << t;
      EXPECT_NEAR(r["floor_friction.friction_force"][k], -kFt, 1e-9) << t;
    } else if (t > kT + 1e-9) {  // after the event (its left limit is recorded too)
      EXPECT_NEAR(r["floor.x"][k], v1 * kT / 2, 1e-9) << t;
      EXPECT_NEAR(r["top.x"][k], v2 * kT / 2, 1e-9) << t;
      EXPECT_NEAR(r["floor.v"][k], 0.0, 1e-12) << t;
      EXPECT_NEAR(r["top.v"][k], 0.0, 1e-12) << t;
      EXPECT_NEAR(r["floor_friction.friction_force"][k], 0.0, 1e-9) << t;
      EXPECT_NEAR(r["top.friction"][k], 0.0, 1e-9) << t;
      EXPECT_EQ(r["floor_friction.mode"][k], 0.0) << t;
      EXPECT_EQ(r["top.friction_mode"][k], 0.0) << t;
    }
  }
  const double kinetic0 = 0.5 * kM1 * v1 * v1 + 0.5 * kM2 * (v1 + v2) * (v1 + v2);
  EXPECT_NEAR(r.final("energy.dissipated"), kinetic0, 1e-9);
  EXPECT_LT(r.final("energy.kinetic"), 1e-20);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

TEST(CoupledDryFriction, DryFloorAndFrictionalGuideStoppingTogetherBothStick) {
  expect_both_stick_and_stay(false);
}

TEST(CoupledDryFriction, DryStrutBetweenPointsAndFrictionalGuideStoppingTogetherBothStick) {
  expect_both_stick_and_stay(true);
}

// With a push P = 17 N on the upper block, holding both needs P > fT at the
// floor. Of the nine combinations (each element stuck, or slipping either
// way) only one is consistent: the floor slips on forward with the upper
// guide stuck,
//   (m1 + m2) a = P - fT,  a = 0.457 m/s^2,  top friction m2 a - P = -15.172 N,
// within mu2 m2 g = 19.62 N. With the floor slipping forward, the upper
// guide slipping forward would accelerate backward (x2'' = -5.56 m/s^2) and
// slipping backward would throw the lower block back (x1'' = -34.3 m/s^2);
// the floor stuck would need 17 N > fT; slipping backward it would
// accelerate forward.
TEST(CoupledDryFriction, APushedPairSlipsOnAtTheDryFloorWithTheGuideStuck) {
  constexpr double kPush = 17;
  const test::RecordedRun r = run_stack(false, kPush);
  const double a1 = (-kFt - kMu2 * kM2 * kG) / kM1;
  const double a2 = kMu2 * kG + kPush / kM2 - a1;
  const double v1 = -a1 * kT, v2 = -a2 * kT;
  const double a = (kPush - kFt) / (kM1 + kM2);
  int switches = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end") continue;
    EXPECT_NEAR(e.t, kT, 1e-12) << e.name;
    EXPECT_EQ(e.kind, e.name == "top.friction" ? "stick" : "slip") << e.name << ": " << e.detail;
    ++switches;
  }
  EXPECT_EQ(switches, 2);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (!(t > kT + 1e-9)) continue;
    const double s = t - kT;
    EXPECT_NEAR(r["floor.x"][k], v1 * kT / 2 + a * s * s / 2, 1e-9) << t;
    EXPECT_NEAR(r["floor.v"][k], a * s, 1e-9) << t;
    EXPECT_NEAR(r["top.x"][k], v2 * kT / 2, 1e-9) << t;
    EXPECT_NEAR(r["top.v"][k], 0.0, 1e-12) << t;
    EXPECT_NEAR(r["floor_friction.friction_force"][k], -kFt, 1e-9) << t;
    EXPECT_NEAR(r["top.friction"][k], kM2 * a - kPush, 1e-9) << t;
    EXPECT_EQ(r["floor_friction.mode"][k], 1.0) << t;
    EXPECT_EQ(r["top.friction_mode"][k], 0.0) << t;
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// Two dry-friction elements on one pendulum's pivot (f1 + f2 = 0.7 N m)
// reach zero rate together at each turn and are decided together. A
// pendulum (m 1 kg, its centre l = 0.5 m from the pivot) released at
// 0.3 rad from the vertical turns where the potential energy released
// equals the friction work,
//   m g l (cos th1 - cos th0) = (f1 + f2) (th0 - th1),
// at th1 = -0.0124 rad, and sticks there: gravity's moment m g l sin th1 =
// -0.061 N m is within the limits. A single chain goes through the tree
// solver; the elements' responses to a unit friction moment came from
// `solver`, which then held S of the pendulum at its release, and the pair
// was turned round at every turn instead (1,510 reversals in 3 s, creeping
// at 1.6 mrad/s).
TEST(CoupledDryFriction, TwoDryElementsOnAPendulumsPivotStopItAtItsFirstTurn) {
  constexpr double kTheta0 = 0.3, kF1 = 0.5, kF2 = 0.2, kMgl = 1.0 * kG * 0.5;
  const std::string text = fmt::format(
      R"(ictus: 1
gravity: [0, -{g}, 0]
bodies:
  bob: {{mass: 1, inertia: [0.01, 0.01, 0.01], position: [{x}, {y}, 0],
         orientation: {{axis: [0, 0, 1], angle: {th}}}}}
joints:
  pivot: {{type: revolute, between: [ground, bob], at: [0, 0, 0], axis: [0, 0, 1]}}
forces:
  first: {{type: rotational_spring_damper, joint: pivot, dry_friction: {f1}}}
  second: {{type: rotational_spring_damper, joint: pivot, dry_friction: {f2}}}
simulate: {{until: 2, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
      fmt::arg("g", kG), fmt::arg("x", 0.5 * std::sin(kTheta0)),
      fmt::arg("y", -0.5 * std::cos(kTheta0)), fmt::arg("th", kTheta0), fmt::arg("f1", kF1),
      fmt::arg("f2", kF2));
  const test::RecordedRun r =
      test::run_and_record(parse_model(text, "pendulum.yaml"),
                           {"pivot.angle", "pivot.omega", "first.friction_force",
                            "second.friction_force", "energy.dissipated", "energy.balance"});
  // the turn: the root of the energy balance below th0 (bisection)
  auto balance = [&](double th) {
    return kMgl * (std::cos(th) - std::cos(kTheta0)) - (kF1 + kF2) * (kTheta0 - th);
  };
  double lo = -kTheta0, hi = 0.0;  // balance(lo) < 0 < balance(hi)
  for (int i = 0; i < 200; ++i) (balance(0.5 * (lo + hi)) < 0.0 ? lo : hi) = 0.5 * (lo + hi);
  const double theta1 = 0.5 * (lo + hi);
  ASSERT_NEAR(theta1, -0.0124, 1e-4);

  int sticks = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end" || e.kind == "warning") continue;
    if (e.t == 0.0) {
      EXPECT_EQ(e.kind, "slip") << e.name << ": " << e.detail;
    } else {
      EXPECT_EQ(e.kind, "stick") << e.name << " at " << e.t << ": " << e.detail;
      ++sticks;
    }
  }
  EXPECT_EQ(sticks, 2);
  EXPECT_NEAR(r.final("pivot.angle"), theta1 - kTheta0, 1e-9);
  EXPECT_LT(std::abs(r.final("pivot.omega")), 1e-12);
  // at rest the friction moments hold gravity's, each within its limit
  EXPECT_NEAR(r.final("first.friction_force") + r.final("second.friction_force"),
              kMgl * std::sin(theta1), 1e-9);
  EXPECT_LE(std::abs(r.final("first.friction_force")), kF1 + 1e-12);
  EXPECT_LE(std::abs(r.final("second.friction_force")), kF2 + 1e-12);
  // the energy lost is the friction work
  EXPECT_NEAR(r.final("energy.dissipated"), (kF1 + kF2) * (kTheta0 - theta1), 1e-9);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

}  // namespace
}  // namespace ictus
