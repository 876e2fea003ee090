// Coulomb's law at the impulse level on frictional joints decided together
// (src/friction_impulses.h): F_i in -mu_i |P_i| Sign(v_i), v = v0 + C F,
// P_i = P0_i + sum_j R_ij F_j, checked against closed forms of blocks in
// guides.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "../../src/friction_impulses.h"

namespace ictus {
namespace {

using internal::FrictionImpulses;
using Outcome = FrictionImpulses::Outcome;

// A block of mass m sliding at v0 in a guide with friction mu, pressed
// across it by an impulse J: c = 1/m, P = J whatever the friction.
FrictionImpulses one_block(double m, double v0, double J, double mu) {
  FrictionImpulses problem;
  problem.start(1);
  problem.set_joint(0, v0, Eigen::Vector3d(0.0, J, 0.0), mu);
  problem.set_response(0, 0, 1.0 / m, Eigen::Vector3d::Zero());
  return problem;
}

TEST(FrictionImpulses, ABlockPressedAcrossItsGuideKeepsSlidingWithWhatMuJLeaves) {
  FrictionImpulses problem = one_block(2.0, 1.0, 2.0, 0.3);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_DOUBLE_EQ(problem.impulse(0), -0.6);
  EXPECT_EQ(problem.mode(0), 1);
}

TEST(FrictionImpulses, ABlockPressedHardEnoughStopsInTheImpact) {
  // mu J = 3 N s > m v0 = 2 N s: it stops, held by -m v0
  FrictionImpulses problem = one_block(2.0, 1.0, -10.0, 0.3);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_DOUBLE_EQ(problem.impulse(0), -2.0);
  EXPECT_EQ(problem.mode(0), 0);
}

TEST(FrictionImpulses, AKickThatTurnsTheBlockRoundLeavesItSlippingTheOtherWay) {
  // v0 = -2 m/s after the kick without friction: mu J = 3 N s slows it to -0.5 m/s
  FrictionImpulses problem = one_block(2.0, -2.0, 10.0, 0.3);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_DOUBLE_EQ(problem.impulse(0), 3.0);
  EXPECT_EQ(problem.mode(0), -1);
}

TEST(FrictionImpulses, OneJointWhoseFrictionChangesItsReactionSolvesTheQuadratic) {
  // P = P0 + F R in space, mu |R| < 1: F = -mu |P0 + F R| on the slip side
  FrictionImpulses problem;
  problem.start(1);
  const Eigen::Vector3d P0(3.0, 4.0, 0.0), R(0.2, -0.3, 0.4);
  const double mu = 0.5;
  problem.set_joint(0, 10.0, P0, mu);
  problem.set_response(0, 0, 1.0, R);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  const double F = problem.impulse(0);
  EXPECT_EQ(problem.mode(0), 1);
  EXPECT_NEAR(F, -mu * (P0 + F * R).norm(), 1e-12);
  EXPECT_GT(10.0 + F, 0.0);
}

TEST(FrictionImpulses, OneJointWithMuTimesItsResponseAboveOneCanHaveTwoSolutions) {
  // mu |R| = 2.5: at rest (F = 1, |P| = 4) and slipping back (F = 1/7,
  // P = 2/7, and F = 1/3, P = -2/3) are all consistent: Painleve at the
  // impulse level
  FrictionImpulses problem;
  problem.start(1);
  problem.set_joint(0, -1.0, Eigen::Vector3d(1.0, 0.0, 0.0), 0.5);
  problem.set_response(0, 0, 1.0, Eigen::Vector3d(-5.0, 0.0, 0.0));
  EXPECT_EQ(problem.solve(), Outcome::kSeveral);
  // moving forward, only the stuck one is (F = -1, |P| = 6)
  problem.set_joint(0, 1.0, Eigen::Vector3d(1.0, 0.0, 0.0), 0.5);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_DOUBLE_EQ(problem.impulse(0), -1.0);
  EXPECT_EQ(problem.mode(0), 0);
}

// Two blocks stacked in guides: the lower (m1) on the ground (joint 0, its
// rate v1), the upper (m2) on the lower (joint 1, the relative rate v2). A
// friction impulse F0 acts on the lower block, F1 on the upper and back on
// the lower: C = [[1/m1, -1/m1], [-1/m1, 1/m1 + 1/m2]]. The upper block is
// kicked by (Jx, -J): both guides take J across.
FrictionImpulses stacked(double m1, double m2, double mu1, double mu2, double Jx, double J) {
  FrictionImpulses problem;
  problem.start(2);
  problem.set_joint(0, 0.0, Eigen::Vector3d(0.0, J, 0.0), mu1);
  problem.set_joint(1, Jx / m2, Eigen::Vector3d(0.0, J, 0.0), mu2);
  problem.set_response(0, 0, 1.0 / m1, Eigen::Vector3d::Zero());
  problem.set_response(0, 1, -1.0 / m1, Eigen::Vector3d::Zero());
  problem.set_response(1, 0, -1.0 / m1, Eigen::Vector3d::Zero());
  problem.set_response(1, 1, 1.0 / m1 + 1.0 / m2, Eigen::Vector3d::Zero());
  return problem;
}

TEST(FrictionImpulses, TwoStackedBlocksKickedGiveWayTogether) {
  // mu2 J = 5 N s drags the lower block, mu1 J = 3 N s holds it back: it
  // leaves at (mu2 - mu1) J / m1 = 2 m/s, the upper at (Jx - mu2 J) / m2 =
  // 3.75 m/s, 1.75 m/s on the lower
  FrictionImpulses problem = stacked(1.0, 4.0, 0.3, 0.5, 20.0, 10.0);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_NEAR(problem.impulse(0), -3.0, 1e-12);
  EXPECT_NEAR(problem.impulse(1), -5.0, 1e-12);
  EXPECT_EQ(problem.mode(0), 1);
  EXPECT_EQ(problem.mode(1), 1);
}

TEST(FrictionImpulses, TheLowerBlockHoldsWhenItsGuideCanTakeTheUppersDrag) {
  // mu1 = 0.6: the lower guide holds mu2 J = 5 N s (it could take 6)
  FrictionImpulses problem = stacked(1.0, 4.0, 0.6, 0.5, 20.0, 10.0);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_NEAR(problem.impulse(0), -5.0, 1e-12);
  EXPECT_NEAR(problem.impulse(1), -5.0, 1e-12);
  EXPECT_EQ(problem.mode(0), 0);
  EXPECT_EQ(problem.mode(1), 1);
}

TEST(FrictionImpulses, AKickWithNothingAcrossTheGuidesTakesNoFriction) {
  FrictionImpulses problem = stacked(1.0, 4.0, 0.3, 0.5, 20.0, 0.0);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_EQ(problem.impulse(0), 0.0);
  EXPECT_EQ(problem.impulse(1), 0.0);
  EXPECT_EQ(problem.mode(0), 0);  // the lower block stays where it is
  EXPECT_EQ(problem.mode(1), 1);
}

TEST(FrictionImpulses, AHeavyJointSlippingSlowlyBesideAFastOneIsJudgedOnItsOwnRate) {
  // joint 0 takes 1e4 N s per m/s and leaves at 1e-10 m/s; joint 1, not
  // coupled, at 10 m/s: each joint's rate is judged to its own scale
  for (const double v_plus : {1e-10, 5e-10}) {
    FrictionImpulses problem;
    problem.start(2);
    problem.set_joint(0, v_plus + 1e-4 * 0.3, Eigen::Vector3d(0.0, 1.0, 0.0), 0.3);
    problem.set_joint(1, 10.0, Eigen::Vector3d::Zero(), 0.3);
    problem.set_response(0, 0, 1e-4, Eigen::Vector3d::Zero());
    problem.set_response(1, 1, 1.0, Eigen::Vector3d::Zero());
    ASSERT_EQ(problem.solve(), Outcome::kSolved) << v_plus;
    EXPECT_NEAR(problem.impulse(0), -0.3, 1e-12);
    EXPECT_EQ(problem.mode(0), 1);
    EXPECT_EQ(problem.impulse(1), 0.0);
  }
}

// Two guides of one motion (a block held by two guides: C = [[1, 1], [1,
// 1]] / m), kicked back at 1 m/s (m = 1 kg), each pressed by 2 N s with
// mu = 0.5: together they hold up to 2 N s, the block needs 1 N s. The
// system of both stuck is singular; along its free direction F_0 + F_1 = 1.
TEST(FrictionImpulses, TwoGuidesOfOneMotionHoldTogetherWithImpulsesThatAreOneChoice) {
  auto one_motion = [](double press) {
    FrictionImpulses problem;
    problem.start(2);
    for (int i = 0; i < 2; ++i) {
      problem.set_joint(i, -1.0, Eigen::Vector3d(0.0, press, 0.0), 0.5);
      for (int j = 0; j < 2; ++j) problem.set_response(i, j, 1.0, Eigen::Vector3d::Zero());
    }
    return problem;
  };
  FrictionImpulses held = one_motion(2.0);
  ASSERT_EQ(held.solve(), Outcome::kSolved);
  EXPECT_EQ(held.mode(0), 0);
  EXPECT_EQ(held.mode(1), 0);
  EXPECT_NEAR(held.impulse(0) + held.impulse(1), 1.0, 1e-12);
  EXPECT_LE(std::abs(held.impulse(0)), 1.0 + 1e-12);
  EXPECT_LE(std::abs(held.impulse(1)), 1.0 + 1e-12);
  EXPECT_TRUE(held.indeterminate());
  // pressed by 0.4 N s each they take 0.2 N s each and it slips on at -0.6 m/s
  FrictionImpulses slips = one_motion(0.4);
  ASSERT_EQ(slips.solve(), Outcome::kSolved);
  EXPECT_NEAR(slips.impulse(0), 0.2, 1e-12);
  EXPECT_NEAR(slips.impulse(1), 0.2, 1e-12);
  EXPECT_EQ(slips.mode(0), -1);
  EXPECT_FALSE(slips.indeterminate());
}

// The stacked blocks with the upper guide's reaction impulse moved across
// its line by the lower guide's friction, P1 = (0, J, F0): the lower block's
// friction impulse stays mu1 J = 3 N s, the upper's is mu2 |P1| =
// 0.5 sqrt(109) N s, and both give way forward (rates 2.2202 and 1.4747 m/s).
TEST(FrictionImpulses, SeveralJointsWhoseReactionLeavesItsLineTakeItsLength) {
  FrictionImpulses problem = stacked(1.0, 4.0, 0.3, 0.5, 20.0, 10.0);
  problem.set_response(1, 0, -1.0, Eigen::Vector3d(0.0, 0.0, 1.0));
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_EQ(problem.off_line(), 1);
  EXPECT_NEAR(problem.impulse(0), -3.0, 1e-12);
  EXPECT_NEAR(problem.impulse(1), -0.5 * std::sqrt(109.0), 1e-12);
  EXPECT_EQ(problem.mode(0), 1);
  EXPECT_EQ(problem.mode(1), 1);
}

// Where a combination's friction impulses change the reaction impulses as
// much as they are, its solution need not be unique: the impact is not
// decided. Here joint 0 stuck and joint 1 slipping makes F1 move P1 by
// 5 |F1| (K = 0.5 * 5 = 2.5, and that combination's equation has no root),
// although another combination is consistent (joint 0 slipping, joint 1
// stuck, F = (-3, -6.4) within 0.5 |P1| = 9.01): the test is conservative.
TEST(FrictionImpulses, SeveralJointsOffTheirLinesBeyondAContractionAreNotDecided) {
  FrictionImpulses problem = stacked(1.0, 4.0, 0.3, 0.5, 20.0, 10.0);
  problem.set_response(1, 0, -1.0, Eigen::Vector3d(0.0, 0.0, 5.0));
  EXPECT_EQ(problem.solve(), Outcome::kOffLine);
  EXPECT_EQ(problem.off_line(), 1);
  EXPECT_NE(problem.off_line_why().find("spectral radius"), std::string::npos);
}

// Two joints holding one motion (C = [1 1; 1 1]: their stuck rows are one,
// F_0 + F_1 = 1), their reactions off their lines (P_i = (1, 0.2 (F_0 +
// F_1), 0): the friction turns them). With mu = 0.6, along the line of
// solutions F = (0.5, 0.5) + t (1, -1) each joint holds while
// |F_i| <= 0.6 |P_i| = 0.6 sqrt(1.04) = 0.61188, so |t| <= 0.11188 is
// consistent: one motion (both stuck), the impulses one choice. Before, a
// singular combination with reactions off their lines was not searched and
// left the impact undecided (kDependent).
FrictionImpulses two_joints_of_one_motion(double mu) {
  FrictionImpulses problem;
  problem.start(2);
  for (int i = 0; i < 2; ++i) {
    problem.set_joint(i, -1.0, Eigen::Vector3d(1.0, 0.0, 0.0), mu);
    for (int j = 0; j < 2; ++j) problem.set_response(i, j, 1.0, Eigen::Vector3d(0.0, 0.2, 0.0));
  }
  return problem;
}

TEST(FrictionImpulses, TwoJointsOffTheirLinesHoldingOneMotionHoldAlongTheirLine) {
  FrictionImpulses problem = two_joints_of_one_motion(0.6);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  EXPECT_EQ(problem.mode(0), 0);
  EXPECT_EQ(problem.mode(1), 0);
  EXPECT_TRUE(problem.indeterminate());
  EXPECT_NEAR(problem.impulse(0) + problem.impulse(1), 1.0, 1e-12);
  for (int i = 0; i < 2; ++i)
    EXPECT_LE(std::abs(problem.impulse(i)), 0.6 * std::sqrt(1.04) + 1e-12) << i;
}

// With mu = 0.3 no point of that line holds (each would need 0.5 of the
// 0.3 sqrt(1.04) it has): both slip on, each taking F = 0.3 |P| with
// |P| = sqrt(1 + 0.04 (2 F)^2), F = 0.3 / sqrt(1 - 0.0144) = 0.302184.
TEST(FrictionImpulses, TwoJointsOffTheirLinesHoldingOneMotionBeyondTheirLimitsSlipOn) {
  FrictionImpulses problem = two_joints_of_one_motion(0.3);
  ASSERT_EQ(problem.solve(), Outcome::kSolved);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(problem.mode(i), -1) << i;
    EXPECT_NEAR(problem.impulse(i), 0.3 / std::sqrt(1.0 - 0.0144), 1e-12) << i;
  }
}

TEST(FrictionImpulses, AContinuumOfMotionsAlongAFreeDirectionIsNotDetermined) {
  // Joint 0 slips forward (v0 = 5, mu 0.5), its normal raised by joint 1's
  // friction (P_0 = 1 + 2 F_1); joint 1 is held (mu 10). With C = [2 1; 1 1]
  // the stuck row of joint 1 is a multiple of joint 0's slip row: every
  // F_1 = t in [-0.5, 4] with F_0 = -0.5 - t is consistent, joint 0 slipping
  // at 4 - t. Its end t = 4 is the stuck-stuck solution: found alone it
  // would pass for the motion.
  FrictionImpulses problem;
  problem.start(2);
  problem.set_joint(0, 5.0, Eigen::Vector3d(0.0, 1.0, 0.0), 0.5);
  problem.set_joint(1, 0.5, Eigen::Vector3d(0.0, 1.0, 0.0), 10.0);
  problem.set_response(0, 0, 2.0, Eigen::Vector3d::Zero());
  problem.set_response(0, 1, 1.0, Eigen::Vector3d(0.0, 2.0, 0.0));
  problem.set_response(1, 0, 1.0, Eigen::Vector3d::Zero());
  problem.set_response(1, 1, 1.0, Eigen::Vector3d::Zero());
  EXPECT_EQ(problem.solve(), Outcome::kDependent);
}

// --- a ball ---------------------------------------------------------------

// A bar of mass m on a ball at O, its centre of mass at L along x, kicked
// across at its centre by J along y (no gravity: an impulse problem). About
// O its inertias are Ix, Iy + m L^2, Iz + m L^2; a moment impulse M turns
// it by C = diag of their inverses, and its centre's velocity changes the
// ball's reaction impulse P = m v_c - J by R (M_z moves the centre along y,
// M_y along -z). Without friction w0 = L J / I_O about z and P0 = -J Iz / I_O.
struct KickedBar {
  double m = 2.0, L = 0.5, Ix = 0.01, Iy = 0.04, Iz = 0.04, J = 3.0;
  double Iyo() const { return Iy + m * L * L; }
  double Izo() const { return Iz + m * L * L; }
  Eigen::Vector3d w0() const { return {0.0, 0.0, L * J / Izo()}; }
  Eigen::Matrix3d C() const {
    return Eigen::Vector3d(1.0 / Ix, 1.0 / Iyo(), 1.0 / Izo()).asDiagonal();
  }
  Eigen::Vector3d P0() const { return {0.0, -J * Iz / Izo(), 0.0}; }
  Eigen::Matrix3d R() const {
    Eigen::Matrix3d r = Eigen::Matrix3d::Zero();
    r(1, 2) = m * L / Izo();
    r(2, 1) = -m * L / Iyo();
    return r;
  }
};

TEST(FrictionImpulses, ABallKickedBeyondItsHoldSlipsWithTheClosedFormImpulse) {
  const KickedBar bar;
  const double mu = 0.4 * 0.05;  // mu_s times the ball's radius
  bool indeterminate = true;
  const auto found =
      internal::ball_friction_impulses(bar.w0(), bar.C(), bar.P0(), bar.R(), mu, &indeterminate);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_FALSE(found[0].stuck);
  EXPECT_FALSE(indeterminate);
  // I_O w+ = L J - mu |P|, P = m L w+ - J: |P| = J Iz / (I_O - m L mu)
  const double P = bar.J * bar.Iz / (bar.Izo() - bar.m * bar.L * mu);
  const double w_plus = (bar.L * bar.J - mu * P) / bar.Izo();
  EXPECT_NEAR(found[0].w.z(), w_plus, 1e-12 * w_plus);
  EXPECT_NEAR(found[0].w.head<2>().norm(), 0.0, 1e-15);
  EXPECT_NEAR(found[0].M.z(), -mu * P, 1e-12 * mu * P);
  EXPECT_NEAR((bar.P0() + bar.R() * found[0].M).norm(), P, 1e-12 * P);
}

TEST(FrictionImpulses, ABallWhoseHoldIsWithinMuStaysStuck) {
  KickedBar bar;
  bar.L = 0.01;  // the hold L J within mu_s r |P| = mu_s r J
  const double mu = 0.4 * 0.05;
  bool indeterminate = true;
  const auto found =
      internal::ball_friction_impulses(bar.w0(), bar.C(), bar.P0(), bar.R(), mu, &indeterminate);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_TRUE(found[0].stuck);
  EXPECT_NEAR(found[0].M.z(), -bar.L * bar.J, 1e-15);  // the kick's moment about O, held
}

TEST(FrictionImpulses, ABallWithoutAReactionImpulseSlipsFree) {
  // a pure moment impulse about a bar's centre at the ball: P = 0 whatever M
  const Eigen::Vector3d w0(0.0, 0.0, 2.0);
  bool indeterminate = true;
  const auto found =
      internal::ball_friction_impulses(w0, Eigen::Matrix3d::Identity(), Eigen::Vector3d::Zero(),
                                       Eigen::Matrix3d::Zero(), 0.1, &indeterminate);
  EXPECT_FALSE(indeterminate);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_FALSE(found[0].stuck);
  EXPECT_EQ(found[0].M, Eigen::Vector3d::Zero());
  EXPECT_EQ(found[0].w, w0);
}

TEST(FrictionImpulses, ABallWhoseRotationsAreLockedButOneSlipsExactlyAboutThatOne) {
  // the bar's rotations about x and y locked by the mechanism: C of rank one
  const KickedBar bar;
  Eigen::Matrix3d C = Eigen::Matrix3d::Zero();
  C(2, 2) = 1.0 / bar.Izo();
  const double mu = 0.4 * 0.05;
  bool indeterminate = false;
  const auto found =
      internal::ball_friction_impulses(bar.w0(), C, bar.P0(), bar.R(), mu, &indeterminate);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_TRUE(indeterminate);  // a hold's moment about x and y would be taken by the mechanism
  const double P = bar.J * bar.Iz / (bar.Izo() - bar.m * bar.L * mu);
  EXPECT_NEAR(found[0].w.z(), (bar.L * bar.J - mu * P) / bar.Izo(), 1e-12);
}

}  // namespace
}  // namespace ictus
