// A fixed step beyond the stability limit of the method for the model makes
// the values grow without bound. Before the fix the run ended with the
// symptom of the overflow ("accelerations are not finite (singular
// constraint set, or a force formula returned NaN/inf)", or a force "not
// finite; check its formulas"); it must say that the step was too large
// (issue 13 defect 6).
#include <gtest/gtest.h>

#include <string>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

TEST(FixedStepDivergence, IsReportedAsAStepTooLargeForTheModel) {
  for (const char* example : {"examples/pendulum.yaml", "examples/spring_pendulum.yaml"}) {
    Model model = load_model(test::source_path(example));
    model.settings().integrator.name = "rk4";
    model.settings().integrator.given.clear();  // the file's rtol is not an rk4 option
    model.settings().integrator.step = 0.5;
    Simulation simulation(model);
    try {
      simulation.run();
      ADD_FAILURE() << example << ": the run did not fail";
    } catch (const SimulationError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the fixed step 0.5 s is too large for this model"), std::string::npos)
          << what;
      EXPECT_NE(what.find("grew without bound"), std::string::npos) << what;
      EXPECT_NE(what.find("adaptive method"), std::string::npos) << what;
    }
  }
}

TEST(FixedStepDivergence, AStableStepIsNotReported) {
  Model model = load_model(test::source_path("examples/pendulum.yaml"));
  model.settings().integrator.name = "rk4";
  model.settings().integrator.given.clear();
  model.settings().integrator.step = 1e-3;
  Simulation simulation(model);
  EXPECT_NO_THROW(simulation.run());
}

}  // namespace
}  // namespace ictus
