// Conditions that cross at, or a moment after, the instant of an event:
// issue 13 defect 3 (a contact that touches at the instant of an impact) and
// issue 9 defect 3 (a second root within the look-ahead). Both are decided
// by the side a condition takes just after an instant (root_finding.h,
// side_just_after; Simulation::side_after).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "ictus/error.h"
#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// --- three balls in a row -------------------------------------------------------
// Ball 1 arrives at 1 m/s at balls 2 and 3, which touch (gap 0) or almost
// touch. Each contact is a point_on_plane row switched on by a condition on
// its gap and released after the impact (restitution e > 0). The impact 1-2
// sets ball 2 moving toward ball 3: the condition of contact 2-3, exactly zero
// until then, crosses at that instant and must fire (before the fix it never
// did, and ball 2 passed through ball 3: 0, 1, 0 instead of 0, 0, 1).
struct BallRow {
  double e;
  std::array<double, 3> m;
  double gap;
};

std::string ball_row_model(const BallRow& c) {
  return fmt::format(R"yaml(
parameters: {{r: 0.1, e: {}, m1: {}, m2: {}, m3: {}, gap: {}}}
bodies:
  b1: {{mass: m1, inertia: [1, 1, 1], position: [-0.5, 0, 0], velocity: [1, 0, 0]}}
  b2: {{mass: m2, inertia: [1, 1, 1], position: [0, 0, 0]}}
  b3: {{mass: m3, inertia: [1, 1, 1], position: [2*r + gap, 0, 0]}}
joints:
  c12:
    type: custom
    between: [b1, b2]
    at: [-r, 0, 0]
    constraints: [{{type: point_on_plane, normal: [1, 0, 0], plane_point: [-0.5 + r, 0, 0]}}]
    restitution: e
    enabled: false
  c23:
    type: custom
    between: [b2, b3]
    at: [r + gap, 0, 0]
    constraints: [{{type: point_on_plane, normal: [1, 0, 0], plane_point: [r, 0, 0]}}]
    restitution: e
    enabled: false
events:
  hit12: {{when: b2.x - b1.x < 2*r, do: {{enable: c12}}, on_false: {{disable: c12}}}}
  hit23: {{when: b3.x - b2.x < 2*r, do: {{enable: c23}}, on_false: {{disable: c23}}}}
simulate: {{until: 1, output_step: 0.25, rtol: 1e-10, atol: 1e-12}}
)yaml",
                     c.e, c.m[0], c.m[1], c.m[2], c.gap);
}

// The closed form: Newton's law for each pair, v_i' = v_i - (1 + e) m_j /
// (m_i + m_j) (v_i - v_j), applied to whichever pair approaches until none
// does (touching balls: the impacts are sequential, 1-2 first).
std::array<double, 3> sequential_impacts(const BallRow& c) {
  std::array<double, 3> v{1.0, 0.0, 0.0};
  for (int k = 0; k < 1000; ++k) {
    bool any = false;
    for (int i = 0; i < 2; ++i) {
      const double approach = v[i] - v[i + 1];
      if (approach <= 1e-15) continue;
      const double mi = c.m[i], mj = c.m[i + 1];
      v[i] -= (1.0 + c.e) * mj / (mi + mj) * approach;
      v[i + 1] += (1.0 + c.e) * mi / (mi + mj) * approach;
      any = true;
    }
    if (!any) break;
  }
  return v;
}

class ThreeBallRow : public ::testing::TestWithParam<BallRow> {};

TEST_P(ThreeBallRow, ContactTouchingAtTheImpactFires) {
  const BallRow c = GetParam();
  const Model model = parse_model(ball_row_model(c), "balls.yaml");
  const test::RecordedRun run = test::run_and_record(model, {"b1.vx", "b2.vx", "b3.vx"});
  const std::array<double, 3> expected = sequential_impacts(c);
  EXPECT_NEAR(run.final("b1.vx"), expected[0], 1e-9);
  EXPECT_NEAR(run.final("b2.vx"), expected[1], 1e-9);
  EXPECT_NEAR(run.final("b3.vx"), expected[2], 1e-9);
  if (c.e == 1.0 && c.m[0] == c.m[1] && c.m[1] == c.m[2]) {
    EXPECT_NEAR(run.final("b1.vx"), 0.0, 1e-12);
    EXPECT_NEAR(run.final("b2.vx"), 0.0, 1e-12);
    EXPECT_NEAR(run.final("b3.vx"), 1.0, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(
    RestitutionsMassesGaps, ThreeBallRow,
    ::testing::Values(BallRow{1.0, {1, 1, 1}, 0.0}, BallRow{1.0, {1, 1, 1}, 1e-6},
                      BallRow{0.5, {1, 1, 1}, 0.0}, BallRow{0.5, {1, 1, 1}, 1e-6},
                      BallRow{1.0, {1, 2, 0.5}, 0.0}, BallRow{1.0, {1, 2, 0.5}, 1e-6},
                      BallRow{0.7, {2, 1, 3}, 0.0}, BallRow{0.7, {2, 1, 3}, 1e-6}));

// --- two conditions a moment apart ------------------------------------------------
// Two log-only conditions whose roots are 5e-10 s apart. Before the fix the
// side of the second was read 1e-9 s past the first event, beyond its own
// root: it was taken as already crossed and never logged (with a sign()
// damping force, whose rate flips at the root, the same misjudgement made
// events fire again and again at one instant until the run was aborted).
TEST(EventFiring, SecondRootWithinTheLookAheadIsLocatedNotSteppedOver) {
  const Model model = parse_model(R"yaml(
bodies:
  b: {mass: 1, inertia: [1, 1, 1], velocity: [1, 0, 0]}
events:
  first: {when: b.x > 0.5, do: []}
  second: {when: b.x > 0.5 + 5e-10, do: []}
simulate: {until: 1, output_step: 0.25}
)yaml",
                                  "two.yaml");
  Simulation simulation(model);
  simulation.run();
  double t_first = -1.0, t_second = -1.0;
  for (const EventRecord& r : simulation.events()) {
    if (r.kind != "event") continue;
    if (r.name == "first") t_first = r.t;
    if (r.name == "second") t_second = r.t;
  }
  EXPECT_NEAR(t_first, 0.5, 1e-12);
  EXPECT_NEAR(t_second, 0.5 + 5e-10, 1e-12);
}

// --- events that never settle ----------------------------------------------------
// A wheel spun up by 1 N m (I = 0.1 kg m^2) is kicked back by 1e-11 N m s each
// time its rate turns positive (to -1e-10 rad/s): it turns positive again
// 1e-11 s later, for ever. Each event is a new instant (the guard for events
// at one instant, 1e-12 s, never fires) and the run advanced 1e-11 s per
// event: it would not end. More than 10000 events each within 1e-9 s of the one before
// stop it with the chattering named (a ball's stuck hold let go and taken
// again every 1e-11 s did the same, tests/acceptance/ball_friction_test.cpp).
TEST(EventFiring, EventsThatFollowEachOtherWithoutEndStopTheRunAsChattering) {
  const Model model = parse_model(R"yaml(
gravity: [0, 0, 0]
bodies:
  wheel: {mass: 1, inertia: [0.1, 0.1, 0.1], angular_velocity: [0, 0, -1e-3]}
joints:
  axle: {type: revolute, between: [ground, wheel], at: [0, 0, 0], axis: [0, 0, 1]}
forces:
  motor: {type: torque, on: wheel, direction: [0, 0, 1], value: 1}
events:
  kick:
    when: axle.omega > 0
    do: {impulse: {on: wheel, angular: [0, 0, -1e-11]}}
simulate: {until: 1, output_step: 0.1}
)yaml",
                                  "kicked_wheel.yaml");
  Simulation simulation(model);
  try {
    simulation.run();
    FAIL() << "the run ended at t = " << simulation.time();
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("10001 events within"), std::string::npos) << what;
    EXPECT_NE(what.find("chattering"), std::string::npos) << what;
    EXPECT_NE(what.find("the last: event kick"), std::string::npos) << what;
    // the wheel reaches zero rate at 1e-4 s; the burst is the 1e-7 s after
    EXPECT_NEAR(e.time(), 1e-4 + 1e-7, 1e-9);
  }
}

// Events that are only frequent are no chattering, whatever the clock
// reads: a 1.11 kHz oscillator whose crossing is logged once a period, run
// from t = 1e6 s (review: a gap of 1e-9 |t|, 1 ms there, stopped it after
// 10000 crossings; the gap is now 1e-9 s or 1e4 times t's round-off).
TEST(EventFiring, FrequentEventsLateInTimeAreNotChattering) {
  const Model model = parse_model(R"yaml(
gravity: [0, 0, 0]
bodies:
  slider: {mass: 1, inertia: [0.1, 0.1, 0.1], velocity: [1, 0, 0]}
joints:
  guide: {type: prismatic, between: [ground, slider], at: [0, 0, 0], axis: [1, 0, 0]}
forces:
  spring: {type: spring_damper, joint: guide, stiffness: 48738787.0, damping: 0, free_position: 0}
events:
  cross: {when: guide.x > 0, do: []}
simulate: {start: 1000000, until: 1000010, output_step: 0.5, rtol: 1e-6, atol: 1e-9}
)yaml",
                                  "late_oscillator.yaml");
  Simulation simulation(model);
  simulation.run();
  EXPECT_DOUBLE_EQ(simulation.time(), 1000010.0);
  int crossings = 0;
  for (const EventRecord& r : simulation.events()) crossings += r.kind == "event" ? 1 : 0;
  // one a period, 2 pi / sqrt(k / m) = 0.9 ms
  EXPECT_NEAR(crossings, 10.0 / (2 * std::numbers::pi / std::sqrt(48738787.0)), 2.0);
}

}  // namespace
}  // namespace ictus
