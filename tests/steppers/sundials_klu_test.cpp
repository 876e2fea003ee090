// The sparse (KLU) linear solver of the SUNDIALS steppers against the dense
// one: the same trajectories within the tolerances on independent pendulums
// (block-diagonal dF/dy) and on one chain (a dense block), the pattern from
// the System's coupling groups against a full difference Jacobian, and the
// statistics (one F evaluation per column group instead of per column).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "../../src/steppers/cvode_stepper.h"
#include "../../src/steppers/ida_stepper.h"
#include "../../src/steppers/sundials_steppers.h"
#include "../../src/steppers/sundials_support.h"
#include "ictus/model_file.h"
#include "ictus/stepper.h"
#include "ictus/system.h"
#include "support/reference_models.h"

namespace ictus {
namespace {

struct Outcome {
  VecX y;
  StepperStatistics statistics;
  std::string solver;
};

Outcome run(const Model& model, const std::string& name, LinearSolverChoice choice, double until,
            SundialsJacobian jacobian = SundialsJacobian::difference_quotient) {
  System system(model);
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  StepperOptions options;
  options.rtol = 1e-8;
  options.atol = 1e-10;
  options.linear_solver = choice;
  std::unique_ptr<Stepper> stepper;
  if (name == "cvode")
    stepper = std::make_unique<CvodeStepper>(system, options, jacobian);
  else
    stepper = std::make_unique<IdaStepper>(system, options, jacobian);
  stepper->reset(0.0, y);
  while (stepper->t() < until) stepper->step(until);
  const std::string solver(name == "cvode" ? static_cast<CvodeStepper&>(*stepper).linear_solver()
                                           : static_cast<IdaStepper&>(*stepper).linear_solver());
  return {stepper->y(), stepper->statistics(), solver};
}

double largest_difference(const VecX& a, const VecX& b, int entries) {
  return (a.head(entries) - b.head(entries)).cwiseAbs().maxCoeff();
}

TEST(CouplingGroups, PendulumsAreIndependentAndAChainIsOne) {
  const System pendulums(test::make_pendulums(5));
  EXPECT_EQ(pendulums.coupling_groups(), (std::vector<int>{0, 1, 2, 3, 4}));
  const System chain(test::make_chain(4));
  EXPECT_EQ(chain.coupling_groups(), (std::vector<int>(4, 0)));
}

// Bodies joined by no joint but by a row of no joint: a contact point
// between two shapes. The groups lacked those rows: two balls in contact
// were two groups, and one column group perturbed both at once.
TEST(CouplingGroups, AContactBetweenTwoBodiesCouplesThem) {
  const System balls(parse_model(R"(ictus: 1
gravity: [0, 0, -9.81]
bodies:
  lower: {mass: 1, inertia: [0.01, 0.01, 0.01], position: [0, 0, 0.1]}
  upper: {mass: 1, inertia: [0.01, 0.01, 0.01], position: [0, 0, 0.3]}
  apart: {mass: 1, inertia: [0.01, 0.01, 0.01], position: [2, 0, 0.1]}
shapes:
  lower_ball: {body: lower, type: sphere, radius: 0.1}
  upper_ball: {body: upper, type: sphere, radius: 0.1}
contacts:
  stack: {type: shapes, between: [lower, upper]}
)",
                                 "balls"));
  EXPECT_EQ(balls.coupling_groups(), (std::vector<int>{0, 0, 1}));
}

TEST(JacobianPattern, SizesAndColoursOfBlocks) {
  StateLayout layout;
  layout.bodies = 10;
  const auto independent = internal::jacobian_pattern(layout, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(independent.n, 130);
  EXPECT_EQ(independent.nonzeros(), 10 * 13 * 13);
  EXPECT_EQ(independent.colours, 13);
  const auto one = internal::jacobian_pattern(layout, std::vector<int>(10, 0));
  EXPECT_EQ(one.nonzeros(), 130 * (7 + 60));
  EXPECT_EQ(one.colours, 130);
  for (int j = 0; j < one.n; ++j) EXPECT_EQ(one.row[one.diagonal[j]], j);
  // auto: KLU above 60 unknowns, whatever the pattern
  EXPECT_TRUE(internal::use_klu(LinearSolverChoice::kAuto, independent));
  EXPECT_TRUE(internal::use_klu(LinearSolverChoice::kAuto, one));
  layout.bodies = 4;  // 52 unknowns: below kSparseMinUnknowns
  EXPECT_FALSE(internal::use_klu(LinearSolverChoice::kAuto,
                                 internal::jacobian_pattern(layout, {0, 1, 2, 3})));
}

// Every entry of a full difference Jacobian outside the pattern is zero.
TEST(JacobianPattern, CoversTheDifferenceJacobian) {
  System system(test::make_pendulums(4));
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  for (int b = 0; b < 4; ++b) system.layout().body_velocity(y, b) << 0.1, 0.2, -0.1, 0.3, -0.2, 0.5;
  const auto pattern = internal::jacobian_pattern(system.layout(), system.coupling_groups());
  const int n = pattern.n;
  VecX f0(y.size()), f1(y.size());
  system.derivative(0.0, y, f0);
  MatX inside = MatX::Zero(n, n);
  for (int j = 0; j < n; ++j)
    for (auto e = pattern.column_start[j]; e < pattern.column_start[j + 1]; ++e)
      inside(pattern.row[e], j) = 1.0;
  for (int j = 0; j < n; ++j) {
    VecX yj = y;
    yj(j) += 1e-6;
    system.derivative(0.0, yj, f1);
    for (int i = 0; i < n; ++i) {
      if (inside(i, j) == 0.0) {
        EXPECT_EQ(f1(i), f0(i)) << "row " << i << ", column " << j;
      }
    }
  }
}

class KluTest : public testing::TestWithParam<std::string> {};

TEST_P(KluTest, IndependentPendulumsAgreeWithDense) {
  const Model model = test::make_pendulums(10);
  const Outcome dense = run(model, GetParam(), LinearSolverChoice::kDense, 1.0);
  const Outcome klu = run(model, GetParam(), LinearSolverChoice::kKlu, 1.0);
  const Outcome automatic = run(model, GetParam(), LinearSolverChoice::kAuto, 0.01);
  EXPECT_EQ(dense.solver, "dense");
  EXPECT_EQ(klu.solver, "klu");
  EXPECT_EQ(automatic.solver, "klu");  // 130 unknowns in 10 groups
  EXPECT_LT(largest_difference(dense.y, klu.y, 130), 1e-6);
  // the same method on the same problem: about the same steps and Newton work
  EXPECT_NEAR(klu.statistics.steps, dense.statistics.steps, 0.1 * dense.statistics.steps);
  EXPECT_GT(klu.statistics.jacobian_evaluations, 0);
  EXPECT_GT(klu.statistics.newton_iterations, klu.statistics.steps);
  // 13 evaluations per Jacobian (one per column group) instead of 130
  EXPECT_LT(klu.statistics.evaluations, 0.6 * dense.statistics.evaluations)
      << "klu " << klu.statistics.evaluations << ", dense " << dense.statistics.evaluations;
}

TEST_P(KluTest, ChainAgreesWithDense) {
  const Model model = test::make_chain(6);
  const Outcome dense = run(model, GetParam(), LinearSolverChoice::kDense, 0.5);
  const Outcome klu = run(model, GetParam(), LinearSolverChoice::kKlu, 0.5);
  const Outcome automatic = run(model, GetParam(), LinearSolverChoice::kAuto, 0.01);
  EXPECT_EQ(klu.solver, "klu");
  EXPECT_EQ(automatic.solver, "klu");  // 78 unknowns, although dF/dy is half full
  // a swinging chain amplifies the different Newton iterates: the bound is
  // the global error of rtol 1e-8 over half a second, not round-off
  EXPECT_LT(largest_difference(dense.y, klu.y, 78), 2e-5);
  // one group of 6 bodies: as many column groups as columns
  EXPECT_NEAR(klu.statistics.evaluations, dense.statistics.evaluations,
              0.2 * dense.statistics.evaluations);
}

TEST_P(KluTest, MechanicalSystemJacobianGathered) {
  const Model model = test::make_pendulums(6);
  const Outcome dense =
      run(model, GetParam(), LinearSolverChoice::kDense, 0.5, SundialsJacobian::mechanical_system);
  const Outcome klu =
      run(model, GetParam(), LinearSolverChoice::kKlu, 0.5, SundialsJacobian::mechanical_system);
  EXPECT_LT(largest_difference(dense.y, klu.y, 78), 1e-6);
  EXPECT_GT(klu.statistics.jacobian_evaluations, 0);
}

INSTANTIATE_TEST_SUITE_P(Sundials, KluTest, testing::Values("cvode", "ida"));

}  // namespace
}  // namespace ictus
