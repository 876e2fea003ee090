// The friction pyramid's problem when it is degenerate (contact/
// friction_pyramid.h, solve_degenerate_friction_pyramid): a box flat on four
// rough corners, whose gap and slip rows are dependent. Checked on the
// complementarity conditions themselves and on closed forms.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "../../src/contact/friction_pyramid.h"

namespace ictus {
namespace {

constexpr double kMass = 4.0, kMu = 0.5;

// Rows [n; t_x; t_y] per corner over the velocities (v, w) of the box, its
// axes along the world's; W = H M^-1 H^T.
struct FlatBox {
  MatX H = MatX::Zero(12, 6);
  MatX W;
  FlatBox() {
    const std::array<Vec3, 4> corners{Vec3(0.2, 0.15, -0.1), Vec3(0.2, -0.15, -0.1),
                                      Vec3(-0.2, 0.15, -0.1), Vec3(-0.2, -0.15, -0.1)};
    for (int k = 0; k < 4; ++k) {
      const std::array<Vec3, 3> directions{Vec3::UnitZ(), Vec3::UnitX(), Vec3::UnitY()};
      for (int d = 0; d < 3; ++d) {
        const int row = d == 0 ? k : 4 + 2 * k + (d - 1);
        H.block<1, 3>(row, 0) = directions[static_cast<std::size_t>(d)].transpose();
        H.block<1, 3>(row, 3) = corners[static_cast<std::size_t>(k)]
                                    .cross(directions[static_cast<std::size_t>(d)])
                                    .transpose();
      }
    }
    inverse_mass << 1 / kMass, 1 / kMass, 1 / kMass, 1 / 0.05, 1 / 0.06, 1 / 0.07;
    W = H * inverse_mass.asDiagonal() * H.transpose();
  }
  VecX inverse_mass = VecX(6);
};

// falling at 1 m/s while sliding at 2 m/s along x
VecX landing_while_sliding() {
  VecX u = VecX::Zero(6);
  u(0) = 2.0;
  u(2) = -1.0;
  return u;
}

// the problem's complementarity, z >= 0, w >= 0, z w = 0 (to 1e-12)
void expect_complementary(const MatX& L, const VecX& lq, const VecX& z) {
  const VecX w = L * z + lq;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    EXPECT_GE(z(i), -1e-12) << i;
    EXPECT_GE(w(i), -1e-12) << i;
    EXPECT_NEAR(z(i) * w(i), 0.0, 1e-12) << i;
  }
}

struct Solved {
  MatX L;
  VecX lq, z, impulse;
};

Solved solve(const FlatBox& box, const VecX& u) {
  const std::vector<int> sides{0, 1, 2, 3};
  const std::vector<double> mu(4, kMu);
  Solved s;
  s.L = MatX(24, 24);
  s.lq = VecX(24);
  s.z = VecX::Zero(24);
  s.impulse = VecX::Zero(12);
  internal::assemble_friction_pyramid(box.W, box.H * u, 4, sides, sides, mu, s.L, s.lq);
  EXPECT_TRUE(internal::solve_degenerate_friction_pyramid(s.L, s.lq, sides, sides, s.z));
  internal::friction_pyramid_impulses(s.z, 4, sides, sides, s.impulse);
  return s;
}

TEST(FrictionPyramid, ABoxSlidingFlatTakesNoImpulse) {
  // resting corners (gap rates zero), sliding along x at 0.5 m/s
  const FlatBox box;
  VecX u = VecX::Zero(6);
  u(0) = 0.5;
  const Solved s = solve(box, u);
  expect_complementary(s.L, s.lq, s.z);
  EXPECT_LT(s.impulse.cwiseAbs().maxCoeff(), 1e-12);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(s.z(20 + k), 0.5, 1e-12);  // each corner's slip speed
}

TEST(FrictionPyramid, ABoxLandingFlatWhileSlidingTakesItsImpulsesWithinThePyramid) {
  // falling at 1 m/s onto its four corners (plastic) while sliding at 2 m/s:
  // the normal impulses stop the fall (sum m v_z at the centre, the moment
  // of friction shared by the corners), friction mu P each opposing the slip
  const FlatBox box;
  const VecX u = landing_while_sliding();
  const Solved s = solve(box, u);
  expect_complementary(s.L, s.lq, s.z);
  const VecX after = u + VecX(box.inverse_mass.asDiagonal() * (box.H.transpose() * s.impulse));
  const VecX rates = box.H * after;
  double normal = 0.0, friction_x = 0.0;
  for (int k = 0; k < 4; ++k) {
    EXPECT_GE(rates(k), -1e-12) << k;       // no corner falls in
    EXPECT_GT(rates(4 + 2 * k), 0.0) << k;  // every corner still slides along +x ...
    EXPECT_NEAR(s.impulse(4 + 2 * k), -kMu * s.impulse(k), 1e-12) << k;  // ... braked by mu P
    EXPECT_NEAR(s.impulse(5 + 2 * k), 0.0, 1e-12) << k;
    normal += s.impulse(k);
    friction_x += s.impulse(4 + 2 * k);
  }
  EXPECT_NEAR(friction_x, -kMu * normal, 1e-12);
  EXPECT_NEAR(after(0), 2.0 + friction_x / kMass, 1e-12);  // momentum along x
  EXPECT_GT(normal, kMass * 1.0 - 1e-9);                   // at least what stops the centre's fall
}

// The last fallback alone, side by side, on the landing: a solution of
// the same problem with the same motion after the impact (the velocities are
// unique where the impulses of dependent rows are not).
TEST(FrictionPyramid, SideBySideGivesTheWholeProblemsMotion) {
  const FlatBox box;
  const Solved whole = solve(box, landing_while_sliding());
  const std::vector<int> sides{0, 1, 2, 3};
  VecX z = VecX::Zero(24), impulse = VecX::Zero(12);
  ASSERT_TRUE(internal::solve_friction_pyramid_by_sides(whole.L, whole.lq, sides, sides, z));
  expect_complementary(whole.L, whole.lq, z);
  internal::friction_pyramid_impulses(z, 4, sides, sides, impulse);
  const VecX momentum = box.H.transpose() * (impulse - whole.impulse);  // (force, moment)
  EXPECT_LT(momentum.cwiseAbs().maxCoeff(), 1e-9);
}

}  // namespace
}  // namespace ictus
