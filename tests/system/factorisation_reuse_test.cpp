// Evaluation skipping in the dynamics (issue 10): where only the velocities
// changed since the last evaluation (the velocity columns of a
// difference-quotient Jacobian: cvode, ida), the kinematics' rotations and
// the rows' position stage (D, targets, Delta) are kept and only the rows'
// gammas evaluated, and so the rows' Jacobians are the same bit for bit and
// the tree's or the sparse S's factorisation is kept instead of computed
// again (SchurSolver::assemble, TreeKktSolver::factorize). On every bundled
// example and every model of tests/models, at states along a run: new
// velocities add no position stage and no factorisation, and y' then equals
// y' evaluated afresh (after other positions).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

class FactorisationReuse : public ::testing::TestWithParam<std::string> {};

TEST_P(FactorisationReuse, NewVelocitiesKeepTheFactorisationAndGiveTheSameRates) {
  const std::string name = GetParam();
  Model model = load_model(test::source_path(name + ".yaml"));
  SimulationSettings& s = model.settings();
  s.until = std::min(s.until, s.start + 0.3);
  Simulation sim(model);
  System& system = sim.system();
  const int points = 3;
  for (int k = 1; k <= points; ++k) {
    const bool running = sim.advance_to(s.start + (s.until - s.start) * k / points);
    const double t = sim.time();
    const VecX y = sim.state();
    VecX moved = y;  // new velocities (in the plane of a planar model), the same positions
    system.layout().velocities(moved) *= 1.1;
    VecX rate_kept(y.size()), rate_fresh(y.size()), ignored(y.size());

    system.derivative(t, y, ignored);
    const long before = system.dynamics_factorisations();
    const long geometry_before = system.constraint_geometry_evaluations();
    system.derivative(t, moved, rate_kept);
    EXPECT_EQ(system.dynamics_factorisations(), before) << name << " at t = " << t;
    EXPECT_EQ(system.constraint_geometry_evaluations(), geometry_before) << name << " at t = " << t;

    // the same after a factorisation at other positions (turned and moved a
    // little); a planar friction model may refuse them (a spatial load)
    VecX elsewhere = y;
    system.layout().positions(elsewhere).array() += 1e-6;
    try {
      system.derivative(t, elsewhere, ignored);
    } catch (const SimulationError&) {
      if (!running) break;
      continue;
    }
    system.derivative(t, moved, rate_fresh);
    const double scale = std::max(1.0, rate_fresh.cwiseAbs().maxCoeff());
    EXPECT_LE((rate_kept - rate_fresh).cwiseAbs().maxCoeff(), 1e-12 * scale)
        << name << " at t = " << t;
    if (!running) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, FactorisationReuse,
                         ::testing::ValuesIn(test::bundled_model_names()), test::ModelTestName());

void count_for_velocity_only_changes(bool tree);

// The count itself: a pendulum chain evaluated at new velocities only
// factorises once; turned to new orientations, every time (a translation
// alone leaves a hinge's Jacobian, and so the factorisation, as it is). On
// the tree and on the sparse path.
TEST(FactorisationReuse, CountsOneFactorisationForVelocityOnlyChanges) {
  for (const bool tree : {true, false}) {
    SCOPED_TRACE(tree ? "tree" : "sparse");
    count_for_velocity_only_changes(tree);
  }
}

// The rows' position stage is evaluated again where the time alone moved
// (a driver's target and position error are functions of t) and after a
// discrete change at the same state (an element switched off and on again),
// and not where only the velocities moved. The driven slider-crank.
TEST(FactorisationReuse, RowsPositionStageFollowsPositionsTimeAndSwitches) {
  System system(load_model(test::source_path("examples/slider_crank.yaml")));
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  VecX rate(y.size()), fresh(y.size());
  system.derivative(0.0, y, rate);
  const long first = system.constraint_geometry_evaluations();
  system.layout().velocities(y) *= 1.5;
  system.derivative(0.0, y, rate);
  EXPECT_EQ(system.constraint_geometry_evaluations(), first);
  system.derivative(1e-3, y, rate);  // the same positions, a later time
  EXPECT_EQ(system.constraint_geometry_evaluations(), first + 1);
  // a switch at the same state: evaluated again, and the same rates
  const std::string driver = system.model().drivers().front().name;
  EXPECT_TRUE(system.set_enabled(driver, false));  // structural
  system.set_enabled(driver, true);
  system.derivative(1e-3, y, fresh);
  EXPECT_EQ(system.constraint_geometry_evaluations(), first + 2);
  EXPECT_EQ(fresh, rate);
}

void count_for_velocity_only_changes(bool tree) {
  System system(load_model(test::source_path("examples/double_pendulum.yaml")));
  system.set_tree_dynamics(tree);
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  VecX rate(y.size());
  system.derivative(0.0, y, rate);
  const long first = system.dynamics_factorisations();
  for (int k = 1; k <= 5; ++k) {
    system.layout().velocities(y)(0) += 0.1;
    system.derivative(0.0, y, rate);
  }
  EXPECT_EQ(system.dynamics_factorisations(), first);
  const long geometry = system.constraint_geometry_evaluations();
  for (int k = 1; k <= 5; ++k) {
    system.layout().positions(y)(4) += 1e-3;  // body 0's quaternion (x)
    system.derivative(0.0, y, rate);
  }
  EXPECT_EQ(system.dynamics_factorisations(), first + 5);
  EXPECT_EQ(system.constraint_geometry_evaluations(), geometry + 5);
  EXPECT_EQ(system.tree_dynamics_used(), tree);
}

}  // namespace
}  // namespace ictus
