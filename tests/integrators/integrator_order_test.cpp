// Integrators on small ODEs with known solutions: convergence orders of the
// steps and of the dense output, tolerance proportionality of the adaptive
// method, and the failure mode at a finite-time blow-up.
//
// The workhorse is the harmonic oscillator x'' = -x as y = [x, v]; its exact
// flow over a time tau is the rotation
//
//     x(tau) =  x0 cos tau + v0 sin tau,    v(tau) = -x0 sin tau + v0 cos tau,
//
// so local errors (one step from an exact state) and global errors are both
// available in closed form. An observed order is log2(e(h) / e(h/2)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "ictus/error.h"
#include "ictus/integrator.h"
#include "ictus/integrators/dopri5.h"
#include "ictus/integrators/rk4.h"

namespace ictus {
namespace {

// observed orders: the asymptotic regime is reached to within this at the
// step sizes used (the next error term is a factor ~h^2 or ~h smaller)
constexpr double kOrderTolerance = 0.2;

class Oscillator final : public OdeSystem {
 public:
  int size() const override { return 2; }
  void derivative(double /*t*/, const VecX& y, Eigen::Ref<VecX> dy) override {
    dy(0) = y(1);
    dy(1) = -y(0);
    ++calls;
  }
  static VecX flow(const VecX& y0, double tau) {
    VecX y(2);
    y << y0(0) * std::cos(tau) + y0(1) * std::sin(tau),
        -y0(0) * std::sin(tau) + y0(1) * std::cos(tau);
    return y;
  }
  long calls = 0;
};

// y' = lambda y, y = y0 exp(lambda t): a decaying, non-oscillating test
class Exponential final : public OdeSystem {
 public:
  explicit Exponential(double lambda) : lambda_(lambda) {}
  int size() const override { return 1; }
  void derivative(double /*t*/, const VecX& y, Eigen::Ref<VecX> dy) override {
    dy(0) = lambda_ * y(0);
  }

 private:
  double lambda_;
};

// y' = 4 t^3 (a pure quadrature): RK4 reduces to Simpson's rule, exact for cubics
class Quartic final : public OdeSystem {
 public:
  int size() const override { return 1; }
  void derivative(double t, const VecX& /*y*/, Eigen::Ref<VecX> dy) override {
    dy(0) = 4.0 * t * t * t;
  }
};

// y' = y^2, y(0) = 1: y = 1 / (1 - t) blows up at t = 1
class BlowUp final : public OdeSystem {
 public:
  int size() const override { return 1; }
  void derivative(double /*t*/, const VecX& y, Eigen::Ref<VecX> dy) override {
    dy(0) = y(0) * y(0);
  }
};

VecX vec(std::initializer_list<double> values) {
  VecX v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double x : values) v(i++) = x;
  return v;
}

void run_to(Integrator& integrator, double t_end) {
  while (integrator.t() < t_end) integrator.step(t_end);
}

// global error of RK4 with step h on [0, t_end]
double rk4_global_error(OdeSystem& ode, const VecX& y0, double h, double t_end, const VecX& exact) {
  RungeKutta4 rk(ode, h);
  rk.reset(0.0, y0);
  run_to(rk, t_end);
  EXPECT_EQ(rk.t(), t_end);  // lands exactly on the end, no drift of t
  return (rk.y() - exact).norm();
}

TEST(Rk4, GlobalErrorConvergesAtFourthOrder) {
  const double t_end = 2.0;
  const VecX y0 = vec({1.0, 0.5});
  Oscillator oscillator;
  Exponential decay(-1.0);
  for (double h : {0.1, 0.05}) {
    SCOPED_TRACE("h = " + std::to_string(h));
    const VecX exact_osc = Oscillator::flow(y0, t_end);
    const double oscillator_order =
        std::log2(rk4_global_error(oscillator, y0, h, t_end, exact_osc) /
                  rk4_global_error(oscillator, y0, h / 2, t_end, exact_osc));
    EXPECT_NEAR(oscillator_order, 4.0, kOrderTolerance);
    const VecX exact_exp = vec({std::exp(-t_end)});
    const double decay_order =
        std::log2(rk4_global_error(decay, vec({1.0}), h, t_end, exact_exp) /
                  rk4_global_error(decay, vec({1.0}), h / 2, t_end, exact_exp));
    EXPECT_NEAR(decay_order, 4.0, kOrderTolerance);
  }
}

// Polynomial exactness (Drake's check of order): for y' = f(t) RK4 is
// Simpson's rule, which integrates the cubic 4 t^3 exactly, so y(t) = t^4
// up to rounding, with any step, including a shortened last step.
TEST(Rk4, IntegratesQuadratureOfCubicExactly) {
  constexpr double kRounding = 1e-14;  // ~20 steps of O(1) sums
  Quartic quartic;
  RungeKutta4 rk(quartic, 0.07);  // 1.3 / 0.07 is not an integer
  rk.reset(0.0, vec({0.0}));
  run_to(rk, 1.3);
  EXPECT_NEAR(rk.y()(0), std::pow(1.3, 4), kRounding);
}

// Regression: t + h summed in floating point drifts (ten steps of 0.1 end at
// 0.9999999999999999). RK4 used to stop one ulp short of the limit and then
// throw "step 1.11e-16 s is too small to advance"; `ictus run` failed that way
// on any model with integrator rk4, step 0.1 and until 1. The step within
// rounding of the limit must land on it.
TEST(Rk4, LandsOnTheLimitDespiteRoundingOfAccumulatedTime) {
  struct Case {
    double step, t_end;
    long steps;
  };
  for (const Case c : {Case{0.1, 1.0, 10}, Case{0.05, 3.0, 60}, Case{0.1, 0.95, 10}}) {
    SCOPED_TRACE("step " + std::to_string(c.step) + " to " + std::to_string(c.t_end));
    Oscillator oscillator;
    RungeKutta4 rk(oscillator, c.step);
    rk.reset(0.0, vec({1.0, 0.0}));
    ASSERT_NO_THROW(run_to(rk, c.t_end));
    EXPECT_EQ(rk.t(), c.t_end);
    EXPECT_EQ(rk.statistics().steps, c.steps);  // no extra sliver step
  }
}

// Each RK4 step costs four evaluations: the end derivative is the next k1.
TEST(Rk4, CostsFourEvaluationsPerStep) {
  Oscillator oscillator;
  RungeKutta4 rk(oscillator, 0.1);
  rk.reset(0.0, vec({1.0, 0.0}));
  run_to(rk, 1.0);
  EXPECT_EQ(rk.statistics().steps, 10);
  EXPECT_EQ(rk.statistics().evaluations, 1 + 4 * rk.statistics().steps);
  EXPECT_EQ(oscillator.calls, rk.statistics().evaluations);
}

// Cubic Hermite interpolation between exact end values has the error
//     y(t0 + s h) - p(s) = y''''(xi) / 4! * (s h)^2 ((1 - s) h)^2,
// i.e. h^4 y'''' / 384 at mid-step. RK4's end values are off by O(h^5) only,
// so one step from an exact state shows the h^4 / 384 coefficient itself:
// for x = cos t near t = 0, x'''' ~ 1.
TEST(Rk4, HermiteDenseOutputHasTheCubicHermiteError) {
  // relative deviation of the coefficient: x'''' = cos(h/2) and O(h^2) terms
  constexpr double kCoefficientTolerance = 0.01;
  Oscillator oscillator;
  const VecX y0 = vec({1.0, 0.0});
  std::vector<double> mid_errors;
  for (double h : {0.1, 0.05, 0.025}) {
    SCOPED_TRACE("h = " + std::to_string(h));
    RungeKutta4 rk(oscillator, h);
    rk.reset(0.0, y0);
    rk.step(h);
    VecX mid(2);
    rk.interpolate(0.5 * h, mid);
    const double error = Oscillator::flow(y0, 0.5 * h)(0) - mid(0);
    EXPECT_NEAR(error / (std::pow(h, 4) / 384.0), 1.0, kCoefficientTolerance);
    mid_errors.push_back((Oscillator::flow(y0, 0.5 * h) - mid).norm());
    // the interpolant passes through both step ends
    VecX end(2);
    rk.interpolate(0.0, end);
    EXPECT_EQ(end, y0);
    rk.interpolate(h, end);
    EXPECT_EQ(end, rk.y());
  }
  EXPECT_NEAR(std::log2(mid_errors[0] / mid_errors[1]), 4.0, kOrderTolerance);
  EXPECT_NEAR(std::log2(mid_errors[1] / mid_errors[2]), 4.0, kOrderTolerance);
}

// Along a whole run the dense output is as accurate as the steps: the largest
// error at any mid-step is O(h^4).
TEST(Rk4, DenseOutputConvergesAtFourthOrderAlongARun) {
  Oscillator oscillator;
  const VecX y0 = vec({1.0, 0.5});
  auto worst_mid_error = [&](double h) {
    RungeKutta4 rk(oscillator, h);
    rk.reset(0.0, y0);
    double worst = 0.0;
    VecX mid(2);
    while (rk.t() < 3.0) {
      rk.step(3.0);
      const double t_mid = 0.5 * (rk.t_previous() + rk.t());
      rk.interpolate(t_mid, mid);
      worst = std::max(worst, (mid - Oscillator::flow(y0, t_mid)).norm());
    }
    return worst;
  };
  EXPECT_NEAR(std::log2(worst_mid_error(0.1) / worst_mid_error(0.05)), 4.0, kOrderTolerance);
}

IntegratorOptions loose_options(double max_step) {
  // tolerances so loose that no step is rejected and max_step sets every
  // step: DOPRI5 becomes a fixed-step method whose order can be measured
  IntegratorOptions o;
  o.rtol = 1.0;
  o.atol = 1.0;
  o.max_step = max_step;
  return o;
}

TEST(Dopri5, FixedStepGlobalErrorConvergesAtFifthOrder) {
  const double t_end = 2.0;
  const VecX y0 = vec({1.0, 0.5});
  Oscillator oscillator;
  auto error = [&](double h) {
    DormandPrince5 dp(oscillator, loose_options(h));
    dp.reset(0.0, y0);
    run_to(dp, t_end);
    EXPECT_EQ(dp.statistics().rejected, 0);
    EXPECT_EQ(dp.statistics().steps, std::lround(t_end / h));
    return (dp.y() - Oscillator::flow(y0, t_end)).norm();
  };
  EXPECT_NEAR(std::log2(error(0.2) / error(0.1)), 5.0, kOrderTolerance);
  EXPECT_NEAR(std::log2(error(0.1) / error(0.05)), 5.0, kOrderTolerance);
}

// The dense output is a 4th-order interpolant: one step from an exact state
// has a mid-step error O(h^5) (the step end itself is O(h^6)).
TEST(Dopri5, DenseOutputLocalErrorIsFifthOrder) {
  Oscillator oscillator;
  const VecX y0 = vec({1.0, 0.5});
  auto mid_error = [&](double h) {
    DormandPrince5 dp(oscillator, loose_options(0.0));
    dp.reset(0.0, y0);
    dp.step(h);  // the initial step chosen (~0.4) exceeds h: one step to h
    EXPECT_EQ(dp.t_previous(), 0.0);
    EXPECT_EQ(dp.t(), h);
    VecX mid(2);
    dp.interpolate(0.5 * h, mid);
    return (mid - Oscillator::flow(y0, 0.5 * h)).norm();
  };
  EXPECT_NEAR(std::log2(mid_error(0.2) / mid_error(0.1)), 5.0, kOrderTolerance);
  EXPECT_NEAR(std::log2(mid_error(0.1) / mid_error(0.05)), 5.0, kOrderTolerance);
}

// Tolerance proportionality: the controller keeps the 4th-order error
// estimate C h^5 near the tolerance, so h ~ tol^(1/5); the 5th-order solution
// then errs by ~h^6 ~ tol^(6/5) per step over ~tol^(-1/5) steps, and the
// global error is proportional to tol.
TEST(Dopri5, GlobalErrorIsProportionalToTolerance) {
  // global error over the oscillator's 10 s (1.6 periods), in units of rtol
  // (about 3 is observed)
  constexpr double kMaxErrorOverTolerance = 10.0;
  // each 100-fold tighter rtol gains a factor 100, to within 2x either way:
  // log10 of the gain is 2 +- log10(2)
  constexpr double kDecadesPerHundredfold = 2.0;
  constexpr double kDecadeTolerance = 0.3;
  const double t_end = 10.0;
  const VecX y0 = vec({1.0, 0.5});
  Oscillator oscillator;
  double previous = 0.0;
  for (double rtol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    SCOPED_TRACE("rtol = " + std::to_string(rtol));
    IntegratorOptions o;
    o.rtol = rtol;
    o.atol = rtol;
    DormandPrince5 dp(oscillator, o);
    dp.reset(0.0, y0);
    run_to(dp, t_end);
    const double error = (dp.y() - Oscillator::flow(y0, t_end)).norm();
    EXPECT_LT(error, kMaxErrorOverTolerance * rtol);
    if (previous > 0.0) {
      EXPECT_NEAR(std::log10(previous / error), kDecadesPerHundredfold, kDecadeTolerance);
    }
    previous = error;
  }
}

// Along an adaptive run, the dense output between accepted steps is as good
// as the steps: at the quarter points of every step it matches the exact
// flow from the step's start within the per-step tolerance.
TEST(Dopri5, DenseOutputIsWithinToleranceAlongAnAdaptiveRun) {
  // the 4th-order interpolant errs no more than the step tolerance
  // atol + rtol |y| itself (about 0.3 of it is observed)
  constexpr double kToleranceMultiple = 1.0;
  // interpolate() reproduces the step ends up to rounding of r1 + r2
  constexpr double kEndRounding = 1e-15;
  IntegratorOptions o;
  o.rtol = 1e-6;
  o.atol = 1e-6;
  Oscillator oscillator;
  DormandPrince5 dp(oscillator, o);
  dp.reset(0.0, vec({1.0, 0.5}));
  VecX start(2), end(2), inside(2);
  while (dp.t() < 10.0) {
    dp.step(10.0);
    const double t0 = dp.t_previous();
    const double h = dp.t() - t0;
    dp.interpolate(t0, start);
    dp.interpolate(dp.t(), end);
    EXPECT_LT((end - dp.y()).norm(), kEndRounding);
    for (double s : {0.25, 0.5, 0.75}) {
      dp.interpolate(t0 + s * h, inside);
      const VecX exact = Oscillator::flow(start, s * h);
      for (Eigen::Index i = 0; i < 2; ++i)
        EXPECT_LT(std::abs(inside(i) - exact(i)),
                  kToleranceMultiple * (o.atol + o.rtol * std::abs(exact(i))))
            << "step [" << t0 << ", " << dp.t() << "], s = " << s;
    }
  }
  EXPECT_GT(dp.statistics().steps, 10);  // the check covered many steps
}

// FSAL: each attempted step costs six new evaluations; reset costs one and
// the initial step size estimate (HINIT) one more.
TEST(Dopri5, FirstSameAsLastCostsSixEvaluationsPerAttempt) {
  IntegratorOptions o;
  o.rtol = 1e-9;
  o.atol = 1e-9;
  Oscillator oscillator;
  DormandPrince5 dp(oscillator, o);
  dp.reset(0.0, vec({1.0, 0.0}));
  run_to(dp, 5.0);
  const IntegratorStatistics& s = dp.statistics();
  EXPECT_EQ(s.evaluations, 2 + 6 * (s.steps + s.rejected));
  EXPECT_EQ(oscillator.calls, s.evaluations);
}

// y' = y^2 from y(0) = 1 has no solution past t = 1: the step size must
// collapse there and the integrator must say so rather than step across.
TEST(Dopri5, ThrowsWhenStepUnderflowsAtBlowUp) {
  // the numerical solution blows up at 1 shifted by its own accumulated error
  // (~1e-9 at these tolerances), so t = 1 is located much better than this
  constexpr double kBlowUpTimeTolerance = 1e-6;
  // the run must really reach the singularity, not stop early
  constexpr double kLargeSolution = 1e9;
  IntegratorOptions o;
  o.rtol = 1e-8;
  o.atol = 1e-8;
  BlowUp ode;
  DormandPrince5 dp(ode, o);
  dp.reset(0.0, vec({1.0}));
  try {
    // a bounded loop, so a regression fails instead of hanging
    for (int i = 0; i < 100000 && dp.t() < 2.0; ++i) dp.step(2.0);
    FAIL() << "integrated past the blow-up to t = " << dp.t() << ", y = " << dp.y()(0);
  } catch (const SimulationError& e) {
    EXPECT_NEAR(e.time(), 1.0, kBlowUpTimeTolerance);
    EXPECT_GT(dp.y()(0), kLargeSolution);
    EXPECT_NE(std::string(e.what()).find("underflows"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ictus
