// Implicit structural steppers in acceleration form: Newmark-beta, HHT-alpha,
// generalized-alpha and Wilson-theta, on the Lie group of the positions.
//
// The unknown of a step is the true acceleration x = qdd_{n+1}; with the
// pseudo-acceleration a of generalized-alpha (Arnold & Bruls, "Convergence
// of the generalized-alpha scheme for constrained mechanical systems",
// Multibody Syst. Dyn. 18, 2007):
//   (1 - am) a_{n+1} + am a_n = (1 - af) x + af qdd_n
//   v_{n+1} = v_n + h ((1 - gamma) a_n + gamma a_{n+1})
//   q_{n+1} = q_n (+) h v_n + h^2 ((1/2 - beta) a_n + beta a_{n+1})
//   x = A(t_{n+1}, q_{n+1}, v_{n+1})             (the index-1 accelerations)
// solved by Newton with J = I - c (beta h^2 A_q + gamma h A_v),
// c = (1 - af)/(1 - am). Special cases:
//   newmark            am = af = 0 (Newmark 1959; beta = 1/4, gamma = 1/2:
//                      trapezoidal rule, energy-conserving on linear models)
//   hht                am = 0, af = -alpha, gamma = 1/2 - alpha,
//                      beta = (1 - alpha)^2 / 4 (Hilber, Hughes & Taylor 1977)
//   generalized_alpha  am = (2 rho - 1)/(rho + 1), af = rho/(rho + 1),
//                      gamma = 1/2 - am + af, beta = (1 - am + af)^2 / 4
//                      (Chung & Hulbert 1993), rho = rho_inf
// Wilson-theta (Bathe, Finite Element Procedures, sec. 9.2.3) extends the
// step to tau = theta h with linear acceleration (beta = 1/6, gamma = 1/2),
// the explicit time dependence of the loads extrapolated linearly, and
// comes back to t + h with a_{n+1} = a_n + (x_tau - a_n)/theta.
// The two-pass option is seed 003's modified scheme: the nonlinear force
// elements are frozen at t (pass 1) and then at the pass-1 state at t + h
// (pass 2), the linear part staying in the iteration matrix.
//
// Constraints enter through A (Schur complement with the Baumgarte terms of
// seed 000 eqs. 6-7): the stabilised index-1 form, not index 3; after each
// step the state is projected onto the constraints (MechanicalSystem::project),
// since the O(h^2) drift of these schemes would otherwise reach the reactions
// through the Baumgarte terms.
// The audit quadratures use the trapezoidal rule. Dense output: cubic
// Hermite in the chart of the step's start for positions and velocities.
#pragma once

#include <Eigen/LU>

#include "ictus/stepper.h"

namespace ictus {

class StructuralStepper final : public Stepper {
 public:
  enum class Scheme { kNewmark, kHht, kGeneralizedAlpha, kWilson };

  StructuralStepper(Scheme scheme, MechanicalSystem& system, const StepperOptions& options);

  std::string_view name() const override;
  void reset(double t, const VecX& y) override;
  void step(double t_limit) override;
  void interpolate(double tt, Eigen::Ref<VecX> out) const override;
  bool scheme_accelerations(Eigen::Ref<VecX> out) const override {
    out = a_;
    return true;
  }

 private:
  /// Builds the state at the end of a (sub)step of size tau from the
  /// unknown x; returns the scheme's acceleration a in a_new_.
  void update(double tau, const VecX& x);
  /// Newton on x for a step of size h; false if it did not converge.
  bool solve(double h);
  void refresh_jacobian(double t, double h);
  /// Wilson: (theta - 1) times the explicit time change of A over the step.
  void extrapolate_loads(double h);

  Scheme scheme_;
  MechanicalSystem& system_;
  StepperOptions options_;
  StateLayout layout_;
  int nv_ = 0;
  int na_ = 0;
  double beta_ = 0.25, gamma_ = 0.5, am_ = 0.0, af_ = 0.0;

  // at t_n: state y_, true acceleration qdd_, scheme acceleration a_,
  // audit rates r_
  VecX qdd_, a_, r_;
  VecX x_, dx_, a_new_, v_new_, increment_, y_new_, rates_, residual_;
  VecX load_extrapolation_;  // Wilson: theta-1 times the explicit time change of A
  VecX y_frozen_;            // two-pass: the state the nonlinear forces are frozen at
  MatX A_q_, A_v_, iteration_matrix_;
  Eigen::PartialPivLU<MatX> lu_;
  double jacobian_h_ = 0.0;  // step the iteration matrix was built for (0: none)

  // dense output over the last step
  VecX previous_, v0_, acc0_, v1_, acc1_, increment_end_, audit0_, audit1_;
  mutable VecX dense_increment_;
};

}  // namespace ictus
