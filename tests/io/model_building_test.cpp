// Building a model element by element (the C++ and Python APIs): an element
// that is refused leaves no trace, so that the corrected element can be
// added under the same name. Before, the name was claimed before the element
// was checked, and the retry failed with "the name 'bob' is already used".
#include <gtest/gtest.h>

#include "ictus/error.h"
#include "ictus/model.h"

namespace ictus {
namespace {

TEST(ModelBuilding, ARefusedBodyLeavesItsNameFree) {
  Model model;
  Body bad;
  bad.name = "bob";
  bad.mass = -1.0;
  EXPECT_THROW(model.add_body(bad), ModelError);
  Body good;
  good.name = "bob";
  EXPECT_NO_THROW(model.add_body(good));
  EXPECT_EQ(model.bodies().size(), 1u);
  // a name that is taken stays taken
  EXPECT_THROW(model.add_body(good), ModelError);
  EXPECT_EQ(model.bodies().size(), 1u);
}

TEST(ModelBuilding, ARefusedJointLeavesItsNameFree) {
  Model model;
  Body arm;
  arm.name = "arm";
  arm.position = Vec3(1, 0, 0);
  model.add_body(arm);
  const JointPlacement placement;
  // one body twice: refused after the name was looked at
  EXPECT_THROW(model.add_joint("pin", "revolute", "arm", "arm", placement), ModelError);
  EXPECT_NO_THROW(model.add_joint("pin", "revolute", "ground", "arm", placement));
  EXPECT_EQ(model.joints().size(), 1u);
}

}  // namespace
}  // namespace ictus
