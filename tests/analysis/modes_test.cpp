// Linearised modes against closed forms (docs/statics-and-modes.md).
#include <gtest/gtest.h>

#include <cmath>

#include "ictus/analysis.h"
#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

// Central differences with a 1e-5 step: truncation ~1e-10 relative; the
// eigenvalues inherit it.
constexpr double kFrequencyTolerance = 1e-7;  // relative
constexpr double kZetaTolerance = 1e-7;

ModalResult modes_of(const std::string& file, const ParameterOverrides& sets = {},
                     bool about_static = true) {
  const Model model = load_model(test::source_path(file), sets);
  Simulation simulation(model);
  simulation.prepare();
  const double t = model.settings().start;
  VecX y = simulation.state();
  if (about_static) y = solve_static(simulation.system(), t, y).state;
  return compute_modes(simulation.system(), t, y);
}

// A bob of mass m with its own moment of inertia J about the pivot axis on a
// massless rod L: omega^2 = m g L / (m L^2 + J) (sqrt(g/L) for a point mass).
TEST(Modes, PendulumSmallAmplitude) {
  for (const bool about_static : {true, false}) {
    const ModalResult r = modes_of("examples/pendulum.yaml", {{"theta0", "0"}}, about_static);
    ASSERT_EQ(r.dof, 1);
    ASSERT_EQ(r.modes.size(), 1U);
    const double expected = std::sqrt(9.81 * 1.0 / (1.0 + 1e-4));
    EXPECT_EQ(r.modes[0].kind, Mode::Kind::kOscillatory);
    EXPECT_NEAR(r.modes[0].omega_n, expected, kFrequencyTolerance * expected);
    EXPECT_NEAR(r.modes[0].zeta, 0.0, kZetaTolerance);
    ASSERT_EQ(r.coordinates.size(), 1U);
    EXPECT_EQ(r.coordinates[0].name, "pivot.angle");
  }
  // about the static state even when released from 30 deg
  const ModalResult r = modes_of("examples/pendulum.yaml");
  EXPECT_NEAR(r.modes[0].omega_n, std::sqrt(9.81 / 1.0001), kFrequencyTolerance * 3.2);
}

// Seed 003's mount: m = 2 kg, K = 800 N/m, C = 16 N s/m:
// omega = sqrt(K/m) = 20 rad/s, zeta = C / (2 sqrt(K m)) = 0.2.
TEST(Modes, MountBlockFrequencyAndDamping) {
  const ModalResult r = modes_of("examples/mount_block.yaml");
  ASSERT_EQ(r.dof, 1);
  ASSERT_EQ(r.modes.size(), 1U);
  const Mode& m = r.modes[0];
  EXPECT_EQ(m.kind, Mode::Kind::kOscillatory);
  EXPECT_NEAR(m.omega_n, 20.0, kFrequencyTolerance * 20.0);
  EXPECT_NEAR(m.zeta, 0.2, kZetaTolerance);
  EXPECT_NEAR(m.omega_d, 20.0 * std::sqrt(1.0 - 0.04), kFrequencyTolerance * 20.0);
  EXPECT_NEAR(r.undamped_frequencies[0], 20.0, kFrequencyTolerance * 20.0);
  ASSERT_EQ(r.coordinates.size(), 1U);
  EXPECT_EQ(r.coordinates[0].name, "guide.x");
  // overdamped: C = 2 * 1.5 * sqrt(K m) gives two real roots
  // lambda = -omega (zeta -+ sqrt(zeta^2 - 1))
  const ModalResult over = modes_of("examples/mount_block.yaml", {{"C", "120"}});
  ASSERT_EQ(over.modes.size(), 2U);
  const double root = std::sqrt(1.5 * 1.5 - 1.0);
  EXPECT_EQ(over.modes[0].kind, Mode::Kind::kReal);
  EXPECT_NEAR(over.modes[0].eigenvalue.real(), -20.0 * (1.5 - root), 1e-6);
  EXPECT_NEAR(over.modes[1].eigenvalue.real(), -20.0 * (1.5 + root), 1e-6);
}

// Two equal uniform bars (mass m, length L, hinged end to end) hanging:
//   M = m L^2 [4/3 1/2; 1/2 1/3],  K = m g L [3/2 0; 0 1/2]
// det(K - w^2 M) = 0 with s = w^2 L / g: 7 s^2 - 42 s + 27 = 0,
//   s = 3 -+ 6 sqrt(7) / 7   (0.73222 and 5.26778).
TEST(Modes, DoublePendulumTwoFrequencies) {
  const ModalResult r = modes_of("examples/double_pendulum.yaml",
                                 {{"L2", "1"}, {"m2", "1"}, {"a1", "10*deg"}, {"a2", "-5*deg"}});
  ASSERT_EQ(r.dof, 2);
  ASSERT_EQ(r.modes.size(), 2U);
  const double g = 9.81;
  const double low = std::sqrt(g * (3.0 - 6.0 * std::sqrt(7.0) / 7.0));
  const double high = std::sqrt(g * (3.0 + 6.0 * std::sqrt(7.0) / 7.0));
  EXPECT_NEAR(r.modes[0].omega_n, low, kFrequencyTolerance * low);
  EXPECT_NEAR(r.modes[1].omega_n, high, kFrequencyTolerance * high);
  // first mode: both bars swing the same way; shape from (K - w^2 M) phi = 0,
  // elbow/shoulder = (3/2 - 4/3 s) / (s / 2)
  const double s1 = low * low / g;
  const double ratio = (1.5 - 4.0 / 3.0 * s1) / (s1 / 2.0);
  ASSERT_EQ(r.coordinates.size(), 2U);
  EXPECT_EQ(r.coordinates[0].name, "shoulder.angle");
  EXPECT_EQ(r.coordinates[1].name, "elbow.angle");
  // elbow.angle is relative (lower against upper): absolute lower = shoulder + elbow
  const std::complex<double> sh = r.modes[0].shape[0], el = r.modes[0].shape[1];
  EXPECT_NEAR(std::real((sh + el) / sh), ratio, 1e-6);
}

// A point mass on a distance joint from a ground point is a spherical
// pendulum: two degrees of freedom (its frozen rotation is none), both
// oscillating at sqrt(g / L) about the hanging state.
TEST(Modes, PointMassSphericalPendulum) {
  const Model model = parse_model(R"(ictus: 1
gravity: [0, 0, -9.81]
bodies:
  bob: {mass: 0.7, point_mass: true, position: [0.2, 0, -1.3]}
joints:
  rod: {type: distance, between: [ground, bob], points: [[0, 0, 0], [0.2, 0, -1.3]],
        at: [0.2, 0, -1.3]}
)",
                                  "point_mass_modes.yaml");
  Simulation simulation(model);
  simulation.prepare();
  const VecX y = solve_static(simulation.system(), 0.0, simulation.state()).state;
  const ModalResult r = compute_modes(simulation.system(), 0.0, y);
  ASSERT_EQ(r.dof, 2);
  ASSERT_EQ(r.modes.size(), 2U);
  const double expected = std::sqrt(9.81 / std::hypot(0.2, 1.3));
  for (const Mode& m : r.modes) {
    EXPECT_EQ(m.kind, Mode::Kind::kOscillatory);
    EXPECT_NEAR(m.omega_n, expected, kFrequencyTolerance * expected);
  }
}

// A free body: six rigid-body modes, no frequency.
TEST(Modes, FreeBodyIsRigid) {
  const Model model =
      load_model(test::source_path("tests/bad_models/no_static_equilibrium_free_body.yaml"));
  Simulation simulation(model);
  simulation.prepare();
  const ModalResult r = compute_modes(simulation.system(), 0.0, simulation.state());
  EXPECT_EQ(r.dof, 6);
  ASSERT_EQ(r.modes.size(), 6U);
  for (const Mode& m : r.modes) EXPECT_EQ(m.kind, Mode::Kind::kRigid);
}

}  // namespace
}  // namespace ictus
