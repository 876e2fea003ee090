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
// with |phi_i(N) - phi_i(N')| <= sum_j K_ij |N_j - N'_j|, K_ij = |t_ij|
// |lever_j|. While K's spectral radius is below 1, phi is a contraction (by
// q < 1 in a weighted max norm, the weights from (I - K) w = 1): exactly
// one solution (Banach), and each fixed-point step shrinks the residual
// |N - phi(N)| by q at least. solve() takes Newton steps (I - D phi is
// nonsingular: |D phi| <= K) and keeps one only where it shrinks the
// residual as much as a fixed-point step would, else takes the fixed-point
// step: it converges whatever the start. Where the spectral radius is 1 or
// more the solution need not be unique (Painleve) and nothing is solved.
// Where the reactions lie on lines, CoupledSlip (coupled_slip.h) enumerates
// their sides exactly instead.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace ictus::internal {

// A reaction (or reaction impulse) counts as on its line while the part off
// it is below this fraction of its size: N = |y| then errs by (off/y)^2 / 2
// <= 5e-13 relative, and a state perturbed out of a planar mechanism's plane
// (the implicit steppers' finite-difference Jacobian) stays well inside. The
// slip solve, the decision at zero rate and the impulses use it alike.
inline constexpr double kOffLineFraction = 1e-6;

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
    bool unique = false;       // K's spectral radius below 1
    bool solved = false;       // unique, and converged to round-off
    double contraction = 0.0;  // q where unique, else K's largest row sum
    int iterations = 0;
    /// Why not solved, for a message: "the friction changes ...".
    std::string why_not_solved() const;
  };
  Result solve();
  double force(int i) const { return lever_(i) * normal_(i); }
  double normal(int i) const { return normal_(i); }

 private:
  /// phi(N) into phi_, and into jacobian_ (top-left count x count) I - D phi
  /// if asked; returns |N - phi(N)| in the weighted max norm.
  double residual(const Eigen::VectorXd& N, bool with_jacobian);

  int count_ = 0;
  std::vector<char> joint_;
  Eigen::MatrixXd f0_;  // 3 x capacity
  Eigen::MatrixXd T_;   // 3 capacity x capacity: the rows of element i from 3 i
  Eigen::VectorXd lever_, normal_, weight_;
  Eigen::VectorXd trial_, phi_, fixed_, step_, rhs_;      // padded
  Eigen::MatrixXd jacobian_;                              // padded to a power of two
  std::vector<Eigen::PartialPivLU<Eigen::MatrixXd>> lu_;  // sizes 2, 4, 8, ...
};

}  // namespace ictus::internal
