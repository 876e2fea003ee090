// Load Jacobians of every force element type against the global finite
// difference of the System's loads (issue 6; docs/theory/jacobians.md).
//
// Each model holds one element type (plus the gyroscopic term that every
// body with a spin carries); at random states off the constraints (joint
// frames apart and turned, random twists) the analytic Jacobian
// (JacobianMethod::kAnalytic) and the element-local finite difference
// (kElementFiniteDifference) must agree with the plain global central
// difference (kGlobalFiniteDifference).
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>
#include <random>
#include <string>

#include "ictus/model_file.h"
#include "ictus/system.h"

namespace ictus {
namespace {

// Central differences with h = eps^(1/3) max(|x|, 1): truncation O(h^2) and
// round-off O(eps / h), both ~1e-10 relative to the loads' scale; 1e-6
// relative to the largest entry of the matrix leaves four orders of margin
// and is still far below any error in a derivative formula (those are O(1)).
constexpr double kRelativeTolerance = 1e-6;

// Bodies shared by the models: a off the axes, b turned and with a full
// inertia tensor, both given twists by the random states anyway.
const std::string kBodies = R"y(
ictus: 1
name: jacobian test
bodies:
  a:
    mass: 2.0
    inertia: [0.3, 0.4, 0.5, 0.01, 0.02, -0.03]
    position: [0.2, -0.1, 0.3]
  b:
    mass: 1.5
    inertia: [0.2, 0.25, 0.35, 0.0, 0.01, 0.02]
    position: [1.0, 0.4, -0.2]
    orientation: {axis: [0, 0, 1], angle: 30*deg}
)y";

struct Case {
  std::string name;
  std::string yaml;   // appended to kBodies
  int slip_mode = 2;  // 2: leave the stick/slip modes as they are
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Case> cases() {
  return {
      {"gravity", "gravity: [0, 0, -9.81]\n"},
      {"gyroscopic", ""},  // no element: the gyroscopic term alone
      {"spring_damper_points", R"y(
forces:
  strut:
    type: spring_damper
    between: [a, b]
    points: [[0.5, 0.1, 0.4], [0.8, 0.3, -0.1]]
    stiffness: 2000
    damping: 15
    free_length: 0.2
    preload: 50
  tether:
    type: spring_damper
    between: [ground, b]
    points: [[0, 0, 1], [1.2, 0.5, -0.1]]
    stiffness: 300
    damping: 4
)y"},
      {"spring_damper_joint_translation", R"y(
joints:
  slide:
    type: cylindrical
    between: [a, b]
    at: [0.6, 0.1, 0.0]
    axis: [0, 0.6, 0.8]
forces:
  mount:
    type: spring_damper
    joint: slide
    stiffness: 1500
    damping: 12
    free_position: 0.05
    preload: 20
)y"},
      {"rotational_spring_damper", R"y(
joints:
  hinge:
    type: revolute
    between: [a, b]
    at: [0.6, 0.1, 0.0]
    axis: [0.6, 0, 0.8]
    reference: [0.8, 0, -0.6]
    initial_angle: 0.3
forces:
  torsion:
    type: rotational_spring_damper
    joint: hinge
    stiffness: 80
    damping: 1.5
    free_angle: 0.1
    preload: 2
)y"},
      {"force_and_torque_formulas", R"y(
forces:
  push:
    type: force
    on: b
    at: [1.3, 0.2, 0.1]
    frame: body
    components: ["2*b.x + sin(t)", "-3*b.vz", "b.wx*b.y"]
  drag:
    type: force
    on: a
    direction: [1, 0, 0]
    value: "-4*a.vx*abs(a.vx)"
  twist:
    type: torque
    on: b
    frame: world
    direction: [0, 0, 1]
    value: "1.5*b.z - 0.7*b.wy"
)y"},
      {"structural_damping_slip", R"y(
joints:
  slide:
    type: prismatic
    between: [a, b]
    at: [0.6, 0.1, 0.0]
    axis: [0, 0.6, 0.8]
forces:
  mount:
    type: spring_damper
    joint: slide
    stiffness: 1500
    damping: 3
    free_position: -0.4
    structural_damping: 0.48
)y",
       -1},
      {"dry_friction_slip", R"y(
joints:
  hinge:
    type: revolute
    between: [a, b]
    at: [0.6, 0.1, 0.0]
    axis: [0.6, 0, 0.8]
forces:
  brake:
    type: rotational_spring_damper
    joint: hinge
    stiffness: 40
    free_angle: -0.8
    structural_damping: 0.2
    dry_friction: 3
)y",
       1},
  };
}

// Largest |A - B| relative to the largest |B| (floor 1: entries of a zero
// Jacobian are compared absolutely).
double relative_difference(const MatX& A, const MatX& B) {
  return (A - B).cwiseAbs().maxCoeff() / std::max(B.cwiseAbs().maxCoeff(), 1.0);
}

// A random state off the constraints: positions moved by a random tangent
// increment (|component| <= 0.3 m or rad), velocities uniform in [-2, 2].
VecX random_state(const System& system, std::mt19937& rng) {
  const StateLayout& l = system.layout();
  std::uniform_real_distribution<double> small(-0.3, 0.3);
  std::uniform_real_distribution<double> speed(-2.0, 2.0);
  VecX y = system.initial_state();
  VecX dq(l.velocity_size());
  for (Eigen::Index i = 0; i < dq.size(); ++i) dq(i) = small(rng);
  const VecX q0 = l.positions(y);
  integrate_positions(l, q0, dq, l.positions(y));
  for (int i = 0; i < l.velocity_size(); ++i) y(l.velocity_offset() + i) = speed(rng);
  return y;
}

class ForceJacobianTest : public ::testing::TestWithParam<Case> {};

TEST_P(ForceJacobianTest, AgreesWithGlobalFiniteDifference) {
  const Case& c = GetParam();
  const Model model = parse_model(kBodies + c.yaml, c.name + ".yaml");
  System system(model);
  if (c.slip_mode != 2)
    for (int k = 0; k < system.stick_slip_count(); ++k) system.set_stick_slip_mode(k, c.slip_mode);
  std::mt19937 rng(20240611);
  double worst = 0.0;
  for (int trial = 0; trial < 4; ++trial) {
    const VecX y = random_state(system, rng);
    const double t = 0.37 * trial;
    MatX Kq_a, Kv_a, Kq_e, Kv_e, Kq_g, Kv_g;
    system.force_jacobian(t, y, Kq_a, Kv_a, JacobianMethod::kAnalytic);
    system.force_jacobian(t, y, Kq_e, Kv_e, JacobianMethod::kElementFiniteDifference);
    system.force_jacobian(t, y, Kq_g, Kv_g, JacobianMethod::kGlobalFiniteDifference);
    ASSERT_EQ(Kq_a.rows(), 12);
    const double errors[] = {relative_difference(Kq_a, Kq_g), relative_difference(Kv_a, Kv_g),
                             relative_difference(Kq_e, Kq_g), relative_difference(Kv_e, Kv_g)};
    const char* labels[] = {"analytic K_q", "analytic K_v", "element FD K_q", "element FD K_v"};
    for (int k = 0; k < 4; ++k) {
      EXPECT_LT(errors[k], kRelativeTolerance)
          << c.name << " trial " << trial << ": " << labels[k] << "\nglobal FD:\n"
          << (k % 2 == 0 ? Kq_g : Kv_g) << "\ndifference:\n"
          << (k == 0   ? Kq_a - Kq_g
              : k == 1 ? Kv_a - Kv_g
              : k == 2 ? Kq_e - Kq_g
                       : Kv_e - Kv_g);
      worst = std::max(worst, errors[k]);
    }
    // the comparison means something: the loads do depend on the state
    // (gravity alone has a zero Jacobian, the gyroscopic term no K_q)
    if (c.name != "gravity" && c.name != "gyroscopic") {
      EXPECT_GT(Kq_g.cwiseAbs().maxCoeff(), 1.0);
    }
    EXPECT_GT(Kv_g.cwiseAbs().maxCoeff(), 0.1);
  }
  RecordProperty("worst_relative_difference", std::to_string(worst));
  std::printf("[ jacobian ] %-32s worst relative difference %.2e\n", c.name.c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(EveryElementType, ForceJacobianTest, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

}  // namespace
}  // namespace ictus
