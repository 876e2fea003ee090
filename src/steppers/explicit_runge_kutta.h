// Explicit Runge-Kutta steppers in the Lie-group chart of the step's start.
//
// Each step integrates z = [dq | v | audit] from z_n = [0 | v_n | audit_n]
// with positions q = q_n (+) dq (state_layout.h) and
//   dq' = J_r^-1(dtheta) [v_WB, w_B]  (per body),  v' = a(t, q, v),
// which is the Runge-Kutta-Munthe-Kaas method (Munthe-Kaas, BIT 38, 1998):
// the order of the tableau is kept on the rotation group, quaternions stay
// unit, and nothing is renormalised between steps. The audit quadratures
// are integrated with the same weights but left out of the error norm.
//
//   rk4     classical fourth order, fixed step (but for the one or two
//           steps placed across a singular configuration, at most 1.25 h:
//           steppers/singular_crossing.h), cubic Hermite dense output
//   dopri5  Dormand-Prince 5(4), PI step control and Hairer's dense output
//           (Hairer, Norsett & Wanner, Solving ODEs I, sec. II.5 and II.6)
//   rkf45   Runge-Kutta-Fehlberg 4(5) as in Forsythe, Malcolm & Moler's
//           RKF45 (Shampine & Watts): fifth-order solution carried, max-norm
//           error test, step factor 0.9 err^(-1/5) within [0.1, 5], no
//           growth right after a rejection; cubic Hermite dense output.
//           Seeds 001 and 003 used it and plot its step-size collapse.
#pragma once

#include <array>

#include "ictus/stepper.h"
#include "singular_crossing.h"

namespace ictus {

class ExplicitRungeKutta final : public Stepper {
 public:
  enum class Method { kRk4, kDopri5, kRkf45 };

  ExplicitRungeKutta(Method method, MechanicalSystem& system, const StepperOptions& options);

  std::string_view name() const override;
  void reset(double t, const VecX& y) override;
  void continue_corrected(double t, const VecX& y) override;
  void step(double t_limit) override;
  void interpolate(double tt, Eigen::Ref<VecX> out) const override;
  double restart_memory() const override { return h_last_; }
  void set_restart_memory(double value) override { h_last_ = value; }

 private:
  static constexpr int kMaxStages = 7;
  struct Tableau {
    int stages = 0;  // including the FSAL stage of dopri5
    std::array<double, kMaxStages> c{};
    std::array<std::array<double, kMaxStages>, kMaxStages> a{};
    std::array<double, kMaxStages> b{};  // weights of the solution carried
    std::array<double, kMaxStages> e{};  // weights of the error estimate
    bool adaptive = false;
    bool fsal = false;  // the last stage is the derivative at the new point
  };
  static Tableau tableau(Method method);

  /// k = G(t, z): rates in the chart centred at base_ (the file comment).
  void rates(double t, const VecX& z, VecX& k);
  /// y = the state of chart point z around base_.
  void to_state(const VecX& base, const VecX& z, Eigen::Ref<VecX> y) const;
  double error_norm(double h) const;
  double initial_step(double t_limit);
  void accept(double h, bool last, double t_limit);

  Method method_;
  MechanicalSystem& system_;
  StepperOptions options_;
  Tableau tab_;
  StateLayout layout_;
  int nv_ = 0;  // size of a position increment and of the velocities
  int nz_ = 0;  // chart size: 2 nv + audit

  VecX base_;      // y_n, the centre of the chart of the current step
  VecX previous_;  // y_{n-1}: the centre of the chart of the last accepted step
  VecX z0_;        // [0 | v_n | audit_n]
  VecX z_stage_, z_new_, error_;
  std::array<VecX, kMaxStages> k_;
  VecX k_end_;  // derivative at the end of the accepted step, old chart
  VecX y_stage_;
  // dense output on z over the last accepted step (chart of previous_)
  VecX d0_, d1_, d2_, d3_, d4_;
  mutable VecX z_dense_;

  double h_ = 0.0;      // proposed next step (adaptive, or placed across a crossing)
  double h_cap_ = 0.0;  // cap on the first step after a restart
  double h_last_ = 0.0;
  double previous_error_ = 1e-4;
  bool rejected_last_ = false;
  // the adaptive methods' steps across a singular configuration
  internal::SingularCrossing crossing_;
  VecX v_stage_;     // a projected stage's velocities
  VecX state_work_;  // a projected accepted state; the state at a crossing
  void after_accepted_step();
};

}  // namespace ictus
