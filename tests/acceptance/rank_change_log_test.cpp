// A chain of four parallelograms (five cranks on a line of ground pivots,
// four couplers) swings through its singular configuration, where all links
// are collinear and the rank of D falls by up to four. Each rank change is
// logged with its time and the rows involved, and the structural warning
// ("redundant constraints ...") is said once (issue 13 defects 2 and 4:
// before, it was repeated at every re-detection, about 11,600 times for a
// chain of two with projection, and a rank change named no rows).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

std::string parallelogram_chain(int count) {
  std::string text = "parameters: {r: 0.3, d: 1.0, mc: 1.0, mk: 0.5, w0: 4.0}\nbodies:\n";
  for (int i = 0; i <= count; ++i)
    text += fmt::format(
        "  crank{0}: {{mass: mk, inertia: [mk*r^2/12, mk*r^2/12, mk*r^2/12], "
        "position: [{0}*d, r/2, 0]}}\n",
        i);
  for (int i = 0; i < count; ++i)
    text += fmt::format(
        "  coupler{0}: {{mass: mc, inertia: [mc*d^2/12, mc*d^2/12, mc*d^2/12], "
        "position: [{0}*d + d/2, r, 0]}}\n",
        i);
  text += "joints:\n";
  for (int i = 0; i <= count; ++i)
    text += fmt::format(
        "  pivot{0}: {{type: revolute, between: [ground, crank{0}], at: [{0}*d, 0, 0], "
        "axis: [0, 0, 1]}}\n",
        i);
  for (int i = 0; i < count; ++i)
    text += fmt::format(
        "  left{0}: {{type: revolute, between: [crank{0}, coupler{0}], at: [{0}*d, r, 0], "
        "axis: [0, 0, 1]}}\n"
        "  right{0}: {{type: revolute, between: [crank{1}, coupler{0}], at: [{1}*d, r, 0], "
        "axis: [0, 0, 1]}}\n",
        i, i + 1);
  text +=
      "gravity: [0, -9.81, 0]\ninitial_velocities: {pivot0.omega: w0}\n"
      "simulate: {until: 3, output_step: 0.01}\n";
  return text;
}

TEST(RankChangeLog, EachChangeNamesItsTimeAndRowsAndWarningsAreNotRepeated) {
  const Model model = parse_model(parallelogram_chain(4), "chain.yaml");
  Simulation simulation(model);
  simulation.run();
  int rank_changes = 0, structural = 0;
  for (const EventRecord& r : simulation.events()) {
    if (r.kind != "warning") continue;
    if (r.detail.find("the constraint rank changed") != std::string::npos) {
      ++rank_changes;
      EXPECT_EQ(r.detail.rfind("t = ", 0), 0u) << r.detail;
      EXPECT_NE(r.detail.find("rows left"), std::string::npos) << r.detail;
      EXPECT_NE(r.detail.find("singular configuration"), std::string::npos) << r.detail;
    }
    if (r.detail.rfind("redundant constraints", 0) == 0) ++structural;
  }
  EXPECT_GE(rank_changes, 2);  // at least one passage: down and up again
  EXPECT_EQ(structural, 1);
  // every warning text is distinct
  std::vector<std::string> texts;
  for (const EventRecord& r : simulation.events())
    if (r.kind == "warning") texts.push_back(r.detail);
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(std::adjacent_find(texts.begin(), texts.end()), texts.end());
}

}  // namespace
}  // namespace ictus
