// Classical fourth-order Runge-Kutta with a fixed step.
#pragma once

#include "ictus/integrator.h"

namespace ictus {

/// Butcher tableau c = (0, 1/2, 1/2, 1), b = (1/6, 1/3, 1/3, 1/6).
/// Dense output: cubic Hermite interpolation between the step ends, using
/// the derivative at the end of the step, which is also the first stage of
/// the next step (so each step costs four evaluations).
class RungeKutta4 final : public Integrator {
 public:
  RungeKutta4(OdeSystem& ode, double step);

  std::string_view name() const override { return "rk4"; }
  void reset(double t, const VecX& y) override;
  void step(double t_limit) override;
  void interpolate(double tt, Eigen::Ref<VecX> out) const override;
  void adjust_state(const VecX& y) override;

 private:
  OdeSystem& ode_;
  double h_;
  VecX y_previous_, f_previous_, f_, k2_, k3_, k4_, tmp_;
};

}  // namespace ictus
