// A planar four-bar built from four 3-D revolute joints is overconstrained:
// 20 rows, rank 17, one degree of freedom (issue: core acceptance). The
// dependent rows are named and eliminated, and the motion equals that of the
// same linkage built without redundancy (revolute, revolute, spherical,
// cylindrical: 17 independent rows).
#include <gtest/gtest.h>

#include <algorithm>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

TEST(FourBar, RedundantRowsAreFoundAndNamed) {
  const Model model = load_model(test::source_path("examples/four_bar_redundant.yaml"));
  System system(model);
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  const StructureReport rep = system.structure_report(0.0, y);
  EXPECT_EQ(rep.rows, 20);
  EXPECT_EQ(rep.independent_rows, 17);
  EXPECT_EQ(rep.dof, 1);
  EXPECT_EQ(rep.gruebler_dof, -2);
  ASSERT_EQ(rep.redundant_rows.size(), 3u);
  // a planar loop is redundant out of its plane: translation along z and
  // rotations about x and y
  for (const std::string& row : rep.redundant_rows) {
    const bool out_of_plane =
        row.ends_with(".point.z") || row.ends_with(".lock_x") || row.ends_with(".lock_y");
    EXPECT_TRUE(out_of_plane) << row;
  }
  EXPECT_EQ(rep.non_unique_reactions.size(), 4u);
  // the in-plane reactions are determined; the out-of-plane ones are not
  EXPECT_EQ(rep.non_unique_components,
            (std::vector<std::string>{"A (Fz, Mx, My)", "B (Fz, Mx, My)", "C (Fz, Mx, My)",
                                      "D (Fz, Mx, My)"}));
  ASSERT_FALSE(system.warnings().empty());
  EXPECT_NE(system.warnings().front().find("redundant"), std::string::npos);
  EXPECT_NE(system.warnings().front().find(rep.redundant_rows.front()), std::string::npos);
}

TEST(FourBar, NonRedundantVersionHasFullRank) {
  const Model model = load_model(test::source_path("tests/models/four_bar_rrsc.yaml"));
  System system(model);
  VecX y = system.initial_state();
  system.assemble(0.0, y);
  const StructureReport rep = system.structure_report(0.0, y);
  EXPECT_EQ(rep.rows, 17);
  EXPECT_EQ(rep.independent_rows, 17);
  EXPECT_EQ(rep.dof, 1);
  EXPECT_TRUE(rep.redundant_rows.empty());
  EXPECT_TRUE(system.warnings().empty());
}

TEST(FourBar, MotionEqualsTheNonRedundantLinkage) {
  const std::vector<std::string> channels = {"A.angle",  "coupler.x", "coupler.y",
                                             "rocker.x", "rocker.y",  "energy.total"};
  const test::RecordedRun redundant = test::run_and_record(
      load_model(test::source_path("examples/four_bar_redundant.yaml")), channels);
  const test::RecordedRun reference = test::run_and_record(
      load_model(test::source_path("tests/models/four_bar_rrsc.yaml")), channels);
  ASSERT_EQ(redundant.t.size(), reference.t.size());
  // both integrate at rtol 1e-10 over 5 s of a swinging linkage
  constexpr double kTol = 1e-7;
  double swing = 0.0;
  for (std::size_t k = 0; k < redundant.t.size(); ++k) {
    swing = std::max(swing, std::abs(redundant["A.angle"][k] - redundant["A.angle"][0]));
    for (const char* c : {"A.angle", "coupler.x", "coupler.y", "rocker.x", "rocker.y"})
      EXPECT_NEAR(redundant[c][k], reference[c][k], kTol) << c << " at t = " << redundant.t[k];
  }
  EXPECT_GT(swing, 0.5);  // it really moves
}

}  // namespace
}  // namespace ictus
