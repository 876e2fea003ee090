// Internal: the independent coordinates of the constrained system, shared by
// statics and modes (docs/statics-and-modes.md section 1).
//
// Tangent coordinates xi (6 per body): dr_W (3) and dtheta_B (3), matching the
// velocity block [v_W; w_B] of the state; a position update is r += dr,
// q <- q exp(dtheta / 2). The independent directions are the columns of N,
// an M-orthonormal basis of null(D) (N^T M N = I), read from the velocity
// projection P = I - M^-1 D^T S^-1 D, which System::project applies:
// L^T P L^-T (M = L L^T) is the orthogonal projector onto L^T null(D), so its
// eigenvectors of eigenvalue 1 are W and N = L^-T W (the eigenvalues are 0
// or 1, a gap that makes the rank decision safe).
#pragma once

#include <string>
#include <vector>

#include "ictus/analysis.h"
#include "ictus/system.h"

namespace ictus::internal {

class ConstrainedTangent {
 public:
  ConstrainedTangent(System& system, double t, const VecX& y);

  int bodies() const { return n_; }
  /// Block-diagonal mass matrix diag(m I3, J_B) per body (6n x 6n).
  const MatX& mass() const { return mass_; }
  /// Length scale of the model [m] (body positions, radii of gyration).
  double length_scale() const { return length_; }

  /// Positions of y moved by xi (tangent coordinates), not projected.
  void retract(VecX& y, const VecX& xi) const;
  /// y moved by xi, put back onto the constraints (System::project), at rest.
  VecX move(const VecX& y, const VecX& xi);
  /// M-orthonormal basis of the null space of D at y (6n x dof).
  MatX null_space(const VecX& y);
  /// Accelerations [a_W; alpha_B] per body at y (the velocity block of y').
  VecX acceleration(const VecX& y);
  /// Stiffness eigenvalues (omega^2 in M-orthonormal coordinates [1/s^2])
  /// below this are zero: 1e-8 max(|g|, 1 m/s^2) / L, a frequency of 1e-4
  /// sqrt(g / L), well above the differencing noise (~1e-11 g / L).
  double stiffness_floor() const;
  /// Size of a tangent vector in physical units: largest rotation [rad] or
  /// translation / length scale of any body.
  double physical_size(const VecX& xi) const;

  /// Named coordinates (joint angles and translations; body coordinates
  /// when those do not describe every independent direction) and the map
  /// from z to them, G N (k x dof), by central differences of the channels.
  void coordinates(const VecX& y, const MatX& basis, double step,
                   std::vector<NamedCoordinate>& names, MatX& map);

  /// Generalised forces on the named coordinates equivalent to r = N^T F
  /// (virtual work: r = (G N)^T Q, least squares / minimum norm).
  static VecX generalised_forces(const MatX& map, const VecX& r);

  System& system() { return system_; }
  double time() const { return t_; }

 private:
  System& system_;
  double t_;
  int n_;
  MatX mass_;
  double length_ = 1.0;
  VecX dy_;
};

}  // namespace ictus::internal
