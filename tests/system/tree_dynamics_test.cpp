// The linear-time tree solve (src/tree_kkt_solver.h) against the general
// sparse path through S = D M^-1 D^T: on every bundled example and every
// model of tests/models, at states along a run (through its switches,
// releases, latches and impacts), y' from both agrees to round-off. Loops,
// redundant rows and joint friction (four-bars, slider-cranks, the engine)
// fall back to the sparse path, so there both are the same computation; the
// test checks that the fallback happened there, and that the tree solved
// wherever the structure is a tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/test_support.h"

namespace ictus {
namespace {

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const char* folder : {"examples", "tests/models"})
    for (const auto& entry : std::filesystem::directory_iterator(test::source_path(folder)))
      if (entry.path().extension() == ".yaml")
        names.push_back(std::string(folder) + "/" + entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// models the sparse path solves at every instant: a loop in the body/joint
// graph (four-bars, slider-cranks, the engines, the panels' synchronising
// linkage), or Coulomb friction in a joint or at a contact (its normal force
// needs S again, system_joint_friction.cpp)
bool sparse_only(const std::string& name) {
  for (const char* loop :
       {"examples/four_bar_redundant", "examples/slider_crank", "examples/engine_v8",
        "examples/engine_isolated", "examples/solar_panel_deployment", "examples/disk_slider",
        "examples/incline_block", "examples/pushed_block", "tests/models/four_bar_rrsc",
        "tests/models/ladder_friction", "tests/models/pin_friction_pendulum",
        "tests/models/stacked_blocks_friction"})
    if (name == loop) return true;
  return false;
}

class TreeDynamics : public ::testing::TestWithParam<std::string> {};

TEST_P(TreeDynamics, AgreesWithTheSparsePathToRoundOff) {
  const std::string name = GetParam();
  Model model = load_model(test::source_path(name + ".yaml"));
  SimulationSettings& s = model.settings();
  // the first second (or the run, if shorter) with a tight adaptive stepper
  s.until = std::min(s.until, s.start + 1.0);
  Simulation sim(model);
  System& system = sim.system();
  const int points = 25;
  int tree_solves = 0;
  int compared = 0;
  for (int k = 1; k <= points; ++k) {
    const double t_k = s.start + (s.until - s.start) * k / points;
    const bool running = sim.advance_to(t_k);
    const double t = sim.time();
    const VecX y = sim.state();
    VecX tree(y.size());
    VecX sparse(y.size());
    system.set_tree_dynamics(true);
    system.derivative(t, y, tree);
    tree_solves += system.tree_dynamics_used() ? 1 : 0;
    system.set_tree_dynamics(false);
    system.derivative(t, y, sparse);
    EXPECT_FALSE(system.tree_dynamics_used());
    system.set_tree_dynamics(true);
    // round-off relative to the largest rate (accelerations of order g and
    // above); the audit rates (powers) on their own scale
    const double scale = std::max(1.0, sparse.cwiseAbs().maxCoeff());
    EXPECT_LE((tree - sparse).cwiseAbs().maxCoeff(), 1e-9 * scale) << name << " at t = " << t;
    ++compared;
    if (!running) break;
  }
  EXPECT_GT(compared, 0);
  if (sparse_only(name)) {
    EXPECT_EQ(tree_solves, 0) << name << ": a loop or joint friction, solved by the sparse path";
  } else {
    EXPECT_GT(tree_solves, 0) << name << ": a tree, solved on the tree";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TreeDynamics, ::testing::ValuesIn(model_names()),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           std::replace(name.begin(), name.end(), '/', '_');
                           return name;
                         });

}  // namespace
}  // namespace ictus

namespace ictus {
namespace {

// A floating base (no joint to the ground) with three branches of every
// standard joint type, spinning and moving: a forest rooted at a body. The
// tree solve agrees with the sparse path; two revolutes between the same
// bodies (10 rows in one edge, 5 of them dependent) go to the sparse path.
Model branched_tree(bool doubled_hinge) {
  Model model;
  model.set_gravity(Vec3(0.0, 0.0, -9.81));
  auto body = [&model](const std::string& name, const Vec3& at, const Vec3& w) {
    Body b;
    b.name = name;
    b.mass = 1.3;
    b.inertia = Vec3(0.2, 0.3, 0.4).asDiagonal();
    b.position = at;
    b.angular_velocity = w;
    model.add_body(b);
  };
  body("base", Vec3(0, 0, 0), Vec3(0.3, -1.0, 2.0));
  body("a", Vec3(1, 0, 0), Vec3(0.3, -1.0, 2.0));
  body("b", Vec3(0, 1, 0), Vec3(0.3, -1.0, 2.0));
  body("c", Vec3(0, 0, 1), Vec3(0.3, -1.0, 2.0));
  body("a2", Vec3(2, 0, 0), Vec3(0.3, -1.0, 2.0));
  auto joint = [&model](const std::string& name, const std::string& type, const std::string& base,
                        const std::string& follower, const Vec3& at, const Vec3& axis) {
    JointPlacement place;
    place.origin_W = at;
    place.axes_W = frame_from_z(axis.normalized());
    model.add_joint(name, type, base, follower, place);
  };
  joint("ja", "revolute", "base", "a", Vec3(0.5, 0, 0), Vec3(0, 0, 1));
  joint("jb", "spherical", "base", "b", Vec3(0, 0.5, 0), Vec3(0, 0, 1));
  joint("jc", "cylindrical", "base", "c", Vec3(0, 0, 0.5), Vec3(0, 1, 1));
  joint("ja2", "universal", "a", "a2", Vec3(1.5, 0, 0), Vec3(1, 0, 0));
  if (doubled_hinge) joint("ja_again", "revolute", "base", "a", Vec3(0.5, 0, 0), Vec3(0, 0, 1));
  model.settings().until = 0.3;
  return model;
}

TEST(TreeDynamicsBranched, FloatingBaseWithEveryJointTypeAgreesWithTheSparsePath) {
  for (const bool doubled : {false, true}) {
    SCOPED_TRACE(doubled ? "doubled hinge" : "tree");
    Simulation sim(branched_tree(doubled));
    System& system = sim.system();
    for (const double t_k : {0.1, 0.2, 0.3}) {
      sim.advance_to(t_k);
      const VecX y = sim.state();
      VecX tree(y.size());
      VecX sparse(y.size());
      system.derivative(sim.time(), y, tree);
      EXPECT_EQ(system.tree_dynamics_used(), !doubled);
      system.set_tree_dynamics(false);
      system.derivative(sim.time(), y, sparse);
      system.set_tree_dynamics(true);
      EXPECT_LE((tree - sparse).cwiseAbs().maxCoeff(),
                1e-10 * std::max(1.0, sparse.cwiseAbs().maxCoeff()));
    }
  }
}

}  // namespace
}  // namespace ictus
