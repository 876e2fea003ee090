// A model without bodies (the fuzzer's corpus holds one): every stepper that
// accepts it runs it to the end with zeros in every channel, and the
// SUNDIALS steppers refuse it with a message. Under the sanitizers this is
// the test of the empty position vectors (a null data pointer once reached
// memcmp in the evaluation skipping).
#include <gtest/gtest.h>

#include <string>

#include "ictus/error.h"
#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr const char* kEmpty = R"(ictus: 1
name: empty
simulate: {until: 0.1, output_step: 0.01}
)";

Model empty_with(const std::string& integrator) {
  Model model = parse_model(kEmpty, "empty");
  IntegratorSettings& in = model.settings().integrator;
  in.name = integrator;
  const std::string adaptive = " dopri5 rkf45 cvode ida ";
  if (adaptive.find(" " + integrator + " ") == std::string::npos) {
    in.step = 0.01;
    in.given = {"step"};
    in.given_where = {in.where};
  }
  return model;
}

TEST(EmptyModel, EveryFixedAndAdaptiveStepperRunsItToTheEnd) {
  for (const char* integrator :
       {"rk4", "dopri5", "rkf45", "newmark", "wilson", "hht", "generalized_alpha", "moreau_jean"}) {
    const test::RecordedRun r =
        test::run_and_record(empty_with(integrator), {"energy.kinetic", "system.violation"});
    ASSERT_FALSE(r.t.empty()) << integrator;
    EXPECT_NEAR(r.t.back(), 0.1, 1e-12) << integrator;
    EXPECT_EQ(r.max_abs("energy.kinetic"), 0.0) << integrator;
    EXPECT_EQ(r.max_abs("system.violation"), 0.0) << integrator;
  }
}

TEST(EmptyModel, SundialsSteppersRefuseItWithAMessage) {
  for (const char* integrator : {"cvode", "ida"}) {
    try {
      (void)test::run_and_record(empty_with(integrator), {"energy.kinetic"});
      ADD_FAILURE() << integrator << " ran a model without bodies";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("needs at least one body"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace ictus
