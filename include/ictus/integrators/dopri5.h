// Dormand-Prince 5(4): explicit, adaptive, with 4th-order dense output.
#pragma once

#include "ictus/integrator.h"

namespace ictus {

/// Dormand & Prince (1980), "A family of embedded Runge-Kutta formulae",
/// J. Comp. Appl. Math. 6; coefficients, step control (PI, beta = 0.04) and
/// dense output as in Hairer, Norsett & Wanner, Solving ODE I, sec. II.4-6
/// (code DOPRI5). FSAL: the seventh stage is the next step's first.
class DormandPrince5 final : public Integrator {
 public:
  DormandPrince5(OdeSystem& ode, const IntegratorOptions& options);

  std::string_view name() const override { return "dopri5"; }
  void reset(double t, const VecX& y) override;
  void step(double t_limit) override;
  void interpolate(double tt, Eigen::Ref<VecX> out) const override;
  void adjust_state(const VecX& y) override;

 private:
  double initial_step(double t_limit);
  double error_norm() const;

  OdeSystem& ode_;
  IntegratorOptions options_;
  double h_ = 0.0;       // next trial step
  double h_last_ = 0.0;  // last accepted step
  double h_cap_ = 0.0;   // largest first step after a restart
  double previous_error_ = 1e-4;
  bool rejected_last_ = false;
  VecX k1_, k2_, k3_, k4_, k5_, k6_, k7_, y_new_, y_stage_, error_;
  // dense output coefficients of the last accepted step
  VecX r1_, r2_, r3_, r4_, r5_;
};

}  // namespace ictus
