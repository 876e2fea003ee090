// Joint limits as unilateral contacts: the complementarity impact with
// equality rows condensed out (seed 000's three bodies, now with the contact
// side as a unilateral row), an angle limit that ends in persistent contact
// with the static reaction, and a two-sided limit.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// Seed 000's worked example (REPORT.md case 1): bodies 1 and 2 rigidly
// joined, body 3 hits body 2 with speed v; body 2 slides on body 3 along x
// (prismatic) and the joint limit is where they touch (x2 - x3 = 2 r, the
// coordinate starting at 0 with x2 - x3 = 0.5).
std::string three_bodies(double restitution) {
  return fmt::format(R"(
parameters: {{m: 1.0, v: 1.0, r: 0.1}}
bodies:
  body3: {{mass: m, inertia: [1e-3, 1e-3, 1e-3], position: [0, 0, 0], velocity: [v, 0, 0]}}
  body2: {{mass: m, inertia: [1e-3, 1e-3, 1e-3], position: [0.5, 0, 0]}}
  body1: {{mass: m, inertia: [1e-3, 1e-3, 1e-3], position: [0.5 + 2*r, 0, 0]}}
joints:
  link: {{type: fixed, between: [body2, body1], at: [0.5 + r, 0, 0]}}
  slide: {{type: prismatic, between: [body3, body2], at: [0.5, 0, 0], axis: [1, 0, 0]}}
contacts:
  touch: {{type: joint_limit, joint: slide, lower: 2*r - 0.5, restitution: {}}}
simulate: {{until: 1, output_step: 0.05, rtol: 1e-12, atol: 1e-14}}
)",
                     restitution);
}

TEST(ContactImpact, ThreeBodiesPlasticAndElasticAsSeed000) {
  for (const double e : {0.0, 1.0}) {
    SCOPED_TRACE(e);
    const Model model = parse_model(three_bodies(e), "three.yaml");
    const test::RecordedRun run = test::run_and_record(
        model, {"body1.vx", "body2.vx", "body3.vx", "touch.impulse", "touch.state",
                "energy.kinetic", "energy.balance", "system.px"});
    int impacts = 0;
    double t_impact = 0.0;
    for (const EventRecord& r : run.events)
      if (r.kind == "impact") {
        ++impacts;
        t_impact = r.t;
      }
    ASSERT_EQ(impacts, 1);
    EXPECT_NEAR(t_impact, 0.3, 1e-12);  // 0.3 m closed at 1 m/s
    // after it: plastic (v/3, v/3, v/3), elastic (2v/3, 2v/3, -v/3)
    EXPECT_NEAR(run.final("body1.vx"), (1.0 + e) / 3.0, 1e-12);
    EXPECT_NEAR(run.final("body2.vx"), (1.0 + e) / 3.0, 1e-12);
    EXPECT_NEAR(run.final("body3.vx"), (1.0 - 2.0 * e) / 3.0, 1e-12);
    // the normal impulse (1 + e) 2 m v / 3 >= 0, momentum kept, the energy
    // ratio (1 + 2 e^2) / 3 (REPORT.md case 1)
    double impulse = 0.0;
    for (std::size_t k = 0; k < run.t.size(); ++k) {
      impulse = std::max(impulse, run["touch.impulse"][k]);
      EXPECT_GE(run["touch.impulse"][k], 0.0);
      EXPECT_NEAR(run["system.px"][k], 1.0, 1e-12);
      EXPECT_LE(std::abs(run["energy.balance"][k]), 1e-12);
    }
    EXPECT_NEAR(impulse, (1.0 + e) * 2.0 / 3.0, 1e-12);
    EXPECT_NEAR(run.final("energy.kinetic"), 0.5 * (1.0 + 2.0 * e * e) / 3.0, 1e-12);
  }
}

// A pendulum released horizontally onto a stop at 60 deg (two-sided limit
// [60, 100] deg): it bounces with e = 1/2, the impacts accumulate, and it
// rests on the lower side with the static reaction m g L sin(60 deg).
constexpr const char* kPendulumOnStop = R"(
parameters: {L: 1.0, m: 1.0}
gravity: [0, 0, -9.81]
bodies:
  bob: {mass: m, inertia: [1e-4, 1e-4, 1e-4], position: [L, 0, 0]}
joints:
  pivot:
    type: revolute
    between: [ground, bob]
    at: [0, 0, 0]
    axis: [0, -1, 0]
    reference: [0, 0, -1]
    initial_angle: 90*deg
contacts:
  limit: {type: joint_limit, joint: pivot, lower: 60*deg, upper: 100*deg, restitution: 0.5}
simulate: {until: 3, output_step: 0.01, rtol: 1e-12, atol: 1e-14}
)";

TEST(ContactImpact, AngleLimitAccumulatesAndRestsWithTheStaticReaction) {
  const Model model = parse_model(kPendulumOnStop, "pendulum.yaml");
  const test::RecordedRun run =
      test::run_and_record(model, {"pivot.angle", "limit.lower.gap", "limit.lower.normal",
                                   "limit.lower.state", "limit.upper.state", "energy.balance"});
  int accumulations = 0;
  for (const EventRecord& r : run.events) {
    if (r.kind == "accumulation") ++accumulations;
    if (r.kind == "impact") {
      EXPECT_EQ(r.name, "limit.lower");
    }
  }
  EXPECT_EQ(accumulations, 1);
  const double static_reaction = 1.0 * 9.81 * 1.0 * std::sin(M_PI / 3.0);
  EXPECT_NEAR(run.final("limit.lower.normal"), static_reaction, 1e-6);
  EXPECT_NEAR(run.final("pivot.angle"), M_PI / 3.0, 1e-9);
  EXPECT_EQ(run.final("limit.lower.state"), 1.0);
  EXPECT_EQ(run.final("limit.upper.state"), 0.0);
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    EXPECT_GE(run["limit.lower.gap"][k], -1e-9);
    EXPECT_LE(std::abs(run["energy.balance"][k]), 1e-8);
  }
}

}  // namespace
}  // namespace ictus
