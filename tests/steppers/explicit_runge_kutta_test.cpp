// Explicit Runge-Kutta steppers on small systems with known solutions:
// convergence orders of the steps and of the dense output, tolerance
// proportionality, the failure mode at a finite-time blow-up, and the Lie
// group chart (quaternions stay unit, the order holds on rotations).
//
// The workhorse is the harmonic oscillator x'' = -x; its exact flow over a
// time tau is the rotation
//     x(tau) =  x0 cos tau + v0 sin tau,    v(tau) = -x0 sin tau + v0 cos tau,
// so local and global errors are available in closed form. An observed
// order is log2(e(h) / e(h/2)).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ictus/error.h"
#include "ictus/stepper.h"
#include "test_systems.h"

namespace ictus {
namespace {

using testing::LineSystem;
using testing::SpinningBody;

// observed orders: the asymptotic regime is reached to within this at the
// step sizes used (the next error term is a factor ~h^2 or ~h smaller)
constexpr double kOrderTolerance = 0.2;

LineSystem oscillator() {
  return LineSystem([](double, double x, double) { return -x; });
}

Eigen::Vector2d xv(const VecX& y) {
  return {y(0), y(7)};
}

Eigen::Vector2d flow(double x0, double v0, double tau) {
  return {x0 * std::cos(tau) + v0 * std::sin(tau), -x0 * std::sin(tau) + v0 * std::cos(tau)};
}

void run_to(Stepper& stepper, double t_end) {
  while (stepper.t() < t_end) stepper.step(t_end);
}

StepperOptions fixed_step(double h) {
  StepperOptions o;
  o.step = h;
  return o;
}

// tolerances so loose that no step is rejected and max_step sets every
// step: an adaptive method becomes a fixed-step method whose order shows
StepperOptions loose_options(double max_step) {
  StepperOptions o;
  o.rtol = 1.0;
  o.atol = 1.0;
  o.max_step = max_step;
  return o;
}

double global_error(const char* name, const StepperOptions& o, double t_end) {
  LineSystem s = oscillator();
  auto stepper = make_stepper(name, s, o);
  stepper->reset(0.0, LineSystem::state(1.0, 0.5));
  run_to(*stepper, t_end);
  EXPECT_EQ(stepper->t(), t_end);  // lands exactly on the end, no drift of t
  return (xv(stepper->y()) - flow(1.0, 0.5, t_end)).norm();
}

TEST(Rk4, GlobalErrorConvergesAtFourthOrder) {
  for (double h : {0.1, 0.05}) {
    SCOPED_TRACE("h = " + std::to_string(h));
    EXPECT_NEAR(std::log2(global_error("rk4", fixed_step(h), 2.0) /
                          global_error("rk4", fixed_step(h / 2), 2.0)),
                4.0, kOrderTolerance);
  }
}

// Polynomial exactness (Drake's check of order): for x'' = 12 t^2 RK4 is
// Simpson's rule on v (quadratic) and on x (cubic), so x(t) = t^4 up to
// rounding, with any step, including a shortened last step.
TEST(Rk4, IntegratesQuadratureOfCubicExactly) {
  constexpr double kRounding = 1e-14;  // ~20 steps of O(1) sums
  LineSystem quartic([](double t, double, double) { return 12.0 * t * t; });
  auto rk = make_stepper("rk4", quartic, fixed_step(0.07));  // 1.3 / 0.07 is not an integer
  rk->reset(0.0, LineSystem::state(0.0, 0.0));
  run_to(*rk, 1.3);
  EXPECT_NEAR(rk->y()(0), std::pow(1.3, 4), kRounding);
}

// Regression: t + h summed in floating point drifts (ten steps of 0.1 end at
// 0.9999999999999999). The step within rounding of the limit lands on it.
TEST(Rk4, LandsOnTheLimitDespiteRoundingOfAccumulatedTime) {
  struct Case {
    double step, t_end;
    long steps;
  };
  for (const Case c : {Case{0.1, 1.0, 10}, Case{0.05, 3.0, 60}, Case{0.1, 0.95, 10}}) {
    SCOPED_TRACE("step " + std::to_string(c.step) + " to " + std::to_string(c.t_end));
    LineSystem s = oscillator();
    auto rk = make_stepper("rk4", s, fixed_step(c.step));
    rk->reset(0.0, LineSystem::state(1.0, 0.0));
    ASSERT_NO_THROW(run_to(*rk, c.t_end));
    EXPECT_EQ(rk->t(), c.t_end);
    EXPECT_EQ(rk->statistics().steps, c.steps);  // no extra sliver step
  }
}

// Each RK4 step costs four evaluations: the end derivative is the next k1.
TEST(Rk4, CostsFourEvaluationsPerStep) {
  LineSystem s = oscillator();
  auto rk = make_stepper("rk4", s, fixed_step(0.1));
  rk->reset(0.0, LineSystem::state(1.0, 0.0));
  run_to(*rk, 1.0);
  EXPECT_EQ(rk->statistics().steps, 10);
  EXPECT_EQ(rk->statistics().evaluations, 1 + 4 * rk->statistics().steps);
  EXPECT_EQ(s.calls, rk->statistics().evaluations);
}

// Cubic Hermite interpolation between exact end values errs by
// y''''(xi)/4! (s h)^2 ((1 - s) h)^2, i.e. h^4 y''''/384 at mid-step; RK4's
// end values are off by O(h^5) only, so one step from an exact state shows
// the coefficient itself: for x = cos t near t = 0, x'''' ~ 1.
TEST(Rk4, HermiteDenseOutputHasTheCubicHermiteError) {
  constexpr double kCoefficientTolerance = 0.01;
  std::vector<double> mid_errors;
  for (double h : {0.1, 0.05, 0.025}) {
    SCOPED_TRACE("h = " + std::to_string(h));
    LineSystem s = oscillator();
    auto rk = make_stepper("rk4", s, fixed_step(h));
    const VecX y0 = LineSystem::state(1.0, 0.0);
    rk->reset(0.0, y0);
    rk->step(h);
    VecX mid(y0.size());
    rk->interpolate(0.5 * h, mid);
    const double error = flow(1.0, 0.0, 0.5 * h)(0) - mid(0);
    EXPECT_NEAR(error / (std::pow(h, 4) / 384.0), 1.0, kCoefficientTolerance);
    mid_errors.push_back((flow(1.0, 0.0, 0.5 * h) - xv(mid)).norm());
    VecX end(y0.size());  // the interpolant passes through both step ends
    rk->interpolate(0.0, end);
    EXPECT_EQ(xv(end), xv(y0));
    rk->interpolate(h, end);
    EXPECT_EQ(xv(end), xv(rk->y()));
  }
  EXPECT_NEAR(std::log2(mid_errors[0] / mid_errors[1]), 4.0, kOrderTolerance);
  EXPECT_NEAR(std::log2(mid_errors[1] / mid_errors[2]), 4.0, kOrderTolerance);
}

TEST(Dopri5, FixedStepGlobalErrorConvergesAtFifthOrder) {
  auto error = [](double h) { return global_error("dopri5", loose_options(h), 2.0); };
  EXPECT_NEAR(std::log2(error(0.2) / error(0.1)), 5.0, kOrderTolerance);
  EXPECT_NEAR(std::log2(error(0.1) / error(0.05)), 5.0, kOrderTolerance);
}

// The dense output is a 4th-order interpolant: one step from an exact state
// has a mid-step error O(h^5) (the step end itself is O(h^6)).
TEST(Dopri5, DenseOutputLocalErrorIsFifthOrder) {
  auto mid_error = [](double h) {
    LineSystem s = oscillator();
    auto dp = make_stepper("dopri5", s, loose_options(0.0));
    dp->reset(0.0, LineSystem::state(1.0, 0.5));
    dp->step(h);  // the initial step chosen (~0.4) exceeds h: one step to h
    EXPECT_EQ(dp->t_previous(), 0.0);
    EXPECT_EQ(dp->t(), h);
    VecX mid(14);
    dp->interpolate(0.5 * h, mid);
    return (xv(mid) - flow(1.0, 0.5, 0.5 * h)).norm();
  };
  EXPECT_NEAR(std::log2(mid_error(0.2) / mid_error(0.1)), 5.0, kOrderTolerance);
  EXPECT_NEAR(std::log2(mid_error(0.1) / mid_error(0.05)), 5.0, kOrderTolerance);
}

// Tolerance proportionality: the global error is proportional to the
// tolerance (h ~ tol^(1/5), error per step ~ h^6, ~tol^(-1/5) steps).
TEST(Dopri5, GlobalErrorIsProportionalToTolerance) {
  constexpr double kMaxErrorOverTolerance = 10.0;
  constexpr double kDecadesPerHundredfold = 2.0;
  constexpr double kDecadeTolerance = 0.3;
  double previous = 0.0;
  for (double rtol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    SCOPED_TRACE("rtol = " + std::to_string(rtol));
    StepperOptions o;
    o.rtol = rtol;
    o.atol = rtol;
    const double error = global_error("dopri5", o, 10.0);
    EXPECT_LT(error, kMaxErrorOverTolerance * rtol);
    if (previous > 0.0) {
      EXPECT_NEAR(std::log10(previous / error), kDecadesPerHundredfold, kDecadeTolerance);
    }
    previous = error;
  }
}

// FSAL: each attempted step costs six new evaluations; reset costs one and
// the initial step size estimate one more.
TEST(Dopri5, FirstSameAsLastCostsSixEvaluationsPerAttempt) {
  StepperOptions o;
  o.rtol = 1e-9;
  o.atol = 1e-9;
  LineSystem s = oscillator();
  auto dp = make_stepper("dopri5", s, o);
  dp->reset(0.0, LineSystem::state(1.0, 0.0));
  run_to(*dp, 5.0);
  const StepperStatistics& st = dp->statistics();
  EXPECT_EQ(st.evaluations, 2 + 6 * (st.steps + st.rejected));
  EXPECT_EQ(s.calls, st.evaluations);
}

// v' = v^2 from v(0) = 1 has no solution past t = 1: the step size must
// collapse there and the stepper must say so rather than step across.
TEST(Dopri5, ThrowsWhenStepUnderflowsAtBlowUp) {
  constexpr double kBlowUpTimeTolerance = 1e-6;
  constexpr double kLargeSolution = 1e9;
  StepperOptions o;
  o.rtol = 1e-8;
  o.atol = 1e-8;
  LineSystem s([](double, double, double v) { return v * v; });
  auto dp = make_stepper("dopri5", s, o);
  dp->reset(0.0, LineSystem::state(0.0, 1.0));
  try {
    for (int i = 0; i < 100000 && dp->t() < 2.0; ++i) dp->step(2.0);
    FAIL() << "integrated past the blow-up to t = " << dp->t();
  } catch (const SimulationError& e) {
    EXPECT_NEAR(e.time(), 1.0, kBlowUpTimeTolerance);
    EXPECT_GT(dp->y()(7), kLargeSolution);
    EXPECT_NE(std::string(e.what()).find("underflows"), std::string::npos) << e.what();
  }
}

// RKF45 carries the fifth-order solution (Shampine & Watts' RKF45).
TEST(Rkf45, FixedStepGlobalErrorConvergesAtFifthOrder) {
  auto error = [](double h) { return global_error("rkf45", loose_options(h), 2.0); };
  EXPECT_NEAR(std::log2(error(0.2) / error(0.1)), 5.0, kOrderTolerance);
  EXPECT_NEAR(std::log2(error(0.1) / error(0.05)), 5.0, kOrderTolerance);
}

TEST(Rkf45, GlobalErrorFollowsTheToleranceAndCostsSixEvaluationsPerAttempt) {
  constexpr double kMaxErrorOverTolerance = 10.0;
  double previous = 0.0;
  for (double rtol : {1e-6, 1e-8, 1e-10}) {
    SCOPED_TRACE("rtol = " + std::to_string(rtol));
    StepperOptions o;
    o.rtol = rtol;
    o.atol = rtol;
    LineSystem s = oscillator();
    auto rk = make_stepper("rkf45", s, o);
    rk->reset(0.0, LineSystem::state(1.0, 0.5));
    run_to(*rk, 10.0);
    const double error = (xv(rk->y()) - flow(1.0, 0.5, 10.0)).norm();
    EXPECT_LT(error, kMaxErrorOverTolerance * rtol);
    if (previous > 0.0) {
      EXPECT_GT(previous / error, 10.0);
    }
    previous = error;
    // five new stages per attempt, one more per accepted step (the next
    // k1, also the end derivative of the dense output), HINIT's one, reset's one
    const StepperStatistics& st = rk->statistics();
    EXPECT_EQ(st.evaluations, 2 + 5 * (st.steps + st.rejected) + st.steps);
  }
}

// The increments live in the Lie-group chart: a free body tumbling
// (intermediate-axis spin, far from any fixed rotation axis) keeps a unit
// quaternion without renormalisation, conserves its angular momentum in
// world axes to the method's accuracy, and RK4's order holds on SO(3).
TEST(ExplicitRungeKutta, TumblingBodyKeepsUnitQuaternionAndFourthOrderOnRotations) {
  constexpr double kUnitRounding = 1e-14;
  const Vec3 inertia(1.0, 2.0, 3.0);
  const VecX y0 = SpinningBody::state(Vec3(0.1, 5.0, 0.2));
  auto run = [&](double h) {
    SpinningBody body(inertia);
    auto rk = make_stepper("rk4", body, fixed_step(h));
    rk->reset(0.0, y0);
    double worst_unit = 0.0;
    while (rk->t() < 4.0) {
      rk->step(4.0);
      worst_unit = std::max(worst_unit, std::abs(rk->y().segment<4>(3).norm() - 1.0));
    }
    EXPECT_LT(worst_unit, kUnitRounding);
    return VecX(rk->y());
  };
  const VecX fine = run(0.01 / 16.0);
  auto error = [&](const VecX& y) {
    Quat q(y(3), y(4), y(5), y(6)), qf(fine(3), fine(4), fine(5), fine(6));
    return Eigen::AngleAxisd(qf.conjugate() * q).angle() + (y - fine).segment<3>(10).norm();
  };
  const double e1 = error(run(0.01)), e2 = error(run(0.005));
  EXPECT_NEAR(std::log2(e1 / e2), 4.0, kOrderTolerance);
  SpinningBody body(inertia);
  auto dp = make_stepper("dopri5", body, StepperOptions{});
  dp->reset(0.0, y0);
  run_to(*dp, 4.0);
  EXPECT_LT((body.momentum_W(dp->y()) - body.momentum_W(y0)).norm(), 1e-6);
  EXPECT_LT(std::abs(dp->y().segment<4>(3).norm() - 1.0), kUnitRounding);
}

// The audit quadratures follow the solution but take no part in the error
// test: a huge audit rate does not shrink the steps.
TEST(ExplicitRungeKutta, AuditEntriesAreOutsideTheErrorNorm) {
  auto steps = [](double scale) {
    LineSystem s([](double, double x, double) { return -x; });
    StepperOptions o;
    o.rtol = 1e-8;
    o.atol = 1e-8;
    auto dp = make_stepper("dopri5", s, o);
    VecX y0 = LineSystem::state(1.0, 0.0);
    y0(13) = scale;  // the audit entry's size
    dp->reset(0.0, y0);
    run_to(*dp, 5.0);
    // the quadrature of v^2 = sin^2 t over [0, 5]
    if (scale == 0.0) {
      EXPECT_NEAR(dp->y()(13), 2.5 - std::sin(10.0) / 4.0, 1e-6);  // not error-controlled
    }
    return dp->statistics().steps;
  };
  EXPECT_EQ(steps(0.0), steps(1e12));
}

}  // namespace
}  // namespace ictus
