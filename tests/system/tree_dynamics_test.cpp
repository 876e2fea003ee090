// The linear-time tree solve (src/tree_kkt_solver.h) against the general
// sparse path through S = D M^-1 D^T: on every bundled example and every
// model of tests/models, at states along a run (through its switches,
// releases, latches and impacts), y' from both agrees to round-off. Loops
// (four-bars, slider-cranks, the engines, redundant rows among them) are
// solved on a spanning tree with their cut rows closed by a Schur
// complement; Coulomb friction falls back to the sparse path, so there both
// are the same computation. The test checks which path ran on each model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/simulation.h"
#include "support/reference_models.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// models the sparse path solves at every instant: Coulomb friction in a
// joint or at a contact (its normal force needs S again,
// system_joint_friction.cpp)
bool sparse_only(const std::string& name) {
  for (const char* friction :
       {"examples/disk_slider", "examples/double_pendulum_friction", "examples/incline_block",
        "examples/pushed_block", "tests/models/ball_double_pendulum",
        "tests/models/ball_friction_pendulum", "tests/models/ball_friction_spherical_pendulum",
        "tests/models/ball_friction_spin", "tests/models/ball_torque_ramp",
        "tests/models/ladder_friction", "tests/models/pin_friction_pendulum",
        "tests/models/stacked_blocks_friction", "tests/models/three_flat_boxes",
        "tests/models/triple_pendulum_friction"})
    if (name == friction) return true;
  return false;
}

// models with a loop in the body/joint graph (four-bars, slider-cranks, the
// engines, the panels' synchronising linkage, the fairing's seam until it
// opens): solved on a spanning tree with cut rows
bool has_loop(const std::string& name) {
  for (const char* loop :
       {"examples/four_bar_redundant", "examples/slider_crank", "examples/engine_v8",
        "examples/engine_isolated", "examples/solar_panel_deployment",
        "examples/fairing_separation", "tests/models/four_bar_rrsc"})
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
  int cut_solves = 0;  // tree solves with loops closed on cut rows
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
    cut_solves += system.tree_dynamics_cut_rows() > 0 ? 1 : 0;
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
    EXPECT_EQ(tree_solves, 0) << name << ": Coulomb friction, solved by the sparse path";
  } else {
    EXPECT_GT(tree_solves, 0) << name << ": solved on the tree";
  }
  if (has_loop(name) && !sparse_only(name)) {
    EXPECT_GT(cut_solves, 0) << name << ": a loop, closed on cut rows";
  } else {
    EXPECT_EQ(cut_solves, 0) << name << ": no loop, no cut rows";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TreeDynamics, ::testing::ValuesIn(test::bundled_model_names()),
                         test::ModelTestName());

}  // namespace
}  // namespace ictus

namespace ictus {
namespace {

// A floating base (no joint to the ground) with three branches of every
// standard joint type, spinning and moving: a forest rooted at a body. The
// tree solve agrees with the sparse path, also with two revolutes between
// the same bodies (10 rows in one edge, 5 of them dependent and dropped: the
// tree takes the 5 kept rows).
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
      EXPECT_TRUE(system.tree_dynamics_used());
      EXPECT_EQ(system.tree_dynamics_cut_rows(), 0);
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

namespace ictus {
namespace {

// A Sarrus six-bar (as tests/acceptance/geometric_rank_test.cpp), an
// overconstrained 6R loop like Bricard's: 30 rows, rank 29.
Model sarrus_six_bar() {
  return parse_model(R"yaml(
parameters: {a: 0.5, c: 0.5, h: 1, m: 1, J: 1/12, I: 1e-3}
bodies:
  a1: {mass: m, inertia: [J + I, J + I, I], position: [a, 0, h/2]}
  a2: {mass: m, inertia: [I, J + I, J + I], position: [a + c/2, 0, h]}
  b1: {mass: m, inertia: [J + I, J + I, I], position: [0, a, h/2]}
  b2: {mass: m, inertia: [J + I, I, J + I], position: [0, a + c/2, h]}
  top: {mass: 2, inertia: [0.2, 0.2, 0.4], position: [(a + c)/2, (a + c)/2, h]}
joints:
  ga: {type: revolute, between: [ground, a1], at: [a, 0, 0], axis: [0, 1, 0]}
  ka: {type: revolute, between: [a1, a2], at: [a, 0, h], axis: [0, 1, 0]}
  ta: {type: revolute, between: [a2, top], at: [a + c, 0, h], axis: [0, 1, 0]}
  gb: {type: revolute, between: [ground, b1], at: [0, a, 0], axis: [1, 0, 0]}
  kb: {type: revolute, between: [b1, b2], at: [0, a, h], axis: [1, 0, 0]}
  tb: {type: revolute, between: [b2, top], at: [0, a + c, h], axis: [1, 0, 0]}
gravity: [0, 0, -9.81]
simulate: {until: 0.3, output_step: 0.01}
)yaml",
                     "sarrus.yaml");
}

// Redundant loops: the dependent rows are dropped (constraint_rank.h) and
// the kept ones solved on a spanning tree with cut rows. Along a run of a
// chain of parallelograms the rank falls twice per turn (all links
// collinear): there the small pivots hand the evaluation to the sparse path,
// which decides the rank, and the tree takes over again after it.
TEST(TreeDynamicsLoops, RedundantLoopsAgreeWithTheSparsePathThroughRankChanges) {
  struct Case {
    const char* name;
    Model model;
    double until;
  };
  const Case cases[] = {{"one parallelogram", test::make_parallelogram_chain(1), 1.5},
                        {"four parallelograms", test::make_parallelogram_chain(4), 1.5},
                        {"Sarrus six-bar", sarrus_six_bar(), 0.3}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Simulation sim(c.model);
    System& system = sim.system();
    const int points = 60;
    int cut_solves = 0;
    for (int k = 1; k <= points; ++k) {
      sim.advance_to(c.until * k / points);
      const VecX y = sim.state();
      VecX tree(y.size());
      VecX sparse(y.size());
      system.derivative(sim.time(), y, tree);
      cut_solves += system.tree_dynamics_cut_rows() > 0 ? 1 : 0;
      system.set_tree_dynamics(false);
      system.derivative(sim.time(), y, sparse);
      system.set_tree_dynamics(true);
      EXPECT_LE((tree - sparse).cwiseAbs().maxCoeff(),
                1e-9 * std::max(1.0, sparse.cwiseAbs().maxCoeff()))
          << "at t = " << sim.time();
    }
    // the tree with cut rows away from the singular configurations
    EXPECT_GT(cut_solves, points / 2);
  }
}

}  // namespace
}  // namespace ictus
