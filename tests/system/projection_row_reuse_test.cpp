// Evaluation skipping in the projection (issue 10): the constraint rows at a
// state are evaluated once. The velocity projection takes the rows the
// position projection (or the check before it) left at the same state
// instead of evaluating them again, and the position projection starts from
// the rows of that check. Counted with System::constraint_row_evaluations.
#include <gtest/gtest.h>

#include "ictus/model_file.h"
#include "ictus/system.h"
#include "support/test_support.h"

namespace ictus {
namespace {

struct Projected {
  long row_evaluations;
  double position_violation;
  double velocity_violation;
};

Projected project_counting(System& system, VecX y) {
  const long before = system.constraint_row_evaluations();
  EXPECT_TRUE(system.project(0.0, y, 1e-12));
  const long evaluations = system.constraint_row_evaluations() - before;
  return {evaluations, system.position_violation(0.0, y), system.velocity_violation(0.0, y)};
}

TEST(ProjectionRowReuse, VelocitiesAloneEvaluateTheRowsOnce) {
  System system(load_model(test::source_path("examples/slider_crank.yaml")));
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  system.layout().velocities(y)(0) += 1e-3;  // the crank's x velocity, off the constraints
  const Projected p = project_counting(system, y);
  // the check of the violations, taken over by the velocity projection
  // (it evaluated them a second time before)
  EXPECT_EQ(p.row_evaluations, 1);
  EXPECT_LT(p.velocity_violation, 1e-10);
  EXPECT_LT(p.position_violation, 1e-12);
}

TEST(ProjectionRowReuse, PositionsThenVelocitiesEvaluateTheRowsOncePerNewtonStep) {
  System system(load_model(test::source_path("examples/slider_crank.yaml")));
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  system.layout().positions(y)(0) += 1e-7;  // the crank's centre moved off its bearing
  const Projected p = project_counting(system, y);
  // the check, then one Newton step (a violation of 1e-7 m falls below
  // 1e-12 m in one): the Newton iteration starts from the check's rows and
  // the velocities take its last rows (four evaluations before)
  EXPECT_EQ(p.row_evaluations, 2);
  EXPECT_LT(p.position_violation, 1e-11);
  EXPECT_LT(p.velocity_violation, 1e-10);
}

}  // namespace
}  // namespace ictus
