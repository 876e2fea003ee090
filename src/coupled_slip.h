// The friction forces of several slipping elements solved together, without
// iteration (docs/theory/friction.md, "Several slipping").
//
// Each element i has a normal force on its line y_i = y0_i + sum_j T_ij F_j
// (the slipping solve's unit responses) and the friction force
//   F_i = lever_i sigma_i y_i,   lever_i = -s_i mu_i,
// where sigma_i = sgn(y_i) for a joint (its transverse reaction may change
// side in a bilateral guide) and sigma_i = 1 for a contact tangent (the
// normal force is signed, compressive positive). For each pattern of the
// joints' sides this is the linear system (I - G T) F = G y0, G =
// diag(lever sigma); a pattern is consistent when every joint's y_i has the
// side it assumed.
#pragma once

#include <Eigen/Dense>
#include <vector>

namespace ictus::internal {

class CoupledSlip {
 public:
  /// Sizes the workspace for at most `capacity` elements: once, when the
  /// model is built. solve() allocates nothing.
  void reserve(int capacity);
  int capacity() const { return static_cast<int>(y0_.size()); }

  /// Starts a set of `count` elements (at most capacity()): T, y0 and the
  /// levers are zero, every element a contact.
  void start(int count);
  /// Element i: its normal force without the set's friction, its lever
  /// -s mu, and whether it is a joint (two-sided normal force).
  void set_element(int i, double y0, double lever, bool joint);
  /// dy_i / dF_j.
  void set_response(int i, int j, double value) { T_(i, j) = value; }
  double response(int i, int j) const { return T_(i, j); }

  struct Result {
    int found = 0;             // distinct consistent solutions (0, 1 or 2: it stops at two)
    double determinant = 0.0;  // det(I - G T) of the solution found (of the last one)
  };
  /// Enumerates the joints' sides (2^joints systems; one when the map
  /// y -> y0 + T G |y| is a contraction, where the solution is unique).
  /// The forces of the (last) solution found are force(i).
  Result solve();
  double force(int i) const { return solution_(i); }

 private:
  /// F = A^-1 rhs through the decomposition, as Eigen's FullPivLU::solve
  /// (the rank's leading block; zero beyond it) but into the workspace,
  /// without a temporary.
  void solve_with(const Eigen::FullPivLU<Eigen::MatrixXd>& lu);

  int count_ = 0;
  std::vector<char> joint_;
  std::vector<int> joint_index_;
  Eigen::MatrixXd T_, A_;
  Eigen::VectorXd y0_, lever_, g_, rhs_, work_, F_, reaction_, solution_;
  std::vector<Eigen::FullPivLU<Eigen::MatrixXd>> lu_by_size_;  // 2, 4, 8, ...
};

}  // namespace ictus::internal
