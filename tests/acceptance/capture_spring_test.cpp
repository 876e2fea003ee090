// A joint spring on a capture joint acts in the frame the joint takes when
// it closes (issue 9, defect 7): before the fix it kept the follower point of
// t0, so after the capture its force acted away from the joint line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// The body moves up 1 m before the slide captures it at t = 0.1 (x = 0.1 m):
// the captured follower point is the world origin, 1 m below the centre of
// mass. The spring (k = 100 N/m along x) then pulls along the slide's line,
// 1 m below the centre of mass, and the slide must hold the moment of that
// force: Mz = load * 1 m. With the follower point of t0 (the centre of mass)
// the force went through the centre of mass and the slide held nothing.
TEST(CaptureSpring, AJointSpringActsAtTheCapturedFollowerPoint) {
  const Model model = parse_model(R"yaml(
bodies:
  b: {mass: 1, inertia: [1, 1, 1], velocity: [1, 10, 0]}
joints:
  slide: {type: prismatic, between: [ground, b], at: [0, 0, 0], axis: [1, 0, 0],
          capture: true, after: t >= 0.1}
forces:
  spring: {type: spring_damper, joint: slide, stiffness: 100, after: t >= 0.1}
simulate: {until: 0.3, output_step: 0.01, rtol: 1e-10, atol: 1e-12}
)yaml",
                                  "capture_spring.yaml");
  const test::RecordedRun run = test::run_and_record(
      model, {"slide.x", "slide.Mx", "slide.My", "slide.Mz", "spring.load", "b.y", "b.vx"});
  bool loaded = false;
  for (std::size_t k = 0; k < run.t.size(); ++k) {
    if (run.t[k] <= 0.1 + 1e-9) continue;
    EXPECT_NEAR(run["b.y"][k], 1.0, 1e-9);  // captured where it was
    const double load = run["spring.load"][k];
    loaded = loaded || std::abs(load) > 1.0;
    const double tol = 1e-9 * std::max(1.0, std::abs(load));
    EXPECT_NEAR(run["slide.Mz"][k], load * 1.0, tol) << "t = " << run.t[k];
    EXPECT_NEAR(run["slide.Mx"][k], 0.0, tol) << "t = " << run.t[k];
    EXPECT_NEAR(run["slide.My"][k], 0.0, tol) << "t = " << run.t[k];
  }
  EXPECT_TRUE(loaded);
  // x = sin(10 (t - 0.1)) / 10 after the capture (vx = 1 at x = 0, k/m = 100)
  EXPECT_NEAR(run.final("slide.x"), std::sin(10.0 * 0.2) / 10.0, 1e-7);
}

}  // namespace
}  // namespace ictus
