// The contact LCP (contact/lcp.h, solve_lcp): checked on the complementarity
// conditions and on closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "../../src/contact/lcp.h"

namespace ictus {
namespace {

// w = W z + q >= 0, z >= 0, w^T z = 0 to `tolerance`
void expect_complementary(const MatX& W, const VecX& q, const internal::LcpSolution& s,
                          double tolerance) {
  ASSERT_TRUE(s.solved);
  const VecX w = W * s.z + q;
  EXPECT_GE(s.z.minCoeff(), 0.0);
  EXPECT_GE(w.minCoeff(), -tolerance);
  EXPECT_LE(std::abs(w.dot(s.z)), tolerance);
}

TEST(ContactLcp, APositiveDefiniteProblemHasItsClosedFormSolution) {
  // W = [2 1; 1 2], q = (-1, -1): both press, z = W^-1 (1, 1) = (1/3, 1/3)
  MatX W(2, 2);
  W << 2.0, 1.0, 1.0, 2.0;
  const VecX q = VecX::Constant(2, -1.0);
  const internal::LcpSolution s = internal::solve_lcp(W, q);
  expect_complementary(W, q, s, 1e-14);
  EXPECT_NEAR(s.z(0), 1.0 / 3.0, 1e-14);
  EXPECT_NEAR(s.z(1), 1.0 / 3.0, 1e-14);
}

TEST(ContactLcp, OneContactThatSeparatesTakesNoImpulse) {
  // q = (-1, 3): the first presses alone (z1 = 1/2), the second opens with
  // w2 = 3 + 1/2
  MatX W(2, 2);
  W << 2.0, 1.0, 1.0, 2.0;
  VecX q(2);
  q << -1.0, 3.0;
  const internal::LcpSolution s = internal::solve_lcp(W, q);
  expect_complementary(W, q, s, 1e-14);
  EXPECT_NEAR(s.z(0), 0.5, 1e-14);
  EXPECT_EQ(s.z(1), 0.0);
  EXPECT_NEAR(s.w(1), 3.5, 1e-14);
}

TEST(ContactLcp, RedundantContactsShareTheirLoadAtTheLeastNorm) {
  // two contacts on one row (a rod's end on two coincident points): W
  // singular, every z1 + z2 = 1 solves; the least-norm split is (1/2, 1/2)
  const MatX W = MatX::Ones(2, 2);
  const VecX q = VecX::Constant(2, -1.0);
  const internal::LcpSolution s = internal::solve_lcp(W, q);
  expect_complementary(W, q, s, 1e-12);
  EXPECT_NEAR(s.z(0), 0.5, 1e-12);
  EXPECT_NEAR(s.z(1), 0.5, 1e-12);
}

TEST(ContactLcp, AnInfeasibleProblemIsReportedUnsolved) {
  // W = 0, q = -1: w = -1 whatever z
  const MatX W = MatX::Zero(1, 1);
  const VecX q = VecX::Constant(1, -1.0);
  EXPECT_FALSE(internal::solve_lcp(W, q).solved);
}

}  // namespace
}  // namespace ictus
