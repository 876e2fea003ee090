// Two frictional guides whose slips stop at the same instant, decided
// together (docs/theory/friction.md, "Several at zero rate";
// tests/models/stacked_blocks_friction.yaml). A lower block (m1) slides
// forward on the floor (mu1) and carries an upper block (m2) sliding backward
// on it (mu2). With both slipping,
//   m1 x1'' = -mu1 (m1 + m2) g - mu2 m2 g,   m2 (x1'' + x2'') = mu2 m2 g,
// constant, and the model's initial rates make both stop at t = T = 0.1 s.
// Nothing pushes there, so both stay stuck with zero friction forces.
//
// Why the decision must be joint: the upper guide's kinetic force of the slip
// that just ended pushes the lower block back with mu2 m2 g = 19.62 N, more
// than the floor holds, mu1 (m1 + m2) g = 14.715 N. Deciding the floor first
// with that force sets the lower block slipping back; the upper guide then
// sticks, and the floor's kinetic force (+14.715 N, on a block set to slip
// backwards) drives the pair forward from rest: energy from nothing.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kM1 = 1, kM2 = 4, kMu1 = 0.3, kMu2 = 0.5, kT = 0.1, kG = 9.81;

TEST(CoupledFriction, TwoGuidesStoppingTogetherBothStickAndStayAtRest) {
  const test::RecordedRun r = test::run_and_record(
      load_model(test::source_path("tests/models/stacked_blocks_friction.yaml")),
      {"floor.x", "floor.v", "top.x", "top.v", "floor.friction", "top.friction",
       "floor.friction_mode", "top.friction_mode", "energy.kinetic", "energy.dissipated",
       "energy.balance"});
  const double a1 = (-kMu1 * (kM1 + kM2) * kG - kMu2 * kM2 * kG) / kM1;  // -34.335 m/s^2
  const double a2 = kMu2 * kG - a1;                                      // 39.24 m/s^2
  const double v1 = -a1 * kT, v2 = -a2 * kT;
  // the two stick events, at T, and nothing else until the end
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
    } else if (t > kT + 1e-9) {  // after the event (its left limit is recorded too)
      // at rest where both slips stopped: x1 = v1 T / 2, x2 = v2 T / 2
      EXPECT_NEAR(r["floor.x"][k], v1 * kT / 2, 1e-9) << t;
      EXPECT_NEAR(r["top.x"][k], v2 * kT / 2, 1e-9) << t;
      EXPECT_NEAR(r["floor.v"][k], 0.0, 1e-12) << t;
      EXPECT_NEAR(r["top.v"][k], 0.0, 1e-12) << t;
      EXPECT_NEAR(r["floor.friction"][k], 0.0, 1e-9) << t;
      EXPECT_NEAR(r["top.friction"][k], 0.0, 1e-9) << t;
      EXPECT_EQ(r["floor.friction_mode"][k], 0.0) << t;
      EXPECT_EQ(r["top.friction_mode"][k], 0.0) << t;
    }
  }
  // the initial kinetic energy, all dissipated by the two guides
  const double kinetic0 = 0.5 * kM1 * v1 * v1 + 0.5 * kM2 * (v1 + v2) * (v1 + v2);
  EXPECT_NEAR(r.final("energy.dissipated"), kinetic0, 1e-9);
  EXPECT_LT(r.final("energy.kinetic"), 1e-20);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// With a push P = 17 N on the upper block (and the initial rates that still
// stop both slips at T) the pair cannot stay: holding both needs 17 N at the
// floor, above mu1 (m1 + m2) g = 14.715 N. The only consistent combination
// is the floor slipping on forward with the upper guide stuck:
//   (m1 + m2) a = P - mu1 (m1 + m2) g,  a = 0.457 m/s^2,
//   top friction = m2 a - P = -15.172 N, within mu2 m2 g = 19.62 N;
// the upper guide slipping either way accelerates against its slip.
TEST(CoupledFriction, APushedPairSlipsOnTogetherWithTheUpperGuideStuck) {
  constexpr double kPush = 17;
  const test::RecordedRun r = test::run_and_record(
      load_model(test::source_path("tests/models/stacked_blocks_friction.yaml"), {{"P", "17"}}),
      {"floor.x", "floor.v", "top.x", "top.v", "floor.friction", "top.friction",
       "floor.friction_mode", "top.friction_mode", "energy.balance"});
  const double a1 = (-kMu1 * (kM1 + kM2) * kG - kMu2 * kM2 * kG) / kM1;
  const double a2 = kMu2 * kG + kPush / kM2 - a1;
  const double v1 = -a1 * kT, v2 = -a2 * kT;
  const double a = (kPush - kMu1 * (kM1 + kM2) * kG) / (kM1 + kM2);
  int switches = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end") continue;
    EXPECT_NEAR(e.t, kT, 1e-12) << e.name;
    // the floor slips on forward, the upper guide sticks
    EXPECT_EQ(e.kind, e.name == "top.friction" ? "stick" : "slip") << e.name << ": " << e.detail;
    ++switches;
  }
  EXPECT_EQ(switches, 2);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (!(t > kT + 1e-9)) continue;  // after the event (its left limit is recorded too)
    const double s = t - kT;
    EXPECT_NEAR(r["floor.x"][k], v1 * kT / 2 + a * s * s / 2, 1e-9) << t;
    EXPECT_NEAR(r["floor.v"][k], a * s, 1e-9) << t;
    EXPECT_NEAR(r["top.x"][k], v2 * kT / 2, 1e-9) << t;
    EXPECT_NEAR(r["top.v"][k], 0.0, 1e-12) << t;
    EXPECT_NEAR(r["floor.friction"][k], -kMu1 * (kM1 + kM2) * kG, 1e-9) << t;
    EXPECT_NEAR(r["top.friction"][k], kM2 * a - kPush, 1e-9) << t;
    EXPECT_EQ(r["floor.friction_mode"][k], 1.0) << t;
    EXPECT_EQ(r["top.friction_mode"][k], 0.0) << t;
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// Seven guides: a stack of seven blocks, guide i (friction mu_i) between
// block i and the one below it, sliding alternately forward and backward,
// all stopping at T = 0.1 s. With slip signs s_i and N_i = g sum_{j>=i} m_j,
//   m_i a_i = -mu_i N_i s_i + mu_{i+1} N_{i+1} s_{i+1},   u_i'' = a_i - a_{i-1},
// constant, and u_i'(0) = -u_i'' T. At T nothing pushes: all seven stick and
// stay. Seven elements were beyond the joint decision (at most 6), and one
// after the other they set the stack moving again (1.9 J of kinetic energy
// from rest at 0.3 s).
constexpr std::array<double, 7> kStackMass = {1, 4, 1, 4, 1, 4, 4};
constexpr std::array<double, 7> kStackMu = {0.3, 0.5, 0.3, 0.5, 0.3, 0.5, 0.5};

std::string seven_block_stack(std::array<double, 7>& rates) {
  const std::array<double, 7>& m = kStackMass;
  const std::array<double, 7>& mu = kStackMu;
  std::array<double, 7> a{}, normal{};
  for (int i = 6; i >= 0; --i) normal[i] = kG * m[i] + (i < 6 ? normal[i + 1] : 0.0);
  const auto sign = [](int i) { return i % 2 == 0 ? 1.0 : -1.0; };
  for (int i = 0; i < 7; ++i)
    a[i] =
        (-mu[i] * normal[i] * sign(i) + (i < 6 ? mu[i + 1] * normal[i + 1] * sign(i + 1) : 0.0)) /
        m[i];
  std::string text = "ictus: 1\ngravity: [0, -9.81, 0]\nbodies:\n";
  for (int i = 0; i < 7; ++i)
    text += fmt::format("  b{}: {{mass: {}, inertia: [0.1, 0.1, 0.1], position: [0, {}, 0]}}\n", i,
                        m[i], i);
  text += "joints:\n";
  for (int i = 0; i < 7; ++i)
    text += fmt::format(
        "  g{}: {{type: prismatic, between: [{}, b{}], at: [0, {}, 0], axis: [1, 0, 0], "
        "friction: {}}}\n",
        i, i == 0 ? std::string("ground") : fmt::format("b{}", i - 1), i, i, mu[i]);
  text += "initial_velocities:\n";
  for (int i = 0; i < 7; ++i) {
    rates[i] = -(a[i] - (i > 0 ? a[i - 1] : 0.0)) * kT;
    EXPECT_GT(rates[i] * sign(i), 0.0);  // each slips the way it is set to
    text += fmt::format("  g{}.v: {:.17g}\n", i, rates[i]);
  }
  text += "simulate: {until: 0.3, output_step: 0.001, rtol: 1e-10, atol: 1e-12}\n";
  return text;
}

TEST(CoupledFriction, SevenGuidesStoppingTogetherAllStickAndStayAtRest) {
  std::array<double, 7> rates{};
  const Model model = parse_model(seven_block_stack(rates), "stack.yaml");
  std::vector<std::string> channels = {"energy.kinetic", "energy.dissipated", "energy.balance"};
  for (int i = 0; i < 7; ++i) channels.push_back(fmt::format("g{}.v", i));
  const test::RecordedRun r = test::run_and_record(model, channels);
  int sticks = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end" || (e.kind == "slip" && e.t == 0.0)) continue;
    EXPECT_EQ(e.kind, "stick") << e.name << " at " << e.t << ": " << e.detail;
    EXPECT_NEAR(e.t, kT, 1e-12) << e.name;
    ++sticks;
  }
  EXPECT_EQ(sticks, 7);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    if (r.t[k] <= kT + 1e-9) continue;
    for (int i = 0; i < 7; ++i) EXPECT_NEAR(r[fmt::format("g{}.v", i)][k], 0.0, 1e-12) << r.t[k];
  }
  // the initial kinetic energy, all dissipated by the seven guides
  double velocity = 0.0, kinetic0 = 0.0;
  for (int i = 0; i < 7; ++i) {
    velocity += rates[i];
    kinetic0 += 0.5 * kStackMass[i] * velocity * velocity;
  }
  EXPECT_NEAR(r.final("energy.dissipated"), kinetic0, 1e-9 * kinetic0);
  EXPECT_LT(r.final("energy.kinetic"), 1e-20);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9 * kinetic0);
}

}  // namespace
}  // namespace ictus
