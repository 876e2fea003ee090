// Newmark, Wilson-theta, HHT and generalized-alpha in acceleration form:
// energy conservation and order of the trapezoidal rule, the spectral radius
// at infinity of HHT and generalized-alpha, and seed 003's Table 1 and its
// two-pass nonlinear scheme against the reference implementations
// (shared/reference/REPORT.md, case 3; case3_output.txt).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>

#include "ictus/stepper.h"
#include "test_systems.h"

namespace ictus {
namespace {

using testing::LineSystem;

StepperOptions fixed_step(double h) {
  StepperOptions o;
  o.step = h;
  return o;
}

// Newmark (1/4, 1/2) is the trapezoidal rule: on an undamped linear
// oscillator it conserves the energy x^2/2 + v^2/2 exactly (to round-off
// and the Newton tolerance), at any step, here 0.3 s for a 6.28 s period.
TEST(Newmark, AverageAccelerationConservesTheEnergyOfALinearOscillator) {
  constexpr double kRoundOff = 1e-12;
  LineSystem s([](double, double x, double) { return -x; });
  auto nm = make_stepper("newmark", s, fixed_step(0.3));
  nm->reset(0.0, LineSystem::state(1.0, 0.5));
  const double e0 = 0.5 * (1.0 + 0.25);
  double worst = 0.0;
  while (nm->t() < 300.0) {
    nm->step(300.0);
    const double x = nm->y()(0), v = nm->y()(7);
    worst = std::max(worst, std::abs(0.5 * (x * x + v * v) - e0));
  }
  EXPECT_LT(worst, kRoundOff);
  EXPECT_EQ(nm->statistics().steps, 1000);
}

// Modified Newton: the iteration matrix (the Jacobian, by differences of
// the accelerations here) is kept across the Newton iterations and across
// steps of the same size, and rebuilt only when convergence is slow. On a
// pendulum x'' = -sin x at a fixed step, 1000 steps of three iterations
// each need two Jacobians (measured: the first step's, and one more where
// the iterations were slow), and every call of the accelerations is counted
// by the stepper (evaluations).
TEST(Newmark, ReusesTheJacobianAcrossNewtonIterationsAndSteps) {
  LineSystem s([](double, double x, double) { return -std::sin(x); });
  auto nm = make_stepper("newmark", s, fixed_step(0.01));
  nm->reset(0.0, LineSystem::state(1.0, 0.0));
  while (nm->t() < 10.0) nm->step(10.0);
  const StepperStatistics& st = nm->statistics();
  EXPECT_EQ(st.steps, 1000);
  EXPECT_GE(st.newton_iterations, 2 * st.steps);
  EXPECT_LE(st.jacobian_evaluations, 2);
  EXPECT_EQ(st.evaluations, s.calls);
}

TEST(Newmark, ConvergesAtSecondOrder) {
  auto error = [](double h) {
    LineSystem s([](double, double x, double v) { return -x - 0.1 * v; });
    auto nm = make_stepper("newmark", s, fixed_step(h));
    nm->reset(0.0, LineSystem::state(1.0, 0.0));
    while (nm->t() < 2.0) nm->step(2.0);
    // exact: x = e^(-0.05 t) (cos wd t + 0.05/wd sin wd t), wd = sqrt(1 - 0.0025)
    const double wd = std::sqrt(1.0 - 0.0025);
    const double exact = std::exp(-0.1) * (std::cos(2.0 * wd) + 0.05 / wd * std::sin(2.0 * wd));
    return std::abs(nm->y()(0) - exact);
  };
  EXPECT_NEAR(std::log2(error(0.02) / error(0.01)), 2.0, 0.05);
}

// The spectral radius of the amplification matrix at omega h -> infinity.
// The displacement sequence of a linear scheme with a 3-dimensional state
// (x, v, a) obeys the recurrence of the matrix's characteristic polynomial
// (Cayley-Hamilton): six values give its coefficients and so its roots.
Eigen::Vector3d characteristic_polynomial(const char* name, const StepperOptions& options) {
  const double omega = 1e3;
  LineSystem s([omega](double, double x, double) { return -omega * omega * x; });
  StepperOptions o = options;
  o.step = 10.0;  // omega h = 1e4: within 1/(omega h)^2 of the limit
  auto stepper = make_stepper(name, s, o);
  stepper->reset(0.0, LineSystem::state(1.0, 1.0));
  double x[6];
  x[0] = 1.0;
  for (int n = 1; n < 6; ++n) {
    stepper->step(1e9);
    x[n] = stepper->y()(0);
  }
  Eigen::Matrix3d hankel;
  hankel << x[2], x[1], x[0], x[3], x[2], x[1], x[4], x[3], x[2];
  return hankel.fullPivLu().solve(Eigen::Vector3d(x[3], x[4], x[5]));
}

double spectral_radius_at_infinity(const char* name, const StepperOptions& options) {
  const Eigen::Vector3d p = characteristic_polynomial(name, options);
  Eigen::Matrix3d companion;
  companion << p(0), p(1), p(2), 1.0, 0.0, 0.0, 0.0, 1.0, 0.0;
  return companion.eigenvalues().cwiseAbs().maxCoeff();
}

TEST(Hht, SpectralRadiusAtInfinityMatchesAlpha) {
  // the roots of a triple (defective) eigenvalue are sensitive: eps^(1/3)
  constexpr double kTolerance = 1e-3;
  for (double alpha : {-0.05, -0.1, -0.3}) {
    SCOPED_TRACE("alpha = " + std::to_string(alpha));
    StepperOptions o;
    o.alpha = alpha;
    EXPECT_NEAR(spectral_radius_at_infinity("hht", o), (1.0 + alpha) / (1.0 - alpha), kTolerance);
  }
}

// Chung & Hulbert's parameters put all three roots at -rho_inf when
// omega h -> infinity: the recurrence is that of (lambda + rho)^3. (Its
// coefficients, not its roots, are compared: the roots of a triple root move
// by the cube root of the O(1/(omega h)^2) distance from the limit.)
TEST(GeneralizedAlpha, SpectralRadiusAtInfinityMatchesRhoInf) {
  constexpr double kTolerance = 1e-5;  // 3e-6 is observed at omega h = 1e4
  for (double rho : {0.0, 0.5, 0.8}) {
    SCOPED_TRACE("rho_inf = " + std::to_string(rho));
    StepperOptions o;
    o.rho_inf = rho;
    const Eigen::Vector3d p = characteristic_polynomial("generalized_alpha", o);
    // lambda^3 = p0 lambda^2 + p1 lambda + p2
    EXPECT_NEAR(p(0), -3.0 * rho, kTolerance);
    EXPECT_NEAR(p(1), -3.0 * rho * rho, kTolerance);
    EXPECT_NEAR(p(2), -rho * rho * rho, kTolerance);
  }
}

// Seed 003, the identified model (REPORT.md case 3): m = 2 kg, K = 800 N/m,
// C = 16 N s/m, F = -m 10 g sin(10 t) for t < pi/10; dt = pi/960. The
// extrema are the largest |value| on the step grid over 458 steps (the
// reference's n = round(1.5/dt)); the acceleration is the scheme's own.
struct Extrema {
  double u = 0.0, v = 0.0, a = 0.0;
  int iu = 0, iv = 0, ia = 0;
};

constexpr double kMass = 2.0, kStiffness = 800.0, kDamping = 16.0;
constexpr double kDt = 3.14159265358979323846 / 960.0;

double pulse(double t) {
  return t < 3.14159265358979323846 / 10.0 ? -kMass * 10.0 * 9.81 * std::sin(10.0 * t) : 0.0;
}

Extrema grid_extrema(const char* name, StepperOptions o, MechanicalSystem& s, int every = 1) {
  auto stepper = make_stepper(name, s, o);
  stepper->reset(0.0, LineSystem::state(0.0, 0.0));
  Extrema e;
  VecX acc(6);
  const int steps = 458 * every;
  for (int n = 1; n <= steps; ++n) {
    stepper->step(n * o.step);
    if (n % every != 0) continue;
    const double u = stepper->y()(0), v = stepper->y()(7);
    if (!stepper->scheme_accelerations(acc)) {
      VecX rates(7);
      s.accelerations(stepper->t(), stepper->y(), rates);
      acc = rates.head(6);
    }
    const int i = n / every;
    if (std::abs(u) > std::abs(e.u)) e.u = u, e.iu = i;
    if (std::abs(v) > std::abs(e.v)) e.v = v, e.iv = i;
    if (std::abs(acc(0)) > std::abs(e.a)) e.a = acc(0), e.ia = i;
  }
  return e;
}

void expect_row(const Extrema& e, double u, int iu, double v, int iv, double a, int ia) {
  // the reference prints u and v to 6 decimals and a to 5 (case3_output.txt)
  EXPECT_NEAR(e.u, u, 5e-7);
  EXPECT_NEAR(e.v, v, 5e-7);
  EXPECT_NEAR(e.a, a, 5e-6);
  EXPECT_EQ(e.iu, iu);
  EXPECT_EQ(e.iv, iv);
  EXPECT_EQ(e.ia, ia);
}

LineSystem viscous_block() {
  return LineSystem([](double t, double x, double v) {
    return (pulse(t) - kDamping * v - kStiffness * x) / kMass;
  });
}

TEST(Seed003Table1, NewmarkAndWilsonReproduceTheReferenceAlgorithms) {
  LineSystem s = viscous_block();
  expect_row(grid_extrema("newmark", fixed_step(kDt), s), -0.335238, 66, 3.926945, 98, -59.41461,
             120);
  LineSystem w = viscous_block();
  expect_row(grid_extrema("wilson", fixed_step(kDt), w), -0.335391, 66, 3.929562, 98, -59.45776,
             120);
  LineSystem r = viscous_block();
  expect_row(grid_extrema("rk4", fixed_step(kDt), r), -0.335258, 66, 3.925811, 98, -59.38360, 120);
  // dt/10, printed every 10th step: the exact row to 5 digits
  LineSystem fine = viscous_block();
  expect_row(grid_extrema("newmark", fixed_step(kDt / 10.0), fine, 10), -0.335258, 66, 3.925822, 98,
             -59.38389, 120);
}

// The paper-effective structural damping gamma = 0.24 (no stick phase),
// Fd = 0.24 K |u| sgn(u') with sgn(0) = 0 and no viscous part, by the
// two-pass scheme: Newmark "2-it" and Wilson "2-it" rows of case3_output.txt.
TEST(Seed003TwoPass, StructuralDampingMatchesTheReferenceSchemes) {
  auto block = [] {
    return LineSystem(
        [](double t, double x, double) { return (pulse(t) - kStiffness * x) / kMass; },
        [](double, double x, double v) {
          const double sgn = v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0);
          return -0.24 * kStiffness * std::abs(x) * sgn / kMass;
        });
  };
  StepperOptions o = fixed_step(kDt);
  o.two_pass = true;
  LineSystem n = block();
  expect_row(grid_extrema("newmark", o, n), -0.333878, 60, 4.682336, 106, -104.21612, 127);
  LineSystem w = block();
  expect_row(grid_extrema("wilson", o, w), -0.335162, 60, 4.594192, 106, -102.58905, 127);
}

}  // namespace
}  // namespace ictus
