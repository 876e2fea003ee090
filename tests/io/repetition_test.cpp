// Repetition in model files: `repeat` blocks with an index and `include` of a
// file with parameters (docs/model-file.md, "Repetition and included files").
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ictus/error.h"
#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

void expect_same_structure(const Model& a, const Model& b, double position_tolerance) {
  ASSERT_EQ(a.bodies().size(), b.bodies().size());
  for (std::size_t k = 0; k < a.bodies().size(); ++k) {
    EXPECT_EQ(a.bodies()[k].name, b.bodies()[k].name);
    EXPECT_EQ(a.bodies()[k].mass, b.bodies()[k].mass);
    EXPECT_EQ(a.bodies()[k].inertia, b.bodies()[k].inertia) << a.bodies()[k].name;
    EXPECT_LT((a.bodies()[k].position - b.bodies()[k].position).norm(), position_tolerance)
        << a.bodies()[k].name;
  }
  ASSERT_EQ(a.joints().size(), b.joints().size());
  for (std::size_t k = 0; k < a.joints().size(); ++k) {
    EXPECT_EQ(a.joints()[k].name, b.joints()[k].name);
    EXPECT_EQ(a.joints()[k].type, b.joints()[k].type);
    EXPECT_EQ(a.joints()[k].base, b.joints()[k].base);
    EXPECT_EQ(a.joints()[k].follower, b.joints()[k].follower);
  }
}

// examples/engine_v8.yaml (a repeat block, 58 lines) against the 225 lines
// the former generator script wrote (12 significant digits per number):
// the same mechanism, the same run to the generator's rounding.
TEST(Repetition, EngineWrittenWithRepeatMatchesTheGeneratedOne) {
  const Model written = load_model(test::source_path("examples/engine_v8.yaml"));
  const Model generated =
      load_model(test::source_path("tests/models/engine/engine_v8_generated.yaml"));
  expect_same_structure(written, generated, 1e-11);
  std::vector<std::string> channels = {
      "main_bearing.angle", "main_bearing.omega", "main_bearing.Fx", "main_bearing.Fy",
      "crank_pin0.Fx",      "crank_pin0.Fy",      "energy.kinetic",  "energy.total"};
  for (int i = 0; i < 8; ++i) {
    channels.push_back(fmt::format("cylinder{}.x", i));
    channels.push_back(fmt::format("cylinder{}.v", i));
  }
  const test::RecordedRun a = test::run_and_record(written, channels);
  const test::RecordedRun b = test::run_and_record(generated, channels);
  ASSERT_EQ(a.t, b.t);
  for (const std::string& c : channels) {
    const double scale = std::max(1.0, b.max_abs(c));
    for (std::size_t k = 0; k < a.t.size(); ++k)
      ASSERT_NEAR(a[c][k], b[c][k], 1e-9 * scale) << c << " at t = " << a.t[k];
  }
}

// A chain whose links 1-3 are one included file instantiated by a repeat
// block is the chain written out by hand, to the last bit.
TEST(Repetition, ChainOfIncludedLinksIsTheChainWrittenOut) {
  const Model included = load_model(test::source_path("tests/models/include/chain.yaml"));
  const Model written =
      load_model(test::source_path("tests/models/include/chain_written_out.yaml"));
  expect_same_structure(included, written, 1e-15);
  const std::vector<std::string> channels = {"hinge0.angle", "hinge1.angle", "hinge2.angle",
                                             "hinge3.angle", "energy.total"};
  const test::RecordedRun a = test::run_and_record(included, channels);
  const test::RecordedRun b = test::run_and_record(written, channels);
  for (const std::string& c : channels) EXPECT_EQ(a[c], b[c]) << c;
}

TEST(Repetition, DollarFormulasMakeNamesAndValues) {
  const Model model = parse_model(R"yaml(
parameters: {m: 2}
repeat:
  bobs:
    index: i
    count: 3
    parameters: {x: 2*i}
    bodies:
      bob$(2*i + 1): {mass: m + i, inertia: [1, 1, 1], position: [x, 0, 0]}
    forces:
      push$i: {type: force, on: bob$(2*i + 1), components: [t*$x, 0, 0]}
)yaml",
                                  "bobs.yaml");
  ASSERT_EQ(model.bodies().size(), 3u);
  EXPECT_EQ(model.bodies()[2].name, "bob5");
  EXPECT_EQ(model.bodies()[2].mass, 4.0);
  EXPECT_EQ(model.bodies()[2].position.x(), 4.0);
  ASSERT_EQ(model.forces().size(), 3u);
  EXPECT_EQ(model.forces()[2]->name(), "push2");
}

TEST(Repetition, ErrorInAnInstanceNamesItAndTheLineOfTheIncludedFile) {
  try {
    (void)load_model(test::source_path("tests/bad_models/include_error_in_instance.yaml"));
    FAIL() << "a zero mass was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(e.where().file.find("parts/link_of_mass.yaml"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line, 7);
    EXPECT_NE(e.detail().find("(in repeat 'links' with k = 1)"), std::string::npos) << e.what();
  }
}

TEST(Repetition, IncludedFilesCannotRepeatOrIncludeAgain) {
  const std::string dir = test::source_path("tests/models/include");
  try {
    (void)parse_model("include: {again: {file: chain.yaml}}\n", dir + "/outer.yaml");
    FAIL() << "a nested repeat was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(e.detail().find("unknown key"), std::string::npos) << e.what();
  }
  try {
    (void)parse_model("include: {gone: {file: no_such_part.yaml}}\n", dir + "/outer.yaml");
    FAIL() << "a missing file was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(e.detail().find("no such file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ictus
