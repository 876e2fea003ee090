// Coulomb's law at the impulse level on the frictional joints of one impact,
// decided together without iteration (docs/theory/friction.md, "Friction
// impulses in an impact").
//
// After the impact's solve without the joints' friction, joint i's rate and
// its transverse reaction impulse are affine in the friction impulses F:
//   v = v0 + C F,   P_i = P0_i + sum_j R_ij F_j.
// The law F_i in -mu_i |P_i| Sign(v_i) leaves each joint one of three cases:
// stuck (v_i = 0, |F_i| <= mu_i |P_i|) or slipping in s = +-1
// (F_i = -s mu_i |P_i|, s v_i > 0). One joint: the slip cases are the
// quadratic of slip_normal (P in space), and for c > 0 and mu |R| < 1
// exactly one case holds (F + mu |P(F)| Sign(v(F)) increases strictly in F).
// Several: every combination of the cases, and of the sides of the slipping
// joints' P on their lines (y_i = e_i . P_i, |P_i| = sigma_i y_i), is a
// linear system; the consistent ones are counted by their rates (solutions
// with equal rates move every body alike). A singular system with one free
// direction (stuck joints of one motion) is searched along it: exact, the
// impulses then one choice among many. Where that direction changes the
// joints' rates and some point of it is consistent, the rigid model does not
// determine the motion (kDependent). Where some P_i leaves its line (a pin's
// in the plane of a mechanism), each combination's slipping impulses solve
// the fixed point |P_i| of spatial_slip.h, which is unique where it is a
// contraction; a singular combination with every joint stuck and one free
// direction is searched along it (exact, the impulses one choice); a
// combination beyond the contraction, or another singular one, leaves the
// impact undecided (kOffLine, kDependent), even where another is consistent.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace ictus::internal {

/// The roots N >= 0 of N = |f0 - s mu N t| (one joint's normal force when its
/// friction is F = -s mu N and its reaction f0 + F t). Returns their number
/// (0, 1 or 2), the first in *normal and the second, if any, in *second.
int slip_normal(const Eigen::Vector3d& f0, const Eigen::Vector3d& t, double mu, int s,
                double* normal, double* second = nullptr);

class FrictionImpulses {
 public:
  /// Starts a problem of `count` joints: every entry zero.
  void start(int count);
  /// Joint i without the joints' friction impulses: its rate v0, its
  /// transverse reaction impulse P0 and its coefficient.
  void set_joint(int i, double rate, const Eigen::Vector3d& normal, double mu);
  /// The response of joint i to a unit friction impulse at joint j: dv_i/dF_j
  /// and dP_i/dF_j.
  void set_response(int i, int j, double rate, const Eigen::Vector3d& normal);

  enum class Outcome {
    kSolved,     // one solution: impulse(i), mode(i)
    kNone,       // no combination of the cases is consistent
    kSeveral,    // two or more are, moving the joints differently (solutions())
    kOffLine,    // several joints, one's P not on a line (a spatial load), and a
                 // combination's friction changes the P's as much as they are (its
                 // fixed point not a contraction): not decided
    kDependent,  // not determined: none found where some combination's system has two or
                 // more free directions, or one combination's consistent impulses form a
                 // line along which the joints' rates change (a continuum of motions:
                 // solutions() holds a point inside each such line)
  };
  Outcome solve();

  /// A consistent outcome: the impulses, each joint's case (0 stuck, +1 or
  /// -1 slipping that way after the impact), and whether the impulses are
  /// one choice among many giving the same rates (stuck joints of one
  /// motion: a singular system searched along its one free direction).
  struct Solution {
    Eigen::VectorXd F;
    std::vector<int> mode;
    bool indeterminate = false;
  };
  /// The distinct solutions found (by the joints' rates; at most a few: the
  /// enumeration stops there).
  const std::vector<Solution>& solutions() const { return solutions_; }
  /// The first solution's
  double impulse(int i) const { return solutions_.front().F(i); }
  int mode(int i) const { return solutions_.front().mode[static_cast<std::size_t>(i)]; }
  bool indeterminate() const { return solutions_.front().indeterminate; }
  /// the joint whose P is off its line (kOffLine)
  int off_line() const { return off_line_; }
  /// kOffLine: why a combination was not solved (SpatialSlip's words)
  const std::string& off_line_why() const { return off_line_why_; }

 private:
  Outcome solve_one();
  Outcome solve_several();
  Outcome solve_spatial();  // solve_several with a reaction off its line
  Outcome outcome() const;

  int count_ = 0;
  Eigen::VectorXd v0_, mu_;
  Eigen::MatrixXd C_;
  std::vector<Eigen::Vector3d> P0_;
  std::vector<Eigen::Vector3d> R_;  // R_[i * count + j]
  std::vector<Solution> solutions_;
  int off_line_ = -1;
  std::string off_line_why_;
};

/// One ball (a spherical joint's friction) in an impact. After the impact's
/// solve without its friction, its relative angular velocity and whole
/// reaction impulse are affine in its friction moment impulse M (world, on
/// the follower): w+ = w0 + C M, P = P0 + R M, C symmetric and positive
/// semi-definite (its relative rotations' inverse inertia). Coulomb's law
/// M in -mu |P| Sign(w+), mu here the coefficient times the ball's radius,
/// leaves it stuck (w+ = 0, |M| <= mu |P|) or slipping, M = -kappa w+ with
/// kappa > 0 and |M| = mu |P|. For a given kappa M is linear,
/// M = -kappa (I + kappa C)^-1 w0, and |M| grows with kappa from 0 to the
/// holding impulse -C^+ w0: the roots of phi = |M| - mu |P| in ln kappa are
/// bracketed on a grid and refined (root_finding.h). Returns every distinct
/// solution (by w+); one is the motion, none or several a Painleve case.
/// Where C is singular (the ball's rotations partly locked by the
/// mechanism) a slip stays exact (M is along w+, in C's range) and the
/// stuck case is tested at the least holding impulse: `*indeterminate`
/// is then set, as other holding impulses exist. C's rank is judged against
/// `free_response`, the size of the ball's response without the mechanism
/// (0: C's own largest eigenvalue); a ball locked whole is held with M = 0.
struct BallImpulse {
  Eigen::Vector3d M = Eigen::Vector3d::Zero();  // friction moment impulse
  Eigen::Vector3d w = Eigen::Vector3d::Zero();  // relative angular velocity after it
  bool stuck = false;                           // w = 0
};
std::vector<BallImpulse> ball_friction_impulses(const Eigen::Vector3d& w0, const Eigen::Matrix3d& C,
                                                const Eigen::Vector3d& P0, const Eigen::Matrix3d& R,
                                                double mu, bool* indeterminate,
                                                double free_response = 0.0);

}  // namespace ictus::internal
