// Parameter sets that are deep (long chains of references) or wide (many
// independent parameters) and names muParser cannot take (issue 9, defect 5).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "ictus/error.h"
#include "ictus/model_file.h"

namespace ictus {
namespace {

std::string one_body_model(const std::string& parameters, const std::string& mass) {
  return fmt::format(
      "parameters:\n{}bodies:\n  bob: {{mass: {}, inertia: [1, 1, 1]}}\n"
      "simulate: {{until: 0.1}}\n",
      parameters, mass);
}

// Each parameter names the next: a resolver that recurses per reference
// overflows the stack long before the end of the chain.
TEST(ModelParameters, DeepChainResolves) {
  constexpr int kDepth = 25000;
  std::string parameters;
  for (int i = 0; i < kDepth; ++i) parameters += fmt::format("  p{}: p{} + 1\n", i, i + 1);
  parameters += fmt::format("  p{}: 1\n", kDepth);
  const Model model = parse_model(one_body_model(parameters, "p0"), "deep.yaml");
  EXPECT_DOUBLE_EQ(model.parameters().at("p0"), kDepth + 1.0);
}

TEST(ModelParameters, WideSetResolvesEachFromItsOwnReferences) {
  constexpr int kWidth = 6000;
  std::string parameters;
  for (int i = 0; i < kWidth; ++i) parameters += fmt::format("  q{}: {} * 0.5\n", i, i);
  const Model model = parse_model(one_body_model(parameters, "q10 + q20"), "wide.yaml");
  EXPECT_EQ(model.parameters().size(), static_cast<std::size_t>(kWidth));
  EXPECT_DOUBLE_EQ(model.parameters().at("q5999"), 2999.5);
  EXPECT_DOUBLE_EQ(model.bodies().at(0).mass, 15.0);
}

TEST(ModelParameters, CycleInADeepChainIsNamed) {
  std::string parameters;
  for (int i = 0; i < 3000; ++i) parameters += fmt::format("  c{}: c{} * 2\n", i, i + 1);
  parameters += "  c3000: c1500\n";
  try {
    (void)parse_model(one_body_model(parameters, "1"), "cycle.yaml");
    FAIL() << "a cycle was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(e.detail().find("cycle: c1500 -> c1501"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("c3000 -> c1500"), std::string::npos) << e.what();
  }
}

TEST(ModelParameters, UnknownNameStillSuggestsAParameter) {
  try {
    (void)parse_model(one_body_model("  length: 2\n  mass: lenght * 3\n", "mass"), "typo.yaml");
    FAIL() << "an unknown name was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(e.detail().find("did you mean 'length'"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line, 3);
  }
}

// muParser refuses identifiers longer than 100 characters with its own
// exception; the loader must say where and why.
TEST(ModelParameters, OverlongNameIsALocatedError) {
  const std::string name(300, 'x');
  try {
    (void)parse_model(one_body_model(fmt::format("  {}: 2\n", name), name), "long.yaml");
    FAIL() << "an overlong name was accepted";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.detail().find("at most 100 characters"), std::string::npos) << e.what();
  }
}

TEST(ModelParameters, OverlongNameInAFormulaIsALocatedError) {
  const std::string name(300, 'y');
  try {
    (void)parse_model(one_body_model("  a: 1\n", name + " + a"), "long_formula.yaml");
    FAIL() << "an overlong name was accepted";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.where().line, 4) << e.what();
  }
}

}  // namespace
}  // namespace ictus
