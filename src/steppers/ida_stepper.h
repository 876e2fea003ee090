// SUNDIALS IDA(S), variable-order BDF on residuals, on the implicit form
//   G(t, y, y') = y' - F(t, y) = 0
// of the same first-order system as CvodeStepper (MechanicalSystem::derivative,
// positions and velocities, 13 per body). This is an index-1 formulation: the
// constraint forces are already inside the accelerations, so every component
// is differential. The true index-2/3 DAE, with the constraint rows as
// algebraic equations and the multipliers as algebraic unknowns (IDASetId,
// IDACalcIC), is a later step that needs the constraint residuals from the
// MechanicalSystem.
//
//   * The energy-audit entries are IDAS quadratures, outside the error test
//     and the Newton iteration (IDAS guide sec. 4.7, "Integration of pure
//     quadrature equations").
//   * IDA has no projection step: the quaternions drift from unit length by
//     about the tolerance per unit time. Nothing renormalises them behind
//     IDA's back; the states handed out (y(), interpolate()) are normalised.
//   * The linear solver is chosen as in CvodeStepper (dense LU or KLU).
//   * step() is one internal step (IDA_ONE_STEP) bounded by IDASetStopTime;
//     interpolate() is IDA's dense output (IDAGetDky, IDAGetQuadDky).
#pragma once

#include <memory>
#include <string_view>

#include "cvode_stepper.h"  // SundialsJacobian
#include "ictus/stepper.h"

namespace ictus {

class IdaStepper final : public Stepper {
 public:
  /// Throws std::invalid_argument for options it cannot use.
  IdaStepper(MechanicalSystem& system, const StepperOptions& options,
             SundialsJacobian jacobian = SundialsJacobian::difference_quotient);
  ~IdaStepper() override;
  IdaStepper(const IdaStepper&) = delete;
  IdaStepper& operator=(const IdaStepper&) = delete;

  std::string_view name() const override { return "ida"; }
  /// "dense" or "klu", as CvodeStepper::linear_solver().
  std::string_view linear_solver() const;
  /// Creates the IDA memory on the first call (or when the size changes);
  /// later calls re-initialise it (IDAReInit). y'(t) = F(t, y) is consistent
  /// by construction, so no IDACalcIC. Statistics accumulate over resets.
  void reset(double t, const VecX& y) override;
  void step(double t_limit) override;
  void interpolate(double tt, Eigen::Ref<VecX> out) const override;

 private:
  struct Solver;  // the SUNDIALS objects and callbacks (ida_stepper.cpp)
  std::unique_ptr<Solver> solver_;
};

}  // namespace ictus
