// A body passing through an event-switched stop is reported (issue 9,
// defect 6): the bounces of seed 001's piston on a stop with restitution 5/9
// accumulate at t ~ 0.198 s, the stop is no longer switched on and the piston
// goes through the wall. Before, the run ended with exit 0 and no word.
#include <gtest/gtest.h>

#include <string>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

Model bouncing_piston(double until) {
  Model model = parse_model(R"yaml(
parameters: {m: 2.0, c: 50, F0: 50, k: 5/9}
bodies:
  piston: {mass: m, inertia: [1e-3, 1e-3, 1e-3], position: [0.2, 0, 0], velocity: [-2, 0, 0]}
joints:
  guide: {type: prismatic, between: [ground, piston], at: [0, 0, 0], axis: [1, 0, 0]}
  stop:
    type: custom
    between: [ground, piston]
    at: [0, 0, 0]
    constraints: [{type: point_on_plane, normal: [1, 0, 0], label: face}]
    restitution: k
    enabled: false
forces:
  spring: {type: spring_damper, joint: guide, stiffness: c, preload: F0}
events:
  hit: {when: guide.x < 0, do: {enable: stop}, on_false: {disable: stop}}
simulate: {until: 0.3, output_step: 0.001, rtol: 1e-10, atol: 1e-12}
)yaml",
                            "bounce.yaml");
  model.settings().until = until;
  return model;
}

int pass_through_warnings(const test::RecordedRun& run) {
  int n = 0;
  for (const EventRecord& r : run.events)
    if (r.kind == "warning" && r.detail.find("passed through") != std::string::npos) ++n;
  return n;
}

TEST(PassThrough, APistonThroughItsStopIsWarnedOnce) {
  const test::RecordedRun run = test::run_and_record(bouncing_piston(0.3), {"guide.x"});
  ASSERT_LT(run.final("guide.x"), -1e-3);  // the piston is through the wall
  EXPECT_EQ(pass_through_warnings(run), 1);
  for (const EventRecord& r : run.events)
    if (r.kind == "warning") {
      EXPECT_NE(r.detail.find("'stop.face'"), std::string::npos);
    }
}

TEST(PassThrough, BouncesThatHoldAreNotWarned) {
  const test::RecordedRun run = test::run_and_record(bouncing_piston(0.19), {"guide.x"});
  EXPECT_EQ(pass_through_warnings(run), 0);
}

}  // namespace
}  // namespace ictus
