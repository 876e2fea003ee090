// The pieces of M u' = f + D^T lambda that the System offers to steppers
// assembling their own equations: they must recombine into the accelerations
// the System computes, the residuals must measure the constraints, and the
// iteration matrix must agree with the analytic load Jacobians.
#include <gtest/gtest.h>

#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

struct Evaluated {
  VecX y, rates, lambda;
};

// the slider-crank after its assembly and a little motion
Evaluated slider_crank_state(Simulation& sim) {
  EXPECT_TRUE(sim.advance_to(0.37));
  Evaluated e;
  e.y = sim.state();
  System& s = sim.system();
  e.rates.resize(s.layout().velocity_size() + s.layout().audit);
  s.accelerations(sim.time(), e.y, e.rates);
  e.lambda.resize(s.constraint_count());
  s.multipliers(e.lambda);
  return e;
}

TEST(MechanicalSystemPieces, MassTimesAccelerationsIsForcesPlusConstraintForces) {
  Model model = load_model(test::source_path("examples/slider_crank.yaml"));
  Simulation sim(model);
  const Evaluated e = slider_crank_state(sim);
  System& s = sim.system();
  const int nv = s.layout().velocity_size();
  VecX lhs = VecX::Zero(nv), rhs = VecX::Zero(nv);
  s.add_mass_times(1.0, e.rates.head(nv), lhs);
  s.add_forces(sim.time(), e.y, 1.0, rhs);
  s.add_constraint_forces(sim.time(), e.y, 1.0, e.lambda, rhs);
  EXPECT_LT((lhs - rhs).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + lhs.cwiseAbs().maxCoeff()));
  EXPECT_GT(e.lambda.cwiseAbs().maxCoeff(), 1.0);  // the reactions are really there
}

TEST(MechanicalSystemPieces, ResidualsMeasureTheConstraints) {
  Model model = load_model(test::source_path("examples/slider_crank.yaml"));
  Simulation sim(model);
  const Evaluated e = slider_crank_state(sim);
  System& s = sim.system();
  const int m = s.constraint_count();
  VecX phi(m), phi_dot(m);
  s.constraint_residuals(sim.time(), e.y, phi, phi_dot);
  EXPECT_LT(phi.cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT(phi_dot.cwiseAbs().maxCoeff(), 1e-8);
  VecX moved = e.y;
  moved(0) += 1e-3;  // body 0 moved off its joints along x
  s.constraint_residuals(sim.time(), moved, phi, phi_dot);
  EXPECT_NEAR(phi.cwiseAbs().maxCoeff(), s.position_violation(sim.time(), moved), 1e-15);
  EXPECT_GT(phi.cwiseAbs().maxCoeff(), 1e-4);
}

// G = a M - b K_v - c (K_q + d(D^T lambda)/dq): its mass part is M, and with
// lambda = 0 its load parts are the analytic load Jacobians
// (docs/theory/jacobians.md) to central-difference accuracy.
TEST(MechanicalSystemPieces, IterationMatrixAgreesWithTheAnalyticLoadJacobians) {
  Model model = load_model(test::source_path("examples/slider_crank.yaml"));
  Simulation sim(model);
  const Evaluated e = slider_crank_state(sim);
  System& s = sim.system();
  const int nv = s.layout().velocity_size();
  MatX G, K_q, K_v;
  const VecX none = VecX::Zero(s.constraint_count());
  s.iteration_matrix(sim.time(), e.y, 1.0, 0.0, 0.0, none, G);
  MatX M = MatX::Zero(nv, nv);
  for (int j = 0; j < nv; ++j) s.add_mass_times(1.0, VecX::Unit(nv, j), M.col(j));
  EXPECT_EQ(G, M);
  s.force_jacobian(sim.time(), e.y, K_q, K_v);
  s.iteration_matrix(sim.time(), e.y, 0.0, 1.0, 0.0, none, G);
  const double scale_v = 1.0 + K_v.cwiseAbs().maxCoeff();
  EXPECT_LT((G + K_v).cwiseAbs().maxCoeff(), 1e-6 * scale_v);
  s.iteration_matrix(sim.time(), e.y, 0.0, 0.0, 1.0, none, G);
  const double scale_q = 1.0 + K_q.cwiseAbs().maxCoeff();
  EXPECT_LT((G + K_q).cwiseAbs().maxCoeff(), 1e-6 * scale_q);
  // with the reactions, the geometric term of the constraint forces adds in
  s.iteration_matrix(sim.time(), e.y, 0.0, 0.0, 1.0, e.lambda, G);
  EXPECT_GT((G + K_q).cwiseAbs().maxCoeff(), 1e-3);
}

}  // namespace
}  // namespace ictus
