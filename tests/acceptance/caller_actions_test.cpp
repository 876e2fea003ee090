// Simulation::apply: actions applied by the caller between advance_to()
// calls (a controller driving the run, the Python API): an impulse changes
// the momentum by itself, a switch is logged and acts at once, a stop ends
// the run, a bad target changes nothing, and a run continued from a
// checkpoint taken after an action is the run continued in place, bit for bit.
#include <gtest/gtest.h>

#include <stdexcept>

#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

Action impulse_on(const std::string& body, const Vec3& linear) {
  Action a;
  a.kind = Action::Kind::kImpulse;
  a.target = body;
  a.linear_impulse = linear;
  return a;
}

Action switch_action(const std::string& element, bool on) {
  Action a;
  a.kind = on ? Action::Kind::kEnable : Action::Kind::kDisable;
  a.target = element;
  return a;
}

TEST(CallerActions, AnImpulseOnAFreeBodyChangesItsMomentumByTheImpulse) {
  // the docking example's ship drifts freely until the latch closes (about 2 s)
  const Model model = load_model(test::source_path("examples/docking.yaml"));
  Simulation s(model);
  ASSERT_TRUE(s.advance_to(1.0));
  const double mass = model.bodies()[static_cast<std::size_t>(model.body_index("ship"))].mass;
  const double before = test::channel_now(s, "ship.vx");
  ASSERT_TRUE(s.apply({impulse_on("ship", Vec3(2.0, 0.0, 0.0))}, "kick"));
  EXPECT_NEAR(mass * (test::channel_now(s, "ship.vx") - before), 2.0, 1e-12 * 2.0);
  ASSERT_GE(s.events().size(), 2u);
  EXPECT_EQ(s.events()[s.events().size() - 2].kind, "event");
  EXPECT_EQ(s.events()[s.events().size() - 2].name, "kick");
  EXPECT_EQ(s.events().back().kind, "impact");
  s.run();  // and the run goes on to the latch
  bool latched = false;
  for (const EventRecord& e : s.events())
    latched = latched || (e.kind == "switch" && e.name == "latch");
  EXPECT_TRUE(latched);
}

TEST(CallerActions, GravitySwitchedOffLeavesThePendulumTurningAtItsRate) {
  Simulation s(load_model(test::source_path("examples/pendulum.yaml")));
  ASSERT_TRUE(s.advance_to(0.3));
  const double omega = test::channel_now(s, "pivot.omega");
  ASSERT_TRUE(s.apply({switch_action("gravity", false)}));
  EXPECT_FALSE(s.system().enabled("gravity"));
  ASSERT_TRUE(s.advance_to(1.0));
  EXPECT_NEAR(test::channel_now(s, "pivot.omega"), omega, 1e-8 * std::abs(omega));
  EXPECT_LT(std::abs(test::channel_now(s, "energy.balance")), 1e-8);
}

TEST(CallerActions, AStopEndsTheRunAndABadTargetChangesNothing) {
  Simulation s(load_model(test::source_path("examples/pendulum.yaml")));
  ASSERT_TRUE(s.advance_to(0.5));
  const std::size_t logged = s.events().size();
  EXPECT_THROW(s.apply({switch_action("gravity", false), switch_action("nothing", true)}),
               std::invalid_argument);
  EXPECT_THROW(s.apply({impulse_on("ground", Vec3::UnitX())}), std::invalid_argument);
  EXPECT_TRUE(s.system().enabled("gravity"));
  EXPECT_EQ(s.events().size(), logged);
  Action stop;
  stop.kind = Action::Kind::kStop;
  EXPECT_FALSE(s.apply({stop}));
  EXPECT_FALSE(s.advance_to(1.0));
  const RunStatistics stats = s.run();
  EXPECT_TRUE(stats.stopped_by_event);
  EXPECT_EQ(stats.end_time, 0.5);
  EXPECT_THROW(s.apply({stop}), std::logic_error);
}

TEST(CallerActions, ARunContinuedFromACheckpointAfterAnActionIsBitwiseTheSame) {
  const Model model = load_model(test::source_path("examples/docking.yaml"));
  Simulation original(model);
  Recorder in_place(select_channels(original.system(), {}));
  original.add_observer(in_place);
  ASSERT_TRUE(original.advance_to(1.0));
  ASSERT_TRUE(original.apply({impulse_on("ship", Vec3(-3.0, 0.5, 0.0))}));
  test::expect_checkpoint_continues_bitwise(model, original, in_place);
}

}  // namespace
}  // namespace ictus
