// Cost structure (issue: core acceptance): for a chain the sparse Cholesky
// factor of S = D M^-1 D^T has O(N) non-zeros, and its symbolic analysis is
// done once per structure, not per step.
#include <gtest/gtest.h>

#include "support/reference_models.h"
#include "support/test_support.h"

namespace ictus {
namespace {

long factor_nonzeros(int links) {
  System system(test::make_chain(links));
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  const StructureReport rep = system.structure_report(0.0, y);
  EXPECT_EQ(rep.rows, 5 * links);
  EXPECT_EQ(rep.dof, links);
  return rep.factor_nonzeros;
}

TEST(CostStructure, CholeskyFactorOfAChainGrowsLinearly) {
  const long n100 = factor_nonzeros(100);
  const long n1000 = factor_nonzeros(1000);
  // linear growth: ten times the links, ten times the non-zeros (a dense or
  // badly ordered factor would grow a hundredfold)
  const double ratio = static_cast<double>(n1000) / static_cast<double>(n100);
  EXPECT_GT(ratio, 9.5);
  EXPECT_LT(ratio, 10.5);
  EXPECT_LT(n1000, 100L * 1000L);  // a few dozen non-zeros per link
}

TEST(CostStructure, SymbolicAnalysisIsReusedDuringARun) {
  Model model = test::make_chain(20);
  model.settings().until = 0.2;
  Simulation simulation(model);
  const RunStatistics stats = simulation.run();
  EXPECT_GT(stats.integrator.steps, 10);
  EXPECT_EQ(simulation.system().structure_version(), 1);  // analysed once, at the start
  EXPECT_EQ(stats.structure_changes, 0);
}

}  // namespace
}  // namespace ictus
