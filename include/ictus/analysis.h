// Statics and linearised modes of the constrained system (Adams STATIC and
// LINEAR in spirit), built on the public System interface only.
//
// Both work on the independent coordinates z of the constrained system: the
// tangent space of the configuration (per body dr_W (3), dtheta_B (3): a
// position update is r += dr, q <- q exp(dtheta / 2)) restricted to the null
// space N of the constraint Jacobian D, with N chosen M-orthonormal
// (N^T M N = I). N is read from the System's velocity projection
// u -> u - M^-1 D^T S^-1 D u, the M-orthogonal projector onto null(D)
// (docs/statics-and-modes.md).
#pragma once

#include <complex>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ictus/math.h"
#include "ictus/system.h"

namespace ictus {

using MatX = Eigen::MatrixXd;

/// A channel's value at an analysed state.
struct ChannelValue {
  std::string name;
  std::string unit;
  double value = 0.0;
};

/// A named coordinate on which residuals and mode shapes are expressed: a
/// joint coordinate channel (`pivot.angle`, `guide.x`) or a body coordinate
/// (`block.x`: centre-of-mass displacement; `block.rx`: small rotation about
/// the world x axis).
struct NamedCoordinate {
  std::string name;
  std::string unit;  ///< "rad" or "m"
};

struct StaticOptions {
  /// Converged when every body's unbalanced force is below tolerance * F and
  /// its unbalanced moment below tolerance * F * L (F: load scale, L: length
  /// scale of the model, both reported in StaticResult).
  double tolerance = 1e-10;
  int max_iterations = 60;
  /// Trust region of one Newton step: largest rotation [rad] of any body;
  /// translations are limited to the same fraction of the length scale.
  double max_step = 0.5;
};

/// Outcome of `solve_static`.
struct StaticResult {
  double time = 0.0;
  VecX state;  ///< the equilibrium (velocities zero)
  int dof = 0;
  int iterations = 0;
  double unbalanced_force = 0.0;   ///< largest |F| left on a body [N]
  double unbalanced_moment = 0.0;  ///< largest |M| left on a body [N m]
  double load_scale = 0.0;         ///< F [N]
  double length_scale = 0.0;       ///< L [m]
  /// Eigenvalues of the symmetric part of the reduced stiffness K_r
  /// (M-orthonormal coordinates, so they are omega^2 [1/s^2] of the undamped
  /// system); a negative one means an unstable equilibrium.
  std::vector<double> stiffness_eigenvalues;
  bool stable = true;
  /// Every channel at the equilibrium. Reactions, multipliers and driver
  /// loads are the static ones: drivers are held at their value at `time`
  /// (the part of the reactions that a moving driver's rate would demand is
  /// removed by superposition).
  std::vector<ChannelValue> channels;
  std::vector<std::string> notes;  ///< e.g. an unstable equilibrium
};

/// Static equilibrium near y (assembled, e.g. by Simulation::prepare) at time
/// t: Newton's method with a trust region and backtracking on the reduced
/// residual r(z) = N^T M a(q(z), 0), the generalised unbalanced load, with the
/// constraints restored by System::project after every update. Throws
/// ModelError naming the largest unbalanced loads and generalised forces when
/// there is no equilibrium near y.
StaticResult solve_static(System& system, double t, const VecX& y,
                          const StaticOptions& options = {});

struct ModalOptions {
  /// Finite-difference step of the positions: rotations [rad], translations
  /// as this fraction of the length scale (central differences).
  double step = 1e-5;
  /// A mode whose stiffness eigenvalue omega^2 is below rigid_tolerance^2
  /// times the largest, or below 1e-8 max(|g|, 1 m/s^2) / L (a frequency of
  /// 1e-4 sqrt(g / L)), is a rigid-body (zero-frequency) mode.
  double rigid_tolerance = 1e-4;
};

/// One eigenvalue lambda of the linearised system M_r z'' + C_r z' + K_r z = 0.
struct Mode {
  enum class Kind {
    kOscillatory,  ///< complex pair (reported once, Im > 0)
    kRigid,        ///< zero frequency: nothing resists the motion
    kReal,         ///< real lambda < 0: decay without oscillation, time constant -1/lambda
    kDivergent,    ///< real lambda > 0: static divergence (unstable equilibrium)
  };
  Kind kind = Kind::kOscillatory;
  std::complex<double> eigenvalue;
  double omega_n = 0.0;  ///< |lambda| [rad/s] (undamped natural frequency of the mode)
  double omega_d = 0.0;  ///< |Im lambda| [rad/s] (damped frequency)
  double zeta = 0.0;     ///< -Re lambda / |lambda| (oscillatory modes)
  /// Shape on ModalResult::coordinates, scaled so that its largest entry is 1.
  std::vector<std::complex<double>> shape;
};

/// Outcome of `compute_modes`.
struct ModalResult {
  double time = 0.0;
  VecX state;  ///< the state linearised about (velocities zero)
  int dof = 0;
  std::vector<NamedCoordinate> coordinates;
  std::vector<Mode> modes;  ///< rigid first, then by omega_n
  /// Natural frequencies of the undamped system (K_r sym, M_r) [rad/s],
  /// ascending; negative stiffness gives a negative entry -sqrt(|k|).
  std::vector<double> undamped_frequencies;
  MatX mass, damping, stiffness;  ///< M_r, C_r, K_r (M-orthonormal coordinates)
  MatX coordinate_map;            ///< d(coordinates)/dz (coordinates x dof)
};

/// Linearised modes about y at time t (velocities taken as zero):
///   M_r = N^T M N,  C_r = -N^T M da/dv N,  K_r = -N^T M da/dq N,
/// by central differences of System::derivative in the independent
/// coordinates, then the first-order companion form
///   [0 I; -M_r^-1 K_r  -M_r^-1 C_r]
/// solved by Eigen::EigenSolver.
ModalResult compute_modes(System& system, double t, const VecX& y,
                          const ModalOptions& options = {});

}  // namespace ictus
