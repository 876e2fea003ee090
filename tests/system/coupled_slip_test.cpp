// The friction forces of several slipping elements solved together
// (src/coupled_slip.h): F_i = lever_i sigma_i y_i, y = y0 + T F, checked
// against the linear system solved directly and against scalar closed forms.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "../../src/coupled_slip.h"

namespace ictus {
namespace {

using internal::CoupledSlip;

// Loads a set of contact tangents (sigma = 1) and checks the forces against
// (I - G T) F = G y0 solved directly.
void expect_contacts_solved(CoupledSlip& set, const Eigen::MatrixXd& T, const Eigen::VectorXd& y0,
                            const Eigen::VectorXd& lever) {
  const auto count = static_cast<int>(y0.size());
  set.start(count);
  for (int i = 0; i < count; ++i) {
    set.set_element(i, y0(i), lever(i), false);
    for (int j = 0; j < count; ++j) set.set_response(i, j, T(i, j));
  }
  const CoupledSlip::Result result = set.solve();
  const Eigen::MatrixXd A = Eigen::MatrixXd::Identity(count, count) - lever.asDiagonal() * T;
  const Eigen::VectorXd expected = A.lu().solve(lever.cwiseProduct(y0));
  ASSERT_EQ(result.found, 1);
  EXPECT_NEAR(result.determinant, A.determinant(), 1e-12 * std::abs(A.determinant()));
  for (int i = 0; i < count; ++i) EXPECT_NEAR(set.force(i), expected(i), 1e-12) << i;
}

TEST(CoupledSlip, ContactTangentsSolveTheLinearSystemOfTheirNormalForces) {
  CoupledSlip set;
  set.reserve(3);
  Eigen::MatrixXd T(3, 3);
  T << 0.2, -0.1, 0.05, 0.3, 0.1, -0.2, 0.0, 0.4, 0.1;
  expect_contacts_solved(set, T, Eigen::Vector3d(10.0, 5.0, 2.0), Eigen::Vector3d(-0.5, 0.5, -0.3));
}

// More elements than a model could have before (16): 40 contact tangents,
// padded to 64, then a smaller set in the same workspace.
TEST(CoupledSlip, ManyContactTangentsAndThenFewerInOneWorkspace) {
  CoupledSlip set;
  set.reserve(40);
  Eigen::MatrixXd T(40, 40);
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j) T(i, j) = 0.02 * std::sin(1.0 + i * 7.0 + j * 3.0);
  Eigen::VectorXd y0(40), lever(40);
  for (int i = 0; i < 40; ++i) {
    y0(i) = 1.0 + 0.1 * i;
    lever(i) = i % 2 == 0 ? -0.5 : 0.5;
  }
  expect_contacts_solved(set, T, y0, lever);
  expect_contacts_solved(set, T.topLeftCorner(5, 5), y0.head(5), lever.head(5));
  expect_contacts_solved(set, T.topLeftCorner(2, 2), y0.head(2), lever.head(2));
}

// Two guides whose transverse reactions do not couple (T = 0): each takes
// F = lever |y0| whatever the side of its reaction.
TEST(CoupledSlip, JointsTakeTheMagnitudeOfTheirReaction) {
  CoupledSlip set;
  set.reserve(2);
  set.start(2);
  set.set_element(0, -4.0, -0.3, true);
  set.set_element(1, 2.0, 0.2, true);
  const CoupledSlip::Result result = set.solve();
  ASSERT_EQ(result.found, 1);
  EXPECT_NEAR(set.force(0), -0.3 * 4.0, 1e-15);
  EXPECT_NEAR(set.force(1), 0.2 * 2.0, 1e-15);
}

// A guide where friction turns its own reaction over: y = 1 + 2 (-1) |y|
// has y = 1/3 and y = -1 (Painleve's paradox of seed 004, A1 < |A2|): two
// solutions, found whichever side the reaction has without friction.
TEST(CoupledSlip, AGuideWhoseFrictionTurnsItsReactionOverHasTwoSolutions) {
  CoupledSlip set;
  set.reserve(2);
  set.start(2);
  set.set_element(0, 1.0, -1.0, true);
  set.set_response(0, 0, 2.0);
  set.set_element(1, 1.0, -0.1, true);
  EXPECT_EQ(set.solve().found, 2);
  // with a weaker coupling (mu |t| < 1) the one root y = 1 / (1 + 0.5)
  set.start(2);
  set.set_element(0, 1.0, -1.0, true);
  set.set_response(0, 0, 0.5);
  set.set_element(1, 1.0, -0.1, true);
  ASSERT_EQ(set.solve().found, 1);
  EXPECT_NEAR(set.force(0), -1.0 / 1.5, 1e-15);
}

}  // namespace
}  // namespace ictus
