// An impulse on a block held by static friction in its guide
// (docs/theory/friction.md, "Friction impulses in an impact"): Coulomb's
// law at the impulse level, the friction impulse along the guide at most
// mu_s times the guide's transverse reaction impulse P_N. A block of mass m
// at rest in a horizontal frictional prismatic guide is kicked at t_k by
// (J_x, J_y): P_N = |J_y| (the bilateral guide takes the kick across it,
// whichever side), so it stays stuck while J_x <= mu_s |J_y|, and otherwise
// leaves at v+ = (J_x - mu_s |J_y|) / m, slides with -mu g and sticks after
// v+ / (mu g). Before, the stuck guide's hold row took the kick whole: the
// block never moved. A block slipping when it is kicked takes mu |J_y|
// (kinetic) against its rate after the kick, and two stacked guides give
// way together (docs/theory/friction.md, "Friction impulses in an impact").
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kMass = 2.0, kMu = 0.3, kMuStatic = 0.4, kG = 9.81, kKick = 0.1;

constexpr const char* kKickedBlock = R"(ictus: 1
name: block stuck in a frictional guide, kicked
parameters: {m: 2, Jx: 3, Jy: 0, v0: 0}
gravity: [0, -9.81, 0]
bodies:
  block: {mass: m, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0]}
joints:
  guide:
    type: prismatic
    between: [ground, block]
    at: [0, 0, 0]
    axis: [1, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4}
initial_velocities: {guide.v: v0}
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: block, linear: [Jx, Jy, 0]}}
    once: true
simulate: {until: 1, output_step: 0.01, max_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";

test::RecordedRun kick(double jx, double jy, double v0 = 0.0) {
  return test::run_and_record(parse_model(kKickedBlock, "kicked block",
                                          {{"Jx", fmt::format("{}", jx)},
                                           {"Jy", fmt::format("{}", jy)},
                                           {"v0", fmt::format("{}", v0)}}),
                              {"block.x", "block.vx", "block.y", "guide.friction_mode",
                               "energy.balance", "energy.dissipated"});
}

// The guide's switches after the start (where its starting mode is logged)
int count_events(const test::RecordedRun& r, const std::string& kind) {
  return static_cast<int>(
      std::count_if(r.events.begin(), r.events.end(), [&](const EventRecord& e) {
        return e.t > 0.0 && e.kind == kind && e.name == "guide.friction";
      }));
}

// Leaves at v_plus at the kick, slides with -mu g, sticks: the closed form,
// the slip and the stick logged, the energy audit closed.
void expect_slides_off_and_sticks(const test::RecordedRun& r, double v_plus) {
  const double t_stop = kKick + v_plus / (kMu * kG);
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double s = std::clamp(r.t[k], kKick, t_stop) - kKick;
    EXPECT_NEAR(r["block.x"][k], v_plus * s - 0.5 * kMu * kG * s * s, 1e-9) << r.t[k];
    if (std::abs(r.t[k] - kKick) > 1e-9 && std::abs(r.t[k] - t_stop) > 1e-9) {
      EXPECT_NEAR(r["block.vx"][k], r.t[k] < kKick ? 0.0 : v_plus - kMu * kG * s, 1e-9) << r.t[k];
    }
    EXPECT_NEAR(r["block.y"][k], 0.0, 1e-12);
  }
  EXPECT_NEAR(r.final("block.x"), v_plus * v_plus / (2.0 * kMu * kG), 1e-9);
  EXPECT_EQ(r.final("guide.friction_mode"), 0.0);
  EXPECT_EQ(count_events(r, "slip"), 1);
  EXPECT_EQ(count_events(r, "stick"), 1);
  for (const EventRecord& e : r.events) {
    if (e.name == "guide.friction" && e.kind == "slip") {
      EXPECT_NEAR(e.t, kKick, 1e-12);
    }
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

TEST(JointFrictionImpulse, AKickAlongTheGuideWithNothingAcrossItSlidesTheBlockOff) {
  const double jx = 3.0;
  const test::RecordedRun r = kick(jx, 0.0);  // P_N = 0: nothing holds the kick
  expect_slides_off_and_sticks(r, jx / kMass);
  // the kinetic energy J^2 / (2 m) the kick gave is what the guide's friction dissipates
  EXPECT_NEAR(r.final("energy.dissipated"), jx * jx / (2.0 * kMass), 1e-9);
}

TEST(JointFrictionImpulse, AKickPressingAcrossTheGuideIsHeldUpToMuStaticTimesIt) {
  // J_x = 3 <= mu_s |J_y| = 4, pressed down into the guide or pulled up out of it
  for (const double jy : {-10.0, 10.0}) {
    const test::RecordedRun r = kick(3.0, jy);
    EXPECT_EQ(r.max_abs("block.x"), 0.0) << jy;
    EXPECT_EQ(r.max_abs("block.vx"), 0.0) << jy;
    EXPECT_EQ(count_events(r, "slip"), 0) << jy;
    EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  }
}

TEST(JointFrictionImpulse, AKickBeyondMuStaticTimesThePressLeavesWithWhatFrictionLeaves) {
  const double jx = 6.0, jy = -10.0;
  const test::RecordedRun r = kick(jx, jy);
  const double v_plus = (jx - kMuStatic * std::abs(jy)) / kMass;  // 1 m/s
  expect_slides_off_and_sticks(r, v_plus);
  // the impact took the friction impulse's work, mu_s |J_y| times the mean
  // slip speed v+/2; the slide then dissipates m v+^2 / 2
  EXPECT_NEAR(r.final("energy.dissipated"),
              kMuStatic * std::abs(jy) * v_plus / 2.0 + kMass * v_plus * v_plus / 2.0, 1e-9);
}

// A test model with a kick at t_k appended: `impulse` the action's body and
// linear impulse.
Model kicked(const std::string& model, const std::string& impulse,
             const ParameterOverrides& overrides) {
  std::ifstream in(test::source_path(model));
  std::stringstream text;
  text << in.rdbuf() << "events:\n  kick:\n    when: t >= 0.1\n    do: {impulse: " << impulse
       << "}\n    once: true\n";
  return parse_model(text.str(), model, overrides);
}

// --- a block slipping in the guide when it is kicked ------------------------

// Slides at v0 from t = 0 with -mu g, kicked at t_k: v+ after the kick,
// then slides with -sgn(v+) mu g and sticks. x(t), v(t) and the guide's
// switches against that closed form.
void expect_kicked_while_slipping(const test::RecordedRun& r, double v0, double v_plus,
                                  const std::string& switch_at_kick) {
  const double a = kMu * kG;
  const double v_kick = v0 - a * kKick, x_kick = v0 * kKick - 0.5 * a * kKick * kKick;
  const double direction = v_plus >= 0.0 ? 1.0 : -1.0;
  const double t_stop = kKick + std::abs(v_plus) / a;
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (t < kKick - 1e-9) {
      EXPECT_NEAR(r["block.x"][k], v0 * t - 0.5 * a * t * t, 1e-9) << t;
      EXPECT_NEAR(r["block.vx"][k], v0 - a * t, 1e-9) << t;
    } else if (t > kKick + 1e-9) {
      const double s = std::min(t, t_stop) - kKick;
      EXPECT_NEAR(r["block.x"][k], x_kick + v_plus * s - direction * 0.5 * a * s * s, 1e-9) << t;
      if (std::abs(t - t_stop) > 1e-9) {
        EXPECT_NEAR(r["block.vx"][k], v_plus - direction * a * s, 1e-9) << t;
      }
    }
  }
  EXPECT_GT(v_kick, 0.0);
  EXPECT_EQ(r.final("guide.friction_mode"), 0.0);
  // the switch at the kick ("" none)
  int at_kick = 0;
  bool logged = false;
  for (const EventRecord& e : r.events)
    if (e.name == "guide.friction" && std::abs(e.t - kKick) < 1e-12) {
      ++at_kick;
      logged = logged || e.kind == switch_at_kick;
    }
  if (switch_at_kick.empty()) {
    EXPECT_EQ(at_kick, 0);
  } else {
    EXPECT_TRUE(logged) << switch_at_kick;
  }
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// Pressed across the guide by J_y, the slipping block takes mu |J_y| along
// it (kinetic: it is moving): v+ = v - mu |J_y| / m.
TEST(JointFrictionImpulse, ASlippingBlockPressedAcrossTheGuideLosesMuTimesThePress) {
  const double v0 = 1.0, jy = -2.0;
  const double v_kick = v0 - kMu * kG * kKick;
  const test::RecordedRun r = kick(0.0, jy, v0);
  expect_kicked_while_slipping(r, v0, v_kick - kMu * std::abs(jy) / kMass, "");
  EXPECT_EQ(count_events(r, "stick"), 1);
  EXPECT_EQ(count_events(r, "reversal"), 0);
}

// mu |J_y| = 3 N s exceeds the block's momentum m v = 1.41 N s: it stops in
// the impact, and static friction holds it from there.
TEST(JointFrictionImpulse, ASlippingBlockPressedHardEnoughStopsInTheImpact) {
  const test::RecordedRun r = kick(0.0, -10.0, 1.0);
  expect_kicked_while_slipping(r, 1.0, 0.0, "stick");
  EXPECT_EQ(count_events(r, "stick"), 1);
}

// Kicked back along the guide by 6 N s and across by 10: without friction
// it would leave at v - 3 m/s; mu |J_y| = 3 N s against that leaves it
// slipping back at v - 1.5 m/s, a reversal.
TEST(JointFrictionImpulse, AKickThatTurnsASlippingBlockRoundTakesTheFrictionAgainstItsNewRate) {
  const double v0 = 1.0;
  const double v_kick = v0 - kMu * kG * kKick;
  const test::RecordedRun r = kick(-6.0, -10.0, v0);
  expect_kicked_while_slipping(r, v0, v_kick - 6.0 / kMass + kMu * 10.0 / kMass, "reversal");
  EXPECT_EQ(count_events(r, "reversal"), 1);
}

// Two blocks in guides of their own, kicked in one event: a, at rest, by
// (3, -10) N s, which its static friction holds (mu_s 10 = 4 N s); b,
// slipping at 1 m/s, by (0, -2) N s, which slows it by mu 2 / m. Their
// friction impulses do not reach each other: b's is decided alone, and a
// keeps the hold impulse of the impact as first solved (-3 N s), exactly.
TEST(JointFrictionImpulse, GuidesThatDoNotReachEachOtherAreDecidedApart) {
  constexpr const char* kTwoBlocks = R"(ictus: 1
name: two blocks in their own frictional guides, kicked together
gravity: [0, -9.81, 0]
bodies:
  a: {mass: 2, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0]}
  b: {mass: 2, inertia: [0.1, 0.1, 0.1], position: [0, 0, 1]}
joints:
  guide_a:
    type: prismatic
    between: [ground, a]
    at: [0, 0, 0]
    axis: [1, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4}
  guide_b:
    type: prismatic
    between: [ground, b]
    at: [0, 0, 1]
    axis: [1, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4}
initial_velocities: {guide_b.v: 1}
events:
  kick:
    when: t >= 0.1
    do: [{impulse: {on: a, linear: [3, -10, 0]}}, {impulse: {on: b, linear: [0, -2, 0]}}]
    once: true
simulate: {until: 0.5, output_step: 0.01, max_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";
  const test::RecordedRun r = test::run_and_record(
      parse_model(kTwoBlocks, "two blocks", {}),
      {"a.x", "a.vx", "b.x", "guide_a.friction_mode", "guide_b.friction_mode", "energy.balance"});
  EXPECT_EQ(r.max_abs("a.x"), 0.0);
  EXPECT_EQ(r.max_abs("a.vx"), 0.0);
  EXPECT_EQ(r.final("guide_a.friction_mode"), 0.0);
  const double a = kMu * kG, v_kick = 1.0 - a * kKick, v_plus = v_kick - kMu * 2.0 / kMass;
  const double x_kick = kKick - 0.5 * a * kKick * kKick;
  EXPECT_NEAR(r.final("b.x"), x_kick + v_plus * v_plus / (2.0 * a), 1e-9);
  EXPECT_EQ(r.final("guide_b.friction_mode"), 0.0);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
  bool logged = false;
  for (const EventRecord& e : r.events)
    if (e.kind == "impact")
      logged = e.detail.find("guide_a.friction.stick=-3,") != std::string::npos &&
               e.detail.find("guide_b.friction.slip=-0.6") != std::string::npos;
  EXPECT_TRUE(logged);
}

// Two blocks stacked in frictional guides (tests/models/stacked_blocks_friction.yaml:
// m1 = 1 kg below on mu1 = 0.3, m2 = 4 kg above on mu2 = 0.5) at rest, the
// upper kicked by (20, -10) N s: both guides take 10 N s across, the upper
// guide's friction impulse mu2 10 = 5 N s drags the lower block, whose guide
// holds back mu1 10 = 3 N s. Both give way: the lower leaves at 2 m/s, the
// upper at (20 - 5) / 4 = 3.75 m/s (1.75 m/s on the lower). Then the upper
// slides back on the lower at -mu2 g - 4.905 = -9.81 m/s^2 and sticks after
// 1.75 / 9.81 s, the lower speeding up at (mu2 m2 - mu1 (m1 + m2)) g / m1 =
// 4.905 m/s^2; together they slow at mu1 g.
TEST(JointFrictionImpulse, TwoStuckGuidesKickedGiveWayTogether) {
  const double m1 = 1.0, m2 = 4.0, mu1 = 0.3, mu2 = 0.5;
  const test::RecordedRun r = test::run_and_record(
      kicked("tests/models/stacked_blocks_friction.yaml", "{on: upper, linear: [20, -10, 0]}",
             {{"T", "0"}}),
      {"floor.x", "floor.v", "top.x", "top.v", "top.friction_mode", "energy.balance"});
  const double a_lower = (mu2 * m2 - mu1 * (m1 + m2)) * kG / m1;
  const double a_relative = -mu2 * kG - a_lower;
  const double v1 = 2.0, v2 = 1.75;
  const double t_stick = kKick - v2 / a_relative;
  const double x_stick = v1 * (t_stick - kKick) + 0.5 * a_lower * std::pow(t_stick - kKick, 2);
  const double v_stick = v1 + a_lower * (t_stick - kKick);
  ASSERT_LT(t_stick, r.t.back());
  for (std::size_t k = 0; k < r.t.size(); ++k) {
    const double t = r.t[k];
    if (t < kKick - 1e-9) {
      EXPECT_EQ(r["floor.x"][k], 0.0) << t;
      EXPECT_EQ(r["top.x"][k], 0.0) << t;
    } else if (t > kKick + 1e-9) {
      const double s = std::min(t, t_stick) - kKick;
      EXPECT_NEAR(r["top.x"][k], v2 * s + 0.5 * a_relative * s * s, 1e-9) << t;
      if (t <= t_stick) {
        EXPECT_NEAR(r["floor.x"][k], v1 * s + 0.5 * a_lower * s * s, 1e-9) << t;
      } else {
        const double u = t - t_stick;
        EXPECT_NEAR(r["floor.x"][k], x_stick + v_stick * u - 0.5 * mu1 * kG * u * u, 1e-9) << t;
      }
    }
  }
  EXPECT_EQ(r.final("top.friction_mode"), 0.0);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-9);
}

// The ladder (tests/models/ladder_friction.yaml: m = 10 kg, L = 2 m, the
// foot on the floor with mu1 = 0.3, the top on the wall with mu2 = 0.2) at
// rest at 0.4 rad from the wall, where it stays stuck: its two stuck joints
// hold one motion (one hold row dependent). Kicked at its centre by
// (-200, 0) N s, both give way. The outcome is checked against the ladder's
// own impulse balance: with the rates after the kick s_f, s_t, the foot's
// reaction impulse (F_f, N_f), F_f = -s_f mu1 |N_f|, and the top's (N_t,
// F_t), F_t = -s_t mu2 |N_t|, the two linear momentum equations give N_f
// and N_t, and the angular one must then hold too.
TEST(JointFrictionImpulse, AStuckLadderKickedGivesWayAtBothJointsWithCoulombsLaw) {
  const double m = 10.0, L = 2.0, mu1 = 0.3, mu2 = 0.2, th0 = 0.4, Jx = -200.0;
  const test::RecordedRun r = test::run_and_record(
      kicked("tests/models/ladder_friction.yaml", "{on: ladder, linear: [-200, 0, 0]}",
             {{"w0", "0"}, {"th0", "0.4"}}),
      {"ladder.vx", "ladder.vy", "ladder.wz", "foot.v", "top.v", "energy.balance"});
  std::size_t k = 0;
  while (r.t[k] < kKick - 1e-9) ++k;
  while (r.t[k + 1] <= kKick + 1e-9) ++k;  // the sample just after the kick
  const double vx = r["ladder.vx"][k], vy = r["ladder.vy"][k], wz = r["ladder.wz"][k];
  const double s_f = r["foot.v"][k] > 0.0 ? 1.0 : -1.0, s_t = r["top.v"][k] > 0.0 ? 1.0 : -1.0;
  ASSERT_GT(std::abs(r["foot.v"][k]), 1e-3);
  ASSERT_GT(std::abs(r["top.v"][k]), 1e-3);
  // the foot A, the top B, relative to the centre
  const double ax = 0.5 * L * std::sin(th0), ay = -0.5 * L * std::cos(th0);
  const double bx = -ax, by = -ay;
  bool found = false;
  for (const double sigma_f : {1.0, -1.0})
    for (const double sigma_t : {1.0, -1.0}) {
      // (-s_f mu1 sigma_f) N_f + N_t = m vx - Jx;  N_f + (-s_t mu2 sigma_t) N_t = m vy
      const double a = -s_f * mu1 * sigma_f, d = -s_t * mu2 * sigma_t;
      const double det = a * d - 1.0;
      const double N_f = ((m * vx - Jx) * d - m * vy) / det;
      const double N_t = (a * m * vy - (m * vx - Jx)) / det;
      if (sigma_f * N_f < 0.0 || sigma_t * N_t < 0.0) continue;
      const double F_f = a * N_f, F_t = d * N_t;
      const double moment = ax * N_f - ay * F_f + bx * F_t - by * N_t;
      EXPECT_NEAR(m * L * L / 12.0 * wz, moment, 1e-9 * std::abs(Jx) * L);
      found = true;
    }
  EXPECT_TRUE(found);
  EXPECT_LT(r.max_abs("energy.balance"), 1e-7);
}

// The ladder slipping down (w0 = 0.5 rad/s at 0.6 rad) kicked by
// (-30, -200) N s: the kick stops it in the impact, both joints stuck with
// impulses that are one choice among many (one motion held twice). Before,
// the run stopped ("not determined"); now the velocities after are zero,
// and the ladder, beyond the angle where friction can hold it (0.568 rad),
// slides on from rest.
TEST(JointFrictionImpulse, ASlippingLadderKickedToRestStopsInTheImpact) {
  const test::RecordedRun r = test::run_and_record(
      kicked("tests/models/ladder_friction.yaml", "{on: ladder, linear: [-30, -200, 0]}", {}),
      {"ladder.vx", "ladder.vy", "ladder.wz", "energy.balance"});
  std::size_t k = 0;
  while (r.t[k] < kKick - 1e-9) ++k;
  while (r.t[k + 1] <= kKick + 1e-9) ++k;
  EXPECT_GT(std::abs(r["ladder.wz"][k - 1]), 0.1);  // moving before
  EXPECT_LT(std::abs(r["ladder.vx"][k]), 1e-12);
  EXPECT_LT(std::abs(r["ladder.vy"][k]), 1e-12);
  EXPECT_LT(std::abs(r["ladder.wz"][k]), 1e-12);
  EXPECT_GT(std::abs(r.final("ladder.wz")), 0.1);  // sliding on
  bool non_unique = false;
  for (const EventRecord& e : r.events)
    if (e.kind == "impact")
      non_unique = e.detail.find("impulses of foot, top are not") != std::string::npos;
  EXPECT_TRUE(non_unique);
}

}  // namespace
}  // namespace ictus
