// ElementSwitching::report_beyond_limits: a stuck element that an instant's
// stick/slip decisions leave beyond its limit is reported in the event log,
// never left silent (docs/theory/friction.md, "A box in a corner"). A block
// of 2 kg in a horizontal guide with mu_s = 0.4 (F_max = mu_s m g = 7.848 N),
// held stuck while a force along the guide pushes it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "../../src/element_switching.h"
#include "ictus/model_file.h"
#include "ictus/system.h"

namespace ictus {
namespace {

constexpr const char* kStuckBlock = R"(ictus: 1
name: block held stuck in a frictional guide
parameters: {F: 5}
gravity: [0, -9.81, 0]
bodies:
  block: {mass: 2, inertia: [0.1, 0.1, 0.1]}
joints:
  guide:
    type: prismatic
    between: [ground, block]
    at: [0, 0, 0]
    axis: [1, 0, 0]
    friction: {mu: 0.3, mu_static: 0.4}
forces:
  push: {type: force, on: block, components: [F, 0, 0]}
)";

// The records report_beyond_limits logs for the block pushed by F, stuck.
std::vector<EventRecord> reports_for_push(double F) {
  const Model model = parse_model(kStuckBlock, "stuck block", {{"F", fmt::format("{}", F)}});
  System system(model);
  VecX y = system.initial_state();
  EXPECT_EQ(system.stick_slip_count(), 1);
  system.set_stick_slip_mode(0, kStick);
  std::vector<EventRecord> records;
  internal::ElementSwitching switching(system,
                                       [&](EventRecord r) { records.push_back(std::move(r)); });
  switching.report_beyond_limits(0.0, y);
  return records;
}

TEST(ElementSwitchingReport, AStuckElementWithinItsLimitIsNotReported) {
  EXPECT_TRUE(reports_for_push(5.0).empty());
  EXPECT_TRUE(reports_for_push(7.8).empty());
}

TEST(ElementSwitchingReport, AStuckElementBeyondItsLimitIsReportedWithItsForceAndLimit) {
  const std::vector<EventRecord> records = reports_for_push(10.0);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].kind, "warning");
  EXPECT_NE(records[0].name.find("guide"), std::string::npos) << records[0].name;
  // |F| = 10 N held against F_max = 0.4 * 2 * 9.81 N
  EXPECT_NE(records[0].detail.find("|F| = 10,"), std::string::npos) << records[0].detail;
  EXPECT_NE(records[0].detail.find("F_max = 7.848)"), std::string::npos) << records[0].detail;
}

}  // namespace
}  // namespace ictus
