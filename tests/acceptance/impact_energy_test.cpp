// The energy an impact books when it includes external impulses (issue 9,
// defect 2): the work of an external impulse is the impulse times the mean of
// the velocities of its point before and after the impact, and a persisting
// workless constraint (a fixed frictionless hinge, a rigid link, a closed
// latch) loses nothing. Before the fix the work was taken as the kinetic
// energy the impulse would give the free body, and the difference was booked
// as a constraint loss (the struck rod: "brought 10.667 J, lost 2.667 J").
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kExact = 1e-12;  // an impact is linear algebra

const std::vector<std::string> kEnergy = {"energy.kinetic", "energy.work_applied", "energy.impacts",
                                          "energy.dissipated", "energy.balance"};

const EventRecord* impact_record(const test::RecordedRun& run) {
  for (const EventRecord& r : run.events)
    if (r.kind == "impact") return &r;
  return nullptr;
}

// A uniform rod of mass m = 3 kg and length L = 1 m hangs from a hinge at its
// top and is struck at its tip with P = 4 N s. About the hinge
// J = m L^2 / 3, omega = P L / J, the tip's speed 3 P / m = 4 m/s, and the
// work P (0 + 4) / 2 = 8 J = J omega^2 / 2; the hinge impulse P / 2 = 2 N s.
TEST(ImpactEnergy, StruckRodOnAHingeLosesNothingInTheHinge) {
  const Model model = parse_model(R"yaml(
bodies:
  rod: {mass: 3, inertia: [0.25, 0.001, 0.25], position: [0, -0.5, 0]}
joints:
  hinge: {type: revolute, between: [ground, rod], at: [0, 0, 0], axis: [0, 0, 1]}
events:
  strike: {when: t > 0.1, once: true, do: {impulse: {on: rod, linear: [4, 0, 0], at: [0, -1, 0]}}}
simulate: {until: 0.1 + 1e-6, output_step: 0.05, rtol: 1e-12, atol: 1e-14}
)yaml",
                                  "struck_rod.yaml");
  const test::RecordedRun run = test::run_and_record(model, kEnergy);
  EXPECT_NEAR(run.final("energy.kinetic"), 8.0, 1e-9);  // the rod turns for 1e-6 s after
  EXPECT_NEAR(run.final("energy.work_applied"), 8.0, kExact);
  EXPECT_NEAR(run.final("energy.impacts"), 0.0, kExact);
  EXPECT_NEAR(run.final("energy.dissipated"), 0.0, kExact);
  EXPECT_LT(run.max_abs("energy.balance"), 1e-9);
  const EventRecord* impact = impact_record(run);
  ASSERT_NE(impact, nullptr);
  EXPECT_NE(impact->detail.find("brought 8 J"), std::string::npos) << impact->detail;
  EXPECT_NE(impact->detail.find("lost in the constraints 0 J"), std::string::npos)
      << impact->detail;
}

// Seed 000's three bodies with the contact never closing: a 1 N s impulse on
// body 1, rigidly linked to body 2 (1 kg each). The pair moves at 0.5 m/s,
// kinetic energy 0.25 J = 1 * (0 + 0.5) / 2; the link takes nothing.
TEST(ImpactEnergy, ImpulseOnALinkedPairOfTheThreeBodies) {
  Model model = load_model(test::source_path("examples/three_bodies.yaml"), {{"v", "0"}});
  Event kick;
  kick.name = "kick";
  kick.condition = Condition{Expression("t > 0.2")};
  Action impulse;
  impulse.kind = Action::Kind::kImpulse;
  impulse.target = "body1";
  impulse.linear_impulse = Vec3(1, 0, 0);
  kick.on_true = {impulse};
  kick.once = true;
  model.add_event(kick);
  model.settings().until = 0.4;
  const test::RecordedRun run =
      test::run_and_record(model, {"body1.vx", "body2.vx", "body3.vx", "energy.kinetic",
                                   "energy.work_applied", "energy.impacts", "energy.balance"});
  EXPECT_NEAR(run.final("body1.vx"), 0.5, kExact);
  EXPECT_NEAR(run.final("body2.vx"), 0.5, kExact);
  EXPECT_EQ(run.final("body3.vx"), 0.0);
  EXPECT_NEAR(run.final("energy.kinetic"), 0.25, kExact);
  EXPECT_NEAR(run.final("energy.work_applied"), 0.25, kExact);
  EXPECT_NEAR(run.final("energy.impacts"), 0.0, kExact);
  EXPECT_LT(run.max_abs("energy.balance"), kExact);
}

// Seed 000's plastic three-body impact keeps its Carnot loss (1/3 J of 1/2 J)
// with no external impulse: the booking of closing constraints is unchanged.
TEST(ImpactEnergy, ClosingContactOfTheThreeBodiesKeepsItsCarnotLoss) {
  const test::RecordedRun run =
      test::run_and_record(load_model(test::source_path("examples/three_bodies.yaml")), kEnergy);
  EXPECT_NEAR(run.final("energy.impacts"), 1.0 / 3.0, kExact);
  EXPECT_NEAR(run.final("energy.work_applied"), 0.0, kExact);
  EXPECT_LT(run.max_abs("energy.balance"), kExact);
}

// The docked station (core, two hinged wings, the ship on a captured latch)
// struck on a wing tip after the docking: the latch and the hinges persist and
// take nothing, so the work of the impulse is the whole change of kinetic
// energy and the docking's own loss is all energy.impacts holds.
TEST(ImpactEnergy, DockedStationStruckOnAWing) {
  Model docked = load_model(test::source_path("examples/docking.yaml"));
  docked.settings().until = 2.5;
  const test::RecordedRun before = test::run_and_record(docked, kEnergy);
  const double docking_loss = before.final("energy.impacts");
  ASSERT_GT(docking_loss, 0.0);  // the plastic docking

  Model struck = load_model(test::source_path("examples/docking.yaml"));
  Event kick;
  kick.name = "kick";
  kick.condition = Condition{Expression("t > 2.5")};
  Action impulse;
  impulse.kind = Action::Kind::kImpulse;
  impulse.target = "wing_left";
  impulse.linear_impulse = Vec3(0, 0, 200);
  impulse.point_B = Vec3(3, 4, 0);  // off the hinge line and the wing's centre
  kick.on_true = {impulse};
  kick.once = true;
  struck.add_event(kick);
  struck.settings().until = 2.5 + 1e-9;
  const test::RecordedRun run = test::run_and_record(struck, kEnergy);
  const EventRecord* strike = nullptr;
  for (const EventRecord& r : run.events)
    if (r.kind == "impact" && r.t > 2.4) strike = &r;
  ASSERT_NE(strike, nullptr);
  EXPECT_NEAR(run.final("energy.impacts"), docking_loss, 1e-9 * docking_loss);
  EXPECT_LT(run.max_abs("energy.balance"), 1e-6);
  EXPECT_NE(strike->detail.find("lost in the constraints "), std::string::npos);
  // the work booked equals the change of kinetic energy of the strike
  const double work = run.final("energy.work_applied") - before.final("energy.work_applied");
  EXPECT_NEAR(work, run.final("energy.kinetic") - before.final("energy.kinetic"), 1e-6 * work);
  EXPECT_GT(work, 0.0);
}

}  // namespace
}  // namespace ictus
