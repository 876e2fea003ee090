// A force formula that reads another force element's channel sees the value
// of the same evaluation, whatever the order of the elements in the file
// (issue 9, defect 7: slots were refreshed in the order they were bound, so
// an element listed first read the channel of one listed later one evaluation
// late).
#include <gtest/gtest.h>

#include <string>

#include "ictus/error.h"
#include "ictus/model_file.h"
#include "ictus/system.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// `follow` (listed first) pushes with the force `lead` (listed second)
// computes from the body's position: follow.Fx = 2 lead.Fx = 2 * 10 * b.x.
constexpr const char* kTwoLoads = R"yaml(
bodies:
  b: {mass: 1, inertia: [1, 1, 1], position: [0.5, 0, 0]}
forces:
  follow: {type: force, on: b, components: [2 * lead.Fx, 0, 0]}
  lead: {type: force, on: b, components: [10 * b.x, 0, 0]}
simulate: {until: 1}
)yaml";

TEST(ChannelOrder, AForceReadsTheChannelOfALaterElementFromTheSameEvaluation) {
  const Model model = parse_model(kTwoLoads, "two_loads.yaml");
  System system(model);
  VecX y = system.initial_state();
  const int follow = system.find_channel("follow.Fx");
  const int lead = system.find_channel("lead.Fx");
  for (const double x : {0.5, 1.5, -2.0}) {
    y(0) = x;  // b's position x (the first entry of the state)
    system.evaluate(0.0, y, Stage::kKinematics);
    EXPECT_DOUBLE_EQ(system.channel_value(lead), 10.0 * x);
    EXPECT_DOUBLE_EQ(system.channel_value(follow), 20.0 * x) << "x = " << x;
  }
}

TEST(ChannelOrder, ForceElementsReadingEachOthersChannelsAreACycle) {
  const std::string text = R"yaml(
bodies:
  b: {mass: 1, inertia: [1, 1, 1]}
forces:
  one: {type: force, on: b, components: [two.Fx + 1, 0, 0]}
  two: {type: force, on: b, components: [one.Fx, 0, 0]}
simulate: {until: 1}
)yaml";
  const Model model = parse_model(text, "cycle.yaml");
  try {
    const System system(model);
    FAIL() << "a cycle of force channels was accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(e.detail().find("cycle"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("one.Fx"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("two.Fx"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ictus
