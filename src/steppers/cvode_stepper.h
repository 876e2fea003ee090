// SUNDIALS CVODE(S), BDF of variable order (1-5) with Newton iterations, on
// the first-order form y' = F(t, y) of a MechanicalSystem
// (MechanicalSystem::derivative). For stiff models: stiff springs and
// dampers, penalty contacts.
//
//   * CVODE's vector holds the positions and velocities (13 per body). The
//     energy-audit entries are CVODES quadratures, excluded from the error
//     test (CVodeSetQuadErrCon off, the default) and from the Newton
//     iteration (CVODES guide sec. 2.4 / 4.7, "Integration of pure
//     quadrature equations"). Quadratures cost one evaluation per step.
//   * Quaternions are projected back to unit length by CVODE's own
//     projection step (CVodeSetProjFn, CVODE guide sec. 2.7), so the BDF
//     history stays consistent with the projected states; no one
//     renormalises behind CVODE's back.
//   * step() is one internal step (CV_ONE_STEP) bounded by CVodeSetStopTime;
//     interpolate() is CVODE's dense output (CVodeGetDky, CVodeGetQuadDky).
//   * Newton's linear systems use the dense LU or, for large models made of
//     independent groups of bodies, KLU on a CSC matrix whose pattern comes
//     from MechanicalSystem::coupling_groups() (StepperOptions::linear_solver;
//     SUNDIALS docs, "The SUNLinSol_KLU Module"). The Jacobian comes from
//     difference quotients with SUNDIALS' increments (default; for KLU one
//     evaluation per column group) or from MechanicalSystem::jacobian()
//     mapped to the first-order form.
#pragma once

#include <memory>
#include <string_view>

#include "ictus/stepper.h"

namespace ictus {

/// Where a SUNDIALS stepper takes the Jacobian of y' = F(t, y) from.
enum class SundialsJacobian {
  /// Forward difference quotients of F, one column per evaluation, with the
  /// increments of SUNDIALS' dense routines (CVODE / IDA guides sec. 2.1);
  /// done here because SUNDIALS 6.4's routines allocate on every call.
  difference_quotient,
  /// MechanicalSystem::jacobian() (A_q, A_v) mapped to the first-order form
  /// (sundials_support.h: first_order_jacobian).
  mechanical_system,
};

class CvodeStepper final : public Stepper {
 public:
  /// Throws std::invalid_argument for options it cannot use.
  CvodeStepper(MechanicalSystem& system, const StepperOptions& options,
               SundialsJacobian jacobian = SundialsJacobian::difference_quotient);
  ~CvodeStepper() override;
  CvodeStepper(const CvodeStepper&) = delete;
  CvodeStepper& operator=(const CvodeStepper&) = delete;

  std::string_view name() const override { return "cvode"; }
  /// "dense" or "klu": the linear solver chosen at the last creation
  /// (StepperOptions::linear_solver; "dense" before the first reset).
  std::string_view linear_solver() const;
  /// Creates the CVODE memory on the first call (or when the size changes);
  /// later calls re-initialise it (CVodeReInit), allocating nothing.
  /// Statistics accumulate over resets.
  void reset(double t, const VecX& y) override;
  void step(double t_limit) override;
  /// CVODE's interpolating polynomial in [t_previous(), t()]; the quaternions
  /// of `out` are normalised (they are within the tolerance of unit length).
  void interpolate(double tt, Eigen::Ref<VecX> out) const override;

 private:
  struct Solver;  // the SUNDIALS objects and callbacks (cvode_stepper.cpp)
  std::unique_ptr<Solver> solver_;
};

}  // namespace ictus
