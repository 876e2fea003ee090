// The friction forces of several slipping elements whose normal forces are
// the lengths of reaction vectors (src/spatial_slip.h): checked against the
// exact enumeration of CoupledSlip where the reactions lie on lines, against
// the one-element quadratic (slip_normal), and against the equations
// N_i = |f0_i + sum_j t_ij lever_j N_j| themselves.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "../../src/coupled_slip.h"
#include "../../src/friction_impulses.h"
#include "../../src/spatial_slip.h"

namespace ictus {
namespace {

using Eigen::Vector3d;
using internal::SpatialSlip;

// |N_i - phi_i(N)| relative to the largest normal force
double worst_equation(const SpatialSlip& set, const std::vector<Vector3d>& f0,
                      const std::vector<std::vector<Vector3d>>& t, const std::vector<bool>& joint) {
  const auto n = f0.size();
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(set.normal(int(i))));
  for (std::size_t i = 0; i < n; ++i) {
    Vector3d f = f0[i];
    for (std::size_t j = 0; j < n; ++j) f += t[i][j] * set.force(int(j));
    const double phi = joint[i] ? f.norm() : f.x();
    worst = std::max(worst, std::abs(set.normal(int(i)) - phi) / scale);
  }
  return worst;
}

TEST(SpatialSlip, OneElementIsTheQuadraticOfItsNormalForce) {
  SpatialSlip set;
  set.reserve(1);
  const Vector3d f0(3.0, -4.0, 1.0), t(2.0, 5.0, -1.5);
  const double mu = 0.15;
  for (const int s : {1, -1}) {
    set.start(1);
    set.set_element(0, f0, -s * mu, true);
    set.set_response(0, 0, t);
    const SpatialSlip::Result result = set.solve();
    ASSERT_TRUE(result.solved);
    EXPECT_NEAR(result.contraction, mu * t.norm(), 1e-15);
    double expected = 0.0;
    ASSERT_EQ(internal::slip_normal(f0, t, mu, s, &expected), 1);
    EXPECT_NEAR(set.normal(0), expected, 1e-12 * expected) << s;
    EXPECT_NEAR(set.force(0), -s * mu * expected, 1e-12 * expected) << s;
  }
}

// Reactions on lines (y_i e_i): the sides are then enumerated exactly by
// CoupledSlip, whose forces these must be, a joint's reaction turned over
// by the set's friction included.
TEST(SpatialSlip, ReactionsOnLinesGiveTheForcesOfTheExactEnumeration) {
  const Eigen::Matrix3d lines = (Eigen::Matrix3d() << 0.6, 0, 0, 0.8, 1, 0, 0, 0, 1).finished();
  Eigen::Matrix3d T;
  T << 0.9, -1.2, 0.4, 2.5, 0.3, -0.7, -0.5, 1.1, 0.6;
  const Vector3d y0(2.0, -0.05, 5.0), lever(-0.2, 0.15, -0.25);
  const bool joints[3] = {true, true, false};
  internal::CoupledSlip exact;
  exact.reserve(3);
  exact.start(3);
  SpatialSlip set;
  set.reserve(3);
  set.start(3);
  for (int i = 0; i < 3; ++i) {
    // a contact's normal force is the x entry
    const Vector3d e = joints[i] ? Vector3d(lines.col(i).normalized()) : Vector3d::UnitX();
    exact.set_element(i, y0(i), lever(i), joints[i]);
    set.set_element(i, y0(i) * e, lever(i), joints[i]);
    for (int j = 0; j < 3; ++j) {
      exact.set_response(i, j, T(i, j));
      set.set_response(i, j, T(i, j) * e);
    }
  }
  ASSERT_EQ(exact.solve().found, 1);
  const SpatialSlip::Result result = set.solve();
  ASSERT_TRUE(result.solved);
  EXPECT_LT(result.contraction, 1.0);
  // the second joint's reaction changes side: -0.05 without friction
  EXPECT_GT(y0(1) + T.row(1).dot(Vector3d(set.force(0), set.force(1), set.force(2))), 0.0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(set.force(i), exact.force(i), 1e-12) << i;
}

// Five spatial reactions (pins and balls of a chain), then three of them in
// the same workspace (padded to 8, then to 4): each solves its equations to
// round-off in a handful of Newton steps.
TEST(SpatialSlip, SpatialReactionsSolveTheirEquationsInOneWorkspaceOfAnySize) {
  SpatialSlip set;
  set.reserve(5);
  for (const int n : {5, 3}) {
    std::vector<Vector3d> f0(n);
    std::vector<std::vector<Vector3d>> t(n, std::vector<Vector3d>(n));
    std::vector<bool> joint(n, true);
    set.start(n);
    for (int i = 0; i < n; ++i) {
      f0[i] = Vector3d(std::sin(1.0 + i), std::cos(2.0 * i), 0.5 - 0.3 * i) * 10.0;
      for (int j = 0; j < n; ++j) {
        t[i][j] = Vector3d(std::sin(3.0 * i + j), std::cos(i - 2.0 * j), std::sin(i * j + 0.5)) *
                  (i == j ? 4.0 : 2.0);
        set.set_response(i, j, t[i][j]);
      }
      set.set_element(i, f0[i], i % 2 == 0 ? -0.05 : 0.04, true);
    }
    const SpatialSlip::Result result = set.solve();
    ASSERT_TRUE(result.solved) << n;
    EXPECT_LT(result.contraction, 1.0);
    EXPECT_LE(result.iterations, 8) << n;
    EXPECT_LT(worst_equation(set, f0, t, joint), 1e-12) << n;
    for (int i = 0; i < n; ++i) EXPECT_GE(set.normal(i), 0.0);
  }
}

// A contact tangent's normal force is signed: it may come out negative (the
// contact about to lift off), as in CoupledSlip.
TEST(SpatialSlip, AContactTangentKeepsItsSignedNormalForce) {
  SpatialSlip set;
  set.reserve(2);
  set.start(2);
  const std::vector<Vector3d> f0 = {Vector3d(-4.0, 0, 0), Vector3d(4.0, 3.0, 0.0)};
  const std::vector<std::vector<Vector3d>> t = {{Vector3d(0.5, 0, 0), Vector3d(2.0, 0, 0)},
                                                {Vector3d(-1.0, 2.0, 1.0), Vector3d(0, 1, 0)}};
  set.set_element(0, f0[0], -0.3, false);
  set.set_element(1, f0[1], 0.2, true);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) set.set_response(i, j, t[i][j]);
  ASSERT_TRUE(set.solve().solved);
  EXPECT_LT(set.normal(0), 0.0);
  EXPECT_LT(worst_equation(set, f0, t, {false, true}), 1e-12);
}

// A row of K = |t_ij| |lever_j| sums to 1.5, but K's spectral radius is
// sqrt(1.5 * 0.1) = 0.387: phi is a contraction in a weighted norm, the
// solution unique and found.
TEST(SpatialSlip, AContractionInAWeightedNormIsSolved) {
  SpatialSlip set;
  set.reserve(2);
  set.start(2);
  const std::vector<Vector3d> f0 = {Vector3d(1.0, 0.0, 0.0), Vector3d(0.0, 2.0, 0.0)};
  const std::vector<std::vector<Vector3d>> t = {{Vector3d::Zero(), Vector3d(0.0, 0.0, 3.0)},
                                                {Vector3d(0.2, 0.0, 0.0), Vector3d::Zero()}};
  set.set_element(0, f0[0], -0.5, true);
  set.set_element(1, f0[1], 0.5, true);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) set.set_response(i, j, t[i][j]);
  const SpatialSlip::Result result = set.solve();
  ASSERT_TRUE(result.solved);
  // q = 1 - 1 / max w, (I - K) w = 1: w = (2.5, 1.1) / 0.85
  EXPECT_NEAR(result.contraction, 1.0 - 0.85 / 2.5, 1e-12);
  EXPECT_LT(worst_equation(set, f0, t, {true, true}), 1e-12);
}

// No reaction at all: nothing presses, no friction (exactly zero).
TEST(SpatialSlip, NoReactionsNoFriction) {
  SpatialSlip set;
  set.reserve(2);
  set.start(2);
  set.set_element(0, Vector3d::Zero(), -0.3, true);
  set.set_element(1, Vector3d::Zero(), 0.3, true);
  set.set_response(0, 1, Vector3d(1.0, 0.0, 0.0));
  set.set_response(1, 0, Vector3d(0.0, 1.0, 0.0));
  ASSERT_TRUE(set.solve().solved);
  EXPECT_EQ(set.force(0), 0.0);
  EXPECT_EQ(set.force(1), 0.0);
}

// Where the friction changes the normal forces as much as they are (rho >=
// 1) the solution need not be unique: nothing is solved. Here one element
// alone has mu |t| = 1.25 > 1, and its quadratic two roots.
TEST(SpatialSlip, NoContractionIsNotSolved) {
  SpatialSlip set;
  set.reserve(2);
  set.start(2);
  set.set_element(0, Vector3d(1.0, 0.0, 0.0), 0.5, true);
  set.set_element(1, Vector3d(0.0, 1.0, 0.0), 0.5, true);
  set.set_response(0, 0, Vector3d(-2.5, 0.0, 0.0));
  const SpatialSlip::Result result = set.solve();
  EXPECT_FALSE(result.unique);
  EXPECT_FALSE(result.solved);
  EXPECT_NEAR(result.contraction, 1.25, 1e-12);  // K's largest row sum
  double first = 0.0, second = 0.0;
  EXPECT_EQ(internal::slip_normal(Vector3d(1.0, 0.0, 0.0), Vector3d(-2.5, 0.0, 0.0), 0.5, -1,
                                  &first, &second),
            2);
}

}  // namespace
}  // namespace ictus
