// The friction forces of several slipping elements whose normal forces are
// the lengths of reaction vectors, solved together (docs/theory/friction.md,
// "Several slipping").
//
// Element i has the reaction f_i = f0_i + sum_j t_ij F_j (3-vectors: a pin's
// transverse reaction in its plane, a ball's whole reaction) and the
// friction force F_i = lever_i N_i, lever_i = -s_i mu_i, where N_i = |f_i|
// for a joint and N_i = f_i.x (signed, compressive positive) for a contact
// tangent. In the normal forces this is the fixed point N = phi(N),
//   phi_i(N) = |f0_i + sum_j t_ij lever_j N_j|,
// with |phi_i(N) - phi_i(N')| <= sum_j |t_ij| |lever_j| |N_j - N'_j|. While
// rho = max_i sum_j |t_ij| |lever_j| < 1, phi is a contraction in the max
// norm: exactly one solution (Banach), and each fixed-point step shrinks
// the residual |N - phi(N)| by rho at least. solve() takes Newton steps
// (the Jacobian I - D phi is strictly diagonally dominant) and keeps one
// only where it shrinks the residual as much as a fixed-point step would,
// else takes the fixed-point step: it converges whatever the start. Where
// rho >= 1 the solution need not be unique (Painleve) and nothing is solved.
// Where the reactions lie on lines, CoupledSlip (coupled_slip.h) enumerates
// their sides exactly instead.
#pragma once

#include <Eigen/Dense>
#include <vector>

namespace ictus::internal {

class SpatialSlip {
 public:
  /// Sizes the workspace for at most `capacity` elements: once, when the
  /// model is built. solve() allocates nothing.
  void reserve(int capacity);
  int capacity() const { return static_cast<int>(lever_.size()); }

  /// Starts a set of `count` elements (at most capacity()): every entry zero.
  void start(int count);
  /// Element i: its reaction without the set's friction, its lever -s mu,
  /// and whether it is a joint (N = |f|) or a contact tangent (N = f.x).
  void set_element(int i, const Eigen::Vector3d& f0, double lever, bool joint);
  /// df_i / dF_j.
  void set_response(int i, int j, const Eigen::Vector3d& t) { T_.block<3, 1>(3 * i, j) = t; }

  struct Result {
    bool solved = false;       // rho < 1 and the residual below round-off
    double contraction = 0.0;  // rho
    int iterations = 0;
  };
  Result solve();
  double force(int i) const { return lever_(i) * normal_(i); }
  double normal(int i) const { return normal_(i); }

 private:
  /// phi(N) into phi_, and into jacobian_ (top-left count x count) I - D phi
  /// if asked; returns |N - phi(N)| in the max norm.
  double residual(const Eigen::VectorXd& N, bool with_jacobian);

  int count_ = 0;
  std::vector<char> joint_;
  Eigen::MatrixXd f0_;  // 3 x capacity
  Eigen::MatrixXd T_;   // 3 capacity x capacity: the rows of element i from 3 i
  Eigen::VectorXd lever_, normal_;
  Eigen::VectorXd trial_, phi_, fixed_, step_, rhs_;      // padded
  Eigen::MatrixXd jacobian_;                              // padded to a power of two
  std::vector<Eigen::PartialPivLU<Eigen::MatrixXd>> lu_;  // sizes 2, 4, 8, ...
};

}  // namespace ictus::internal
