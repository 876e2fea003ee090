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
#include <vector>

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

// A stack of n blocks, guide i (friction mu_i, static mu_static_i) between
// block i and the one below it (block -1: the ground); block i at height i.
// `rates` are the guides' initial slip rates, `push` a force along x on the
// top block.
std::string block_stack(const std::vector<double>& m, const std::vector<double>& mu,
                        const std::vector<double>& mu_static, const std::vector<double>& rates,
                        double push) {
  const std::size_t n = m.size();
  std::string text = "ictus: 1\ngravity: [0, -9.81, 0]\nbodies:\n";
  for (std::size_t i = 0; i < n; ++i)
    text += fmt::format("  b{}: {{mass: {}, inertia: [0.1, 0.1, 0.1], position: [0, {}, 0]}}\n", i,
                        m[i], i);
  text += "joints:\n";
  for (std::size_t i = 0; i < n; ++i)
    text += fmt::format(
        "  g{}: {{type: prismatic, between: [{}, b{}], at: [0, {}, 0], axis: [1, 0, 0], "
        "friction: {{mu: {}, mu_static: {}}}}}\n",
        i, i == 0 ? std::string("ground") : fmt::format("b{}", i - 1), i, i, mu[i], mu_static[i]);
  if (push != 0.0)
    text +=
        fmt::format("forces:\n  push: {{type: force, on: b{}, direction: [1, 0, 0], value: {}}}\n",
                    n - 1, push);
  text += "initial_velocities:\n";
  for (std::size_t i = 0; i < n; ++i) text += fmt::format("  g{}.v: {:.17g}\n", i, rates[i]);
  text += "simulate: {until: 0.3, output_step: 0.001, rtol: 1e-10, atol: 1e-12}\n";
  return text;
}

// Guides sliding alternately forward and backward, all stopping at
// T = 0.1 s. With slip signs s_i and N_i = g sum_{j>=i} m_j,
//   m_i a_i = -mu_i N_i s_i + mu_{i+1} N_{i+1} s_{i+1},   u_i'' = a_i - a_{i-1},
// constant (plus `push` on the top block), and u_i'(0) = -u_i'' T. The
// closed form's initial rates.
std::vector<double> stopping_rates(const std::vector<double>& m, const std::vector<double>& mu,
                                   double push = 0.0) {
  const auto n = static_cast<int>(m.size());
  std::vector<double> a(m.size()), normal(m.size()), rates(m.size());
  for (int i = n - 1; i >= 0; --i) normal[i] = kG * m[i] + (i < n - 1 ? normal[i + 1] : 0.0);
  const auto sign = [](int i) { return i % 2 == 0 ? 1.0 : -1.0; };
  for (int i = 0; i < n; ++i)
    a[i] = (-mu[i] * normal[i] * sign(i) +
            (i < n - 1 ? mu[i + 1] * normal[i + 1] * sign(i + 1) : push)) /
           m[i];
  for (int i = 0; i < n; ++i) {
    rates[i] = -(a[i] - (i > 0 ? a[i - 1] : 0.0)) * kT;
    EXPECT_GT(rates[i] * sign(i), 0.0);  // each slips the way it is set to
  }
  return rates;
}

// At T nothing pushes: all stick and stay.
void expect_all_stick_and_stay(const std::vector<double>& m, const std::vector<double>& mu) {
  const std::size_t n = m.size();
  const std::vector<double> rates = stopping_rates(m, mu);
  const Model model = parse_model(block_stack(m, mu, mu, rates, 0.0), "stack.yaml");
  std::vector<std::string> channels = {"energy.kinetic", "energy.dissipated", "energy.balance"};
  for (std::size_t i = 0; i < n; ++i) channels.push_back(fmt::format("g{}.v", i));
  const test::RecordedRun r = test::run_and_record(model, channels);
  std::size_t sticks = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end" || (e.kind == "slip" && e.t == 0.0)) continue;
    EXPECT_EQ(e.kind, "stick") << e.name << " at " << e.t << ": " << e.detail;
    EXPECT_NEAR(e.t, kT, 1e-12) << e.name;
    ++sticks;
  }
  EXPECT_EQ(sticks, n);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    if (r.t[k] <= kT + 1e-9) continue;
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_NEAR(r[fmt::format("g{}.v", i)][k], 0.0, 1e-12) << r.t[k];
  }
  // the initial kinetic energy, all dissipated by the guides
  double velocity = 0.0, kinetic0 = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    velocity += rates[i];
    kinetic0 += 0.5 * m[i] * velocity * velocity;
  }
  EXPECT_NEAR(r.final("energy.dissipated"), kinetic0, 1e-9 * kinetic0);
  EXPECT_LT(r.final("energy.kinetic"), 1e-20);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9 * kinetic0);
}

// Seven were beyond the first joint decision (at most 6), and one after the
// other they set the stack moving again (1.9 J of kinetic energy from rest
// at 0.3 s).
TEST(CoupledFriction, SevenGuidesStoppingTogetherAllStickAndStayAtRest) {
  expect_all_stick_and_stay({1, 4, 1, 4, 1, 4, 4}, {0.3, 0.5, 0.3, 0.5, 0.3, 0.5, 0.5});
}

// Sixteen, beyond the enumeration (12): decided through the complementarity
// problem (docs/theory/friction.md, "Several at zero rate").
TEST(CoupledFriction, SixteenGuidesStoppingTogetherAllStickAndStayAtRest) {
  std::vector<double> m, mu;
  for (int i = 0; i < 16; ++i) {
    m.push_back(i % 2 == 0 ? 1.0 : 4.0);
    mu.push_back(i % 2 == 0 ? 0.3 : 0.5);
  }
  expect_all_stick_and_stay(m, mu);
}

// The sixteen pushed on the top block with P = 50 N, stopping together at
// T (the push in the closed form before T). Held, guide 14 (m = 1 below
// m = 4; N14 = 5 g) would carry P > mu N14 = 14.715 N; guide 15 slipping
// passes mu N15 = 19.62 N down, still more: both slip on forward, the other
// fourteen stick:
//   u14'' = (mu N15 - mu N14)/m14 = 4.905,  u15'' = (P - mu N15)/m15 - u14'' = 2.69 m/s^2,
// and guide 13 holds mu N14 (the consistent combination with the most
// stuck, found by exhaustive enumeration outside ictus). Decided one after
// the other (each with the kinetic forces of the slips that just ended),
// the stack does not do this.
TEST(CoupledFriction, SixteenGuidesStoppingTogetherUnderAPushTheTopTwoSlipOn) {
  constexpr int kN = 16;
  constexpr double kPush = 50;
  std::vector<double> m, mu;
  for (int i = 0; i < kN; ++i) {
    m.push_back(i % 2 == 0 ? 1.0 : 4.0);
    mu.push_back(i % 2 == 0 ? 0.3 : 0.5);
  }
  const std::vector<double> rates = stopping_rates(m, mu, kPush);
  const Model model = parse_model(block_stack(m, mu, mu, rates, kPush), "stack.yaml");
  std::vector<std::string> channels = {"energy.balance"};
  for (int i = 0; i < kN; ++i) {
    channels.push_back(fmt::format("g{}.v", i));
    channels.push_back(fmt::format("g{}.friction", i));
  }
  const test::RecordedRun r = test::run_and_record(model, channels);
  const double f14 = 0.3 * 5 * kG, f15 = 0.5 * 4 * kG;
  const double a14 = (f15 - f14) / 1, a15 = (kPush - f15) / 4 - a14;
  int switches = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end" || (e.kind == "slip" && e.t == 0.0)) continue;
    EXPECT_NEAR(e.t, kT, 1e-12) << e.name;
    // guide 14 slips on forward; guide 15, slipping backward, turns forward
    const std::string kind = e.name == "g14.friction"   ? "slip"
                             : e.name == "g15.friction" ? "reversal"
                                                        : "stick";
    EXPECT_EQ(e.kind, kind) << e.name << ": " << e.detail;
    ++switches;
  }
  EXPECT_EQ(switches, kN);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (!(t > kT + 1e-9)) continue;  // after the event (its left limit is recorded too)
    for (int i = 0; i < kN; ++i) {
      const double v = i == 14 ? a14 * (t - kT) : i == 15 ? a15 * (t - kT) : 0.0;
      EXPECT_NEAR(r[fmt::format("g{}.v", i)][k], v, 1e-9) << "g" << i << " at " << t;
    }
    EXPECT_NEAR(r["g13.friction"][k], -f14, 1e-9) << t;
    EXPECT_NEAR(r["g14.friction"][k], -f14, 1e-9) << t;
    EXPECT_NEAR(r["g15.friction"][k], -f15, 1e-9) << t;
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// Sixteen unit blocks at rest, N_i = (16 - i) g, all guides mu = 0.5 but two
// weak ones: guide 4 (N = 12 g; mu 0.01, mu_s 0.015) and guide 12 (N = 4 g;
// mu 0.05, mu_s 0.08), and a push P = 5 N on the top block. Held, guide 12
// would carry P > mu_s N = 3.139 N; slipping, it passes its kinetic
// mu N = 1.962 N down, more than guide 4 holds (1.766 N). Both start to
// slip, everything else stays stuck:
//   top four:    4 aC = P - mu12 N12,            aC = 0.7595 m/s^2,
//   middle eight: 8 aB = mu12 N12 - mu4 N4,      aB = 0.0981 m/s^2,
// u4'' = aB and u12'' = aC - aB; the stuck guides carry at most 2.72 N.
// Holding only one of the two is inconsistent (guide 4 would carry
// 1.962 > 1.766 N; guide 12, 5 - 4 (P - mu_s4 N4)/12 = 3.726 > 3.139 N).
TEST(CoupledFriction, APushedStackOfSixteenStartsToSlipAtItsTwoWeakGuides) {
  constexpr int kN = 16;
  constexpr double kPush = 5;
  std::vector<double> m(kN, 1.0), mu(kN, 0.5), mu_static(kN, 0.5), rates(kN, 0.0);
  mu[4] = 0.01;
  mu_static[4] = 0.015;
  mu[12] = 0.05;
  mu_static[12] = 0.08;
  const Model model = parse_model(block_stack(m, mu, mu_static, rates, kPush), "stack.yaml");
  std::vector<std::string> channels = {"energy.balance"};
  for (int i = 0; i < kN; ++i) {
    channels.push_back(fmt::format("g{}.v", i));
    channels.push_back(fmt::format("g{}.friction", i));
  }
  const test::RecordedRun r = test::run_and_record(model, channels);
  const double f4 = mu[4] * 12 * kG, f12 = mu[12] * 4 * kG;
  const double aC = (kPush - f12) / 4, aB = (f12 - f4) / 8;
  int slips = 0, sticks = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end") continue;
    EXPECT_EQ(e.t, 0.0) << e.name << " " << e.kind;
    const bool weak = e.name == "g4.friction" || e.name == "g12.friction";
    EXPECT_EQ(e.kind, weak ? "slip" : "stick") << e.name << ": " << e.detail;
    ++(weak ? slips : sticks);
  }
  EXPECT_EQ(slips, 2);
  EXPECT_EQ(sticks, kN - 2);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    for (int i = 0; i < kN; ++i) {
      const double v = i == 4 ? aB * t : i == 12 ? (aC - aB) * t : 0.0;
      EXPECT_NEAR(r[fmt::format("g{}.v", i)][k], v, 1e-9) << "g" << i << " at " << t;
    }
    if (t > 0.0) {
      EXPECT_NEAR(r["g4.friction"][k], -f4, 1e-9) << t;
      EXPECT_NEAR(r["g12.friction"][k], -f12, 1e-9) << t;
      // within the top four, guide i (12 < i) carries what accelerates the blocks above it
      for (int i = 13; i < kN; ++i)
        EXPECT_NEAR(r[fmt::format("g{}.friction", i)][k], (kN - i) * aC - kPush, 1e-9) << t;
    }
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// The stack of two pushed from rest: the upper block by b t, the floor's
// mu_s1 = 0.4 chosen so that both guides reach their limits at one instant,
// mu_s2 m2 g = mu_s1 (m1 + m2) g = 19.62 N at t_s = 1.962 s. Released
// together, the upper guide's kinetic force mu m2 g = 11.772 N leaves the
// floor within its cone (and below its kinetic 14.715 N: the lower block
// slipping forward would decelerate at once). Only the upper slips; the
// floor was let go with it, ran the lower block backwards under its own
// kinetic friction and fed the motion energy, until a release that relieves
// another stuck it again (ElementSwitching::let_go_together).
TEST(CoupledFriction, TwoGuidesReachingTheirLimitsTogetherOnlyTheUpperSlips) {
  const double b = 10, mu = 0.3, t_s = 2 * kG / b;
  const Model model = parse_model(fmt::format(R"(ictus: 1
gravity: [0, -9.81, 0]
bodies:
  lower: {{mass: {}, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0]}}
  upper: {{mass: {}, inertia: [0.1, 0.1, 0.1], position: [0, 1, 0]}}
joints:
  floor:
    {{type: prismatic, between: [ground, lower], at: [0, 0, 0], axis: [1, 0, 0],
     friction: {{mu: {}, mu_static: 0.4}}}}
  top:
    {{type: prismatic, between: [lower, upper], at: [0, 1, 0], axis: [1, 0, 0],
     friction: {{mu: {}, mu_static: 0.5}}}}
forces:
  push: {{type: force, on: upper, direction: [1, 0, 0], value: {}*t}}
simulate: {{until: 2.5, output_step: 0.01, rtol: 1e-10, atol: 1e-12}}
)",
                                              kM1, kM2, mu, mu, b),
                                  "limits_together.yaml");
  const test::RecordedRun r =
      test::run_and_record(model, {"floor.x", "floor.v", "top.x", "top.v", "floor.friction",
                                   "top.friction", "floor.normal", "energy.balance"});
  ASSERT_DOUBLE_EQ(r.t.back(), 2.5);
  int slips = 0;
  for (const EventRecord& e : r.events) {
    if (e.kind == "end" || e.t == 0.0) continue;
    EXPECT_EQ(e.name, "top.friction") << e.kind << " at " << e.t << ": " << e.detail;
    EXPECT_EQ(e.kind, "slip") << e.name << " at " << e.t;
    EXPECT_NEAR(e.t, t_s, 1e-7) << e.name;
    ++slips;
  }
  EXPECT_EQ(slips, 1);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k], tau = std::max(t - t_s, 0.0);
    EXPECT_NEAR(r["floor.x"][k], 0.0, 1e-12) << t;
    EXPECT_NEAR(r["floor.v"][k], 0.0, 1e-12) << t;
    EXPECT_NEAR(r["top.x"][k],
                t < t_s ? 0.0
                        : b / (6 * kM2) * (t * t * t - t_s * t_s * t_s) -
                              b / (2 * kM2) * t_s * t_s * tau - 0.5 * mu * kG * tau * tau,
                1e-9)
        << t;
    if (t == 0.0 || std::abs(t - t_s) < 1e-6) continue;
    // the floor carries what the upper guide passes on: the push while
    // stuck, its kinetic force after, within mu_s1 (m1 + m2) g
    const double passed = t < t_s ? b * t : mu * kM2 * kG;
    EXPECT_NEAR(r["top.friction"][k], -passed, 1e-9) << t;
    EXPECT_NEAR(r["floor.friction"][k], -passed, 1e-9) << t;
    EXPECT_LE(std::abs(r["floor.friction"][k]), 0.4 * r["floor.normal"][k] * (1 + 1e-9)) << t;
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

}  // namespace
}  // namespace ictus
