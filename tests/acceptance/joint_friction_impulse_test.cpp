// An impulse on a block held by static friction in its guide
// (docs/theory/friction.md, "Impulses on stuck joint friction"): Coulomb's
// law at the impulse level, the friction impulse along the guide at most
// mu_s times the guide's transverse reaction impulse P_N. A block of mass m
// at rest in a horizontal frictional prismatic guide is kicked at t_k by
// (J_x, J_y): P_N = |J_y| (the bilateral guide takes the kick across it,
// whichever side), so it stays stuck while J_x <= mu_s |J_y|, and otherwise
// leaves at v+ = (J_x - mu_s |J_y|) / m, slides with -mu g and sticks after
// v+ / (mu g). Before, the stuck guide's hold row took the kick whole: the
// block never moved.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kMass = 2.0, kMu = 0.3, kMuStatic = 0.4, kG = 9.81, kKick = 0.1;

constexpr const char* kKickedBlock = R"(ictus: 1
name: block stuck in a frictional guide, kicked
parameters: {m: 2, Jx: 3, Jy: 0}
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
events:
  kick:
    when: t >= 0.1
    do: {impulse: {on: block, linear: [Jx, Jy, 0]}}
    once: true
simulate: {until: 1, output_step: 0.01, max_step: 0.01, rtol: 1e-10, atol: 1e-12}
)";

test::RecordedRun kick(double jx, double jy) {
  return test::run_and_record(
      parse_model(kKickedBlock, "kicked block",
                  {{"Jx", fmt::format("{}", jx)}, {"Jy", fmt::format("{}", jy)}}),
      {"block.x", "block.vx", "block.y", "guide.friction_mode", "energy.balance",
       "energy.dissipated"});
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

// Runs `model` expecting it to stop at the kick with a message naming
// each of `joints`.
void expect_stops_naming(const Model& model, const std::vector<std::string>& joints) {
  Simulation sim(model);
  try {
    sim.run();
    FAIL() << "the run should stop at the kick";
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    for (const std::string& joint : joints)
      EXPECT_NE(what.find("joint '" + joint + "'"), std::string::npos) << what;
    EXPECT_NE(what.find("not several"), std::string::npos) << what;
    EXPECT_NEAR(e.time(), kKick, 1e-12);
  }
}

// Two blocks stacked in frictional guides (tests/models/stacked_blocks_friction.yaml)
// at rest, the upper kicked along the guides: both holds take the kick and
// neither guide's transverse impulse holds it. The two would have to give
// way together (not built): the run stops naming both.
TEST(JointFrictionImpulse, TwoStuckGuidesGivingWayInOneImpactStopTheRunNamingBoth) {
  expect_stops_naming(kicked("tests/models/stacked_blocks_friction.yaml",
                             "{on: upper, linear: [20, 0, 0]}", {{"T", "0"}}),
                      {"floor", "top"});
}

// The ladder at rest (tests/models/ladder_friction.yaml, w0 = 0) at 0.4 rad
// from the wall, within tan th <= 2 mu1 / (1 - mu1 mu2) (0.568 rad), where
// it stays stuck: its two stuck joints' holds are dependent (one motion),
// their friction impulses statically indeterminate. Kicked, the run stops
// naming both, not with an inconsistent impact.
TEST(JointFrictionImpulse, AStuckJointWhoseHoldIsDependentStopsTheRunNamingBoth) {
  expect_stops_naming(kicked("tests/models/ladder_friction.yaml",
                             "{on: ladder, linear: [-200, 0, 0]}", {{"w0", "0"}, {"th0", "0.4"}}),
                      {"foot", "top"});
}

}  // namespace
}  // namespace ictus
