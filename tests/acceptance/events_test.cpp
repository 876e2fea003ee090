// Events and switching at the edges: elements off at the start, conditions
// already true at t0, output times around events.
#include <gtest/gtest.h>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// A body pushed by a constant force along x on a frictionless guide.
constexpr const char* kSlider = R"(
bodies:
  block: {mass: 2.0, inertia: [1e-3, 1e-3, 1e-3]}
joints:
  guide: {type: prismatic, between: [ground, block], at: [0, 0, 0], axis: [1, 0, 0]}
simulate: {until: 1, output_step: 0.1, rtol: 1e-12, atol: 1e-14}
)";

Model slider_with(const std::string& extra) {
  return parse_model(std::string(kSlider) + extra, "slider.yaml");
}

TEST(Events, ElementSwitchedOffInTheFileStaysOffUntilItsCondition) {
  // F = 4 N on 2 kg from t = 0.5: x(1) = a (t - 0.5)^2 / 2 = 2 * 0.25 / 2
  const Model model = slider_with(R"(
forces:
  push: {type: force, on: block, direction: [1, 0, 0], value: 4, after: t > 0.5}
)");
  const test::RecordedRun run = test::run_and_record(model, {"guide.x", "push.Fx"});
  for (std::size_t k = 0; k < run.t.size(); ++k)
    if (run.t[k] < 0.5 - 1e-12) {
      EXPECT_EQ(run["guide.x"][k], 0.0) << run.t[k];
      EXPECT_EQ(run["push.Fx"][k], 0.0) << run.t[k];
    }
  EXPECT_NEAR(run.final("guide.x"), 0.25, 1e-12);

  const Model off = slider_with(R"(
forces:
  push: {type: force, on: block, direction: [1, 0, 0], value: 4, enabled: false}
)");
  EXPECT_EQ(test::run_and_record(off, {"guide.x"}).final("guide.x"), 0.0);
}

TEST(Events, OutputTimesNeverGoBackwards) {
  const Model model = load_model(test::source_path("examples/piston_push.yaml"));
  const test::RecordedRun run = test::run_and_record(model, {"guide.x"});
  for (std::size_t k = 1; k < run.t.size(); ++k)
    EXPECT_LE(run.t[k - 1], run.t[k]) << "sample " << k;
}

TEST(Events, StopThatHoldsAtTheStartEndsTheRunThere) {
  const Model model = slider_with(R"(
events:
  at_once: {when: t >= 0, do: stop}
)");
  Simulation simulation(model);
  const RunStatistics stats = simulation.run();
  EXPECT_TRUE(stats.stopped_by_event);
  EXPECT_EQ(simulation.time(), 0.0);
}

TEST(Events, StrictAndNonStrictComparisonsDifferOnlyAtEquality) {
  // at t0 = 0 't >= 0' holds: it fires at the start, once; 't > 0' does not
  // hold at t0 and becomes true just after it
  const Model model = slider_with(R"(
events:
  inclusive: {when: t >= 0, do: []}
  strict: {when: t > 0, do: []}
)");
  Simulation simulation(model);
  simulation.run();
  std::vector<std::pair<std::string, double>> fired;
  for (const EventRecord& r : simulation.events())
    if (r.kind == "event") fired.emplace_back(r.name, r.t);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].first, "inclusive");
  EXPECT_EQ(fired[0].second, 0.0);
  EXPECT_EQ(fired[1].first, "strict");
  EXPECT_GT(fired[1].second, 0.0);
  EXPECT_LT(fired[1].second, 1e-12);
}

TEST(Events, LogOnlyEventsMarkEveryCrossing) {
  // x = 2 t^2 (F = 8 N on 2 kg): crosses 0.5 once, at t = 0.5
  const Model model = slider_with(R"(
forces:
  push: {type: force, on: block, direction: [1, 0, 0], value: 8}
events:
  halfway: {when: guide.x > 0.5, do: []}
)");
  Simulation simulation(model);
  simulation.run();
  int count = 0;
  for (const EventRecord& r : simulation.events())
    if (r.kind == "event" && r.name == "halfway") {
      ++count;
      EXPECT_NEAR(r.t, 0.5, 1e-12);
    }
  EXPECT_EQ(count, 1);
}

}  // namespace
}  // namespace ictus
